"""File > Batch convert folder…: the app's face of ``pad_engine.batch.convert_folder``.

The conversion runs on a QThread (which itself waits on worker processes when more than one
is asked for). Progress goes into a plain queue that the dialog drains on a timer, as the main
window does with the engine's results: no Python object crosses threads inside Qt, and the UI
stays responsive however fast events come.
"""

from __future__ import annotations

import queue
import threading
from pathlib import Path

from PySide6.QtCore import Qt, QThread, QTimer
from PySide6.QtGui import QAction
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

from pad_engine.batch import (
    FAILED,
    BatchProgress,
    BatchReport,
    FileResult,
    convert_folder,
    default_jobs,
)
from pad_engine.errors import PadError
from pad_gui.dialogs import job_buttons

POLL_MS = 100


class BatchWorker(QThread):
    """Runs one ``convert_folder`` call; its events are taken with :meth:`take`."""

    def __init__(self, options: dict, parent=None):
        super().__init__(parent)
        self.options = options
        self.cancel_requested = threading.Event()
        self.events: queue.SimpleQueue = queue.SimpleQueue()  # BatchProgress, then the end

    def run(self) -> None:
        try:
            report = convert_folder(**self.options, progress=self.events.put,
                                    cancel=self.cancel_requested.is_set)
        except (PadError, OSError) as err:
            self.events.put(("error", str(err)))
        except Exception as err:  # noqa: BLE001 - shown in the dialog, not lost in a thread
            self.events.put(("error", f"{type(err).__name__}: {err}"))
        else:
            self.events.put(("done", report))

    def take(self) -> list[object]:
        """Every event posted so far (call from the UI thread)."""
        out = []
        while True:
            try:
                out.append(self.events.get_nowait())
            except queue.Empty:
                return out


class BatchDialog(QDialog):
    """Input folder, output folder, model and options; Start, progress, Cancel, results."""

    def __init__(self, parent: QWidget | None = None,
                 default_model_path: str | Path | None = None):
        super().__init__(parent)
        self.setWindowTitle("Batch convert folder")
        self.resize(760, 560)
        self.worker: BatchWorker | None = None
        self.report: BatchReport | None = None
        self.error = ""

        form = QFormLayout()
        self.input_edit = self._path_row(form, "Input folder:", "Folder with .conll, .conllx "
                                         "or .conllu files (searched recursively)", folder=True)
        self.output_edit = self._path_row(form, "Output folder:", "Penn trees go here, in the "
                                          "same subfolders", folder=True)
        self.model_edit = self._path_row(form, "Model:", "the bundled English model",
                                         folder=False)
        if default_model_path is not None:
            self.model_edit.setText(str(default_model_path))
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
        self.results.setHeaderLabels(["File", "Status", "Sentences", "Converted", "Skipped"])
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
        self._poll = QTimer(self)
        self._poll.setInterval(POLL_MS)
        self._poll.timeout.connect(self._take_events)

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
        self.status_label.setText("Starting (loading the model)…")
        options = {"in_dir": src, "out_dir": dst,
                   "model_path": self.model_edit.text().strip() or None,
                   "jobs": self.jobs_spin.value(), "kbest": self.kbest_spin.value(),
                   "prune": self.prune_check.isChecked()}
        self.worker = BatchWorker(options, self)
        self._set_running(True)
        self.worker.start()
        self._poll.start()

    def cancel(self) -> None:
        """Stop after the current sentence; finished files stay, partial ones are removed."""
        if self.worker is not None:
            self.worker.cancel_requested.set()
            self.cancel_button.setEnabled(False)
            self.status_label.setText("Cancelling…")

    def _set_running(self, running: bool) -> None:
        for w in (self.start_button, self.input_edit, self.output_edit, self.model_edit,
                  self.kbest_spin, self.prune_check, self.jobs_spin):
            w.setEnabled(not running)
        self.cancel_button.setEnabled(running)

    def _take_events(self) -> None:
        if self.worker is None:
            return
        last: BatchProgress | None = None
        for event in self.worker.take():
            if isinstance(event, BatchProgress):
                last = event
                if event.file is not None:
                    self._add_file(event.file)
            else:
                self._finish(*event)
                return
        if last is not None and not self.worker.cancel_requested.is_set():
            self.progress_bar.setValue(round(1000 * last.fraction))
            left = (f", {_duration(last.seconds_left)} left"
                    if last.seconds_left is not None else "")
            self.status_label.setText(
                f"{last.files_done} of {last.files_total} files, {last.sentences_done:,} "
                f"sentences, {last.sentences_per_second:,.0f} sentences/s{left}")

    def _add_file(self, f: FileResult) -> None:
        item = QTreeWidgetItem([f.input, f.status if not f.error else f"{f.status}: {f.error}",
                                str(f.sentences), str(f.converted), str(len(f.skipped))])
        self.results.addTopLevelItem(item)  # before its children: spanning needs the tree
        for s in f.skipped:
            child = QTreeWidgetItem(item, [f"{s.file}:{s.line}: {s.reason}"])
            child.setFirstColumnSpanned(True)
            child.setToolTip(0, child.text(0))

    def _finish(self, kind: str, payload) -> None:
        self._poll.stop()
        self.worker.wait()
        self.worker = None
        self._set_running(False)
        if kind == "error":
            self.error = payload
            self.status_label.setText(f"Not converted: {payload}")
            return
        report: BatchReport = payload
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
            self.worker.wait()
            self._take_events()
        super().reject()


def _duration(seconds: float) -> str:
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds:02d} s"
    return f"{minutes // 60} h {minutes % 60:02d} min"


def add_batch_action(menu, window: QWidget, model_path: str | Path | None = None) -> QAction:
    """Add "Batch convert folder…" to ``menu``; it opens one non-modal dialog per window."""
    action = QAction("&Batch Convert Folder…", window)
    action.setStatusTip("Convert every CoNLL file under a folder into Penn trees")

    dialogs: list[BatchDialog] = []

    def open_dialog() -> None:
        if not dialogs:
            dialogs.append(BatchDialog(window, model_path))
        dialog = dialogs[0]
        dialog.show()
        dialog.raise_()
        dialog.activateWindow()

    action.triggered.connect(open_dialog)
    menu.addAction(action)
    return action
