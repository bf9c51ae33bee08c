"""File > Batch convert folder…: the app's face of ``pad_engine.batch.folders.convert_folder``.

The conversion runs on a :class:`~pad_gui.worker.Worker` (which itself waits on worker
processes when more than one is asked for); its progress reaches the dialog on the UI thread
a few times a second, so the UI stays responsive however fast events come.
"""

from __future__ import annotations

import tempfile
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

from pad_engine.api import (
    FAILED,
    BatchProgress,
    BatchReport,
    FileResult,
    PadError,
    convert_folder,
    default_jobs,
    write_bytes,
)
from pad_gui import ui_thread
from pad_gui.controllers.models import ModelVersions
from pad_gui.dialogs import bring_to_front, job_buttons
from pad_gui.store import BUNDLED
from pad_gui.worker import Worker

POLL_MS = 100


class BatchDialog(QDialog):
    """Input folder, output folder, model and options; Start, progress, Cancel, results."""

    def __init__(self, parent: QWidget | None = None,
                 default_model_path: str | Path | None = None,
                 models: ModelVersions | None = None):
        super().__init__(parent)
        self.models = models
        self._model_folder: tempfile.TemporaryDirectory | None = None
        self.setWindowTitle("Batch convert folder")
        self.resize(760, 560)
        self.worker: Worker | None = None
        self.report: BatchReport | None = None
        self.error = ""

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
        self.project_check.setEnabled(models is not None)
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
        self.progress_bar.setRange(0, 1000)
        self.progress_bar.setTextVisible(False)
        self.status_label = QLabel("Choose the folders, then Start.")
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
        return self.worker is not None

    def start(self) -> None:
        """Check the fields and start converting off the UI thread."""
        if self.running:
            return
        src, dst = self.input_edit.text().strip(), self.output_edit.text().strip()
        if not src or not dst:
            self.status_label.setText("Choose an input folder and an output folder first.")
            return
        self.report, self.error = None, ""
        self.results.clear()
        self.report_label.clear()
        self.progress_bar.setValue(0)
        try:
            model_path = self._project_model() if self.project_check.isChecked() else \
                self.model_edit.text().strip() or None
        except (OSError, KeyError, PadError) as e:
            self.status_label.setText(f"Not converted: the project's model: {e}")
            return
        self.status_label.setText("Starting (loading the model)…")
        options = {"in_dir": src, "out_dir": dst, "model_path": model_path,
                   "jobs": self.jobs_spin.value(), "kbest": self.kbest_spin.value(),
                   "prune": self.prune_check.isChecked()}
        self.worker = Worker(lambda w: convert_folder(**options, progress=w.report,
                                                       cancel=w.is_cancelled), "pad-batch")
        self.worker.yielded.connect(self._progress)
        self.worker.returned.connect(self._done)
        self.worker.errored.connect(self._failed)
        self.worker.finished.connect(self._ended)
        self._set_running(True)
        ui_thread.start(self.worker, self, POLL_MS)

    def _project_model(self) -> str | None:
        """The model file of the project's version in use (a retrained one is written to a
        temporary file the workers read); None when version 0 chooses per file."""
        m = self.models
        if m.active == BUNDLED:
            return str(m.startup_path) if m.startup_path is not None else None
        if self._model_folder is None:
            self._model_folder = tempfile.TemporaryDirectory(prefix="pad-batch-")
        path = Path(self._model_folder.name) / f"version-{m.active}.padmodel"
        write_bytes(path, m.store.version_bytes(m.active))
        return str(path)

    def cancel(self) -> None:
        """Stop after the current sentence; finished files stay, partial ones are removed."""
        if self.worker is not None:
            self.worker.cancel()
            self.cancel_button.setEnabled(False)
            self.status_label.setText("Cancelling…")

    def _set_running(self, running: bool) -> None:
        for w in (self.start_button, self.input_edit, self.output_edit, self.model_edit,
                  self.kbest_spin, self.prune_check, self.jobs_spin, self.project_check):
            w.setEnabled(not running)
        self.cancel_button.setEnabled(running)

    def _progress(self, event: BatchProgress) -> None:
        if event.file is not None:
            self._add_file(event.file)
        if not self.worker.cancelled:
            self.progress_bar.setValue(round(1000 * event.fraction))
            left = (f", {_duration(event.seconds_left)} left"
                    if event.seconds_left is not None else "")
            self.status_label.setText(
                f"{event.files_done} of {event.files_total} files, {event.sentences_done:,} "
                f"sentences, {event.sentences_per_second:,.0f} sentences/s{left}")

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

    def _ended(self) -> None:
        self.worker = None
        self._set_running(False)

    def _failed(self, error: Exception) -> None:
        self.error = str(error) if isinstance(error, (PadError, OSError)) else \
            f"{type(error).__name__}: {error}"
        self.status_label.setText(f"Not converted: {self.error}")

    def _done(self, report: BatchReport) -> None:
        self.report = report
        shown = {self.results.topLevelItem(i).text(0)
                 for i in range(self.results.topLevelItemCount())}
        for f in report.files:  # files up to date from an earlier run come only with the report
            if f.input not in shown:
                self._add_file(f)
        self.results.sortItems(0, Qt.AscendingOrder)
        if not report.cancelled:
            self.progress_bar.setValue(1000)
        failed = report.count(FAILED)
        what = "Cancelled" if report.cancelled else "Done"
        self.status_label.setText(
            f"{what}: {report.converted:,} of {report.sentences:,} sentences converted in "
            f"{len(report.files)} files ({failed} failed, {len(report.skipped)} sentences "
            f"skipped), {report.seconds:.1f} s, {report.sentences_per_second:,.0f} sentences/s.")
        self.report_label.setText(f"Report: {report.report_path} (and .txt)")

    def reject(self) -> None:
        """Closing while running cancels first, so no worker outlives the dialog."""
        if self.worker is not None:
            self.cancel()
            self.worker.stop()
        super().reject()


def _duration(seconds: float) -> str:
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds:02d} s"
    return f"{minutes // 60} h {minutes % 60:02d} min"


def show_batch_dialog(window: QWidget, model_path: str | Path | None = None,
                      models: ModelVersions | None = None) -> BatchDialog:
    """File > Batch Convert Folder: the window's one batch dialog, in front of it
    (``models``: the window's project versions, offered instead of the per-file choice)."""
    dialog = window.findChild(BatchDialog)
    if dialog is None:
        dialog = BatchDialog(window, model_path, models)
    bring_to_front(dialog)
    return dialog
