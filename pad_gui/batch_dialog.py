"""File > Batch convert folder…: the face of ``controllers.batch``, which runs
``convert_folder`` and says how it goes; this dialog shows that and forwards the clicks.
Progress reaches it on the UI thread a few times a second, so the UI stays responsive
however fast events come.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from pad_engine.api import BatchReport, FileResult, default_jobs
from pad_gui import ui_thread
from pad_gui.controllers.batch import BatchConversion
from pad_gui.controllers.models import ModelVersions
from pad_gui.dialogs import bring_to_front, job_buttons

POLL_MS = 100
STEPS = 1000  # progress bar resolution


class BatchDialog(QDialog):
    """Input folder, output folder, model and options; Start, progress, Cancel, results:
    the view of a :class:`BatchConversion`."""

    def __init__(self, parent: QWidget | None = None,
                 default_model_path: str | Path | None = None,
                 models: ModelVersions | None = None):
        super().__init__(parent)
        self.batch = BatchConversion(lambda worker: ui_thread.start(worker, self, POLL_MS),
                                     models)
        self.setWindowTitle("Batch convert folder")
        self.resize(760, 560)

        form = QFormLayout()
        self.input_edit = self._path_row(form, "Input folder:", "Folder with .conll, .conllx "
                                         "or .conllu files (searched recursively)", folder=True)
        self.output_edit = self._path_row(form, "Output folder:", "Penn trees go here, in the "
                                          "same subfolders", folder=True)
        self.model_edit = self._path_row(form, "Model:", "per file, as the app: the bundled "
                                         "model that fits it, else rule-based", folder=False)
        if default_model_path is not None:
            self.model_edit.setText(str(default_model_path))
        self.project_check = QCheckBox("The project's version in use instead")
        self.project_check.setToolTip("Convert with the model version decoding in the open "
                                      "project (Model > Model Versions)")
        form.addRow("", self.project_check)
        self.kbest_spin = QSpinBox()
        self.kbest_spin.setRange(0, 1000)
        self.kbest_spin.setSpecialValueText("best tree only")
        self.kbest_spin.setToolTip("Write the K best trees per sentence (SCORE<TAB>TREE lines "
                                   "and a blank line) to .kbest files instead of .mrg")
        form.addRow("K-best trees:", self.kbest_spin)
        self.prune_check = QCheckBox("Pruning (much faster; off: exact decoding)")
        self.prune_check.setChecked(True)
        form.addRow("Decoding:", self.prune_check)
        self.jobs_spin = QSpinBox()
        self.jobs_spin.setRange(1, max(1, default_jobs()))
        self.jobs_spin.setValue(self.jobs_spin.maximum())
        self.jobs_spin.setToolTip("Worker processes; each loads the model once")
        form.addRow("Processes:", self.jobs_spin)

        self.progress_bar = QProgressBar()
        self.progress_bar.setRange(0, STEPS)
        self.progress_bar.setTextVisible(False)
        self.status_label = QLabel()
        self.status_label.setWordWrap(True)
        self.results = QTreeWidget()
        self.results.setHeaderLabels(["File", "Status", "Sentences", "Converted", "Skipped",
                                      "Model"])
        self.results.setColumnWidth(0, 300)
        self.report_label = QLabel()
        self.report_label.setWordWrap(True)
        self.report_label.setTextInteractionFlags(Qt.TextSelectableByMouse)

        buttons, self.start_button, self.cancel_button, self.close_button = job_buttons(self)

        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.progress_bar)
        layout.addWidget(self.status_label)
        layout.addWidget(self.results, 1)
        layout.addWidget(self.report_label)
        layout.addWidget(buttons)
        self.batch.changed.connect(self.refresh)
        self.batch.cleared.connect(self.results.clear)
        self.batch.row.connect(self._add_file)
        self.refresh()

    def _path_row(self, form: QFormLayout, label: str, hint: str, folder: bool) -> QLineEdit:
        edit = QLineEdit()
        edit.setPlaceholderText(hint)
        browse = QPushButton("Browse…")

        def choose() -> None:
            if folder:
                path = QFileDialog.getExistingDirectory(self, label.rstrip(":"), edit.text())
            else:
                path, _ = QFileDialog.getOpenFileName(self, label.rstrip(":"), edit.text(),
                                                      "PAD models (*.padmodel);;All files (*)")
            if path:
                edit.setText(path)

        browse.clicked.connect(choose)
        row = QHBoxLayout()
        row.addWidget(edit, 1)
        row.addWidget(browse)
        form.addRow(label, row)
        return edit

    @property
    def running(self) -> bool:
        return self.batch.running

    @property
    def report(self) -> BatchReport | None:
        return self.batch.report

    @property
    def error(self) -> str:
        return self.batch.error

    def start(self) -> None:
        """Start: the fields as they are, to the controller."""
        self.batch.start(self.input_edit.text(), self.output_edit.text(),
                         self.model_edit.text().strip() or None,
                         project_model=self.project_check.isChecked(),
                         jobs=self.jobs_spin.value(), kbest=self.kbest_spin.value(),
                         prune=self.prune_check.isChecked())

    def cancel(self) -> None:
        self.batch.cancel()

    def refresh(self) -> None:
        """Show the run as the controller has it."""
        b = self.batch
        for w in (self.start_button, self.input_edit, self.output_edit, self.model_edit,
                  self.kbest_spin, self.prune_check, self.jobs_spin):
            w.setEnabled(not b.running)
        self.project_check.setEnabled(not b.running and b.models is not None)
        self.cancel_button.setEnabled(b.running and not b.cancelling)
        self.progress_bar.setValue(round(STEPS * b.fraction))
        self.status_label.setText(b.status)
        self.report_label.setText(b.report_note)
        if b.report is not None:
            self.results.sortItems(0, Qt.AscendingOrder)

    def _add_file(self, f: FileResult) -> None:
        item = QTreeWidgetItem([f.input, f.status if not f.error else f"{f.status}: {f.error}",
                                str(f.sentences), str(f.converted), str(len(f.skipped)),
                                f.model.split(" (")[0]])
        item.setToolTip(5, f.model)
        self.results.addTopLevelItem(item)  # before its children: spanning needs the tree
        for s in f.skipped:
            child = QTreeWidgetItem(item, [f"{s.file}:{s.line}: {s.reason}"])
            child.setFirstColumnSpanned(True)
            child.setToolTip(0, child.text(0))

    def reject(self) -> None:
        """Closing while running cancels first, so no worker outlives the dialog."""
        self.batch.stop()
        super().reject()


def show_batch_dialog(window: QWidget, model_path: str | Path | None = None,
                      models: ModelVersions | None = None) -> BatchDialog:
    """File > Batch Convert Folder: the window's one batch dialog, in front of it
    (``models``: the window's project versions, offered instead of the per-file choice)."""
    dialog = window.findChild(BatchDialog)
    if dialog is None:
        dialog = BatchDialog(window, model_path, models)
    bring_to_front(dialog)
    return dialog
