"""File > Batch convert folder… without Qt: one run of ``convert_folder`` at a time on a
:class:`~pad_gui.worker.Worker` (which itself waits on worker processes when more than one
is asked for), and what the dialog shows of it. The dialog only shows this state and
forwards the annotator's clicks, so a test drives a whole run without a window."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

from pad_engine.api import (
    FAILED,
    BatchProgress,
    BatchReport,
    FileResult,
    PadError,
    convert_folder,
    write_bytes,
)
from pad_gui.controllers.models import ModelVersions
from pad_gui.events import Event
from pad_gui.store import BUNDLED
from pad_gui.worker import Worker


class BatchConversion:
    """One folder conversion at a time: ``status`` (text), ``fraction`` done, and once it
    ends ``report`` (or ``error``) with ``report_note``, where the report was written.

    Events: ``changed()`` after any of these change; ``cleared()`` when a run starts (its
    rows go); ``row(FileResult)`` for each file to show, as it finishes (files up to date
    from an earlier run come with the report)."""

    def __init__(self, launch: Callable[[Worker], None], models: ModelVersions | None = None):
        self.launch = launch  # starts a worker whose events reach this thread
        self.models = models  # the project's versions, offered instead of the per-file choice
        self.worker: Worker | None = None
        self.report: BatchReport | None = None
        self.error = ""
        self.status = "Choose the folders, then Start."
        self.fraction = 0.0
        self.report_note = ""
        self.changed = Event()
        self.cleared = Event()
        self.row = Event()
        self._shown: set[str] = set()  # inputs of the rows shown for this run
        self._model_folder: tempfile.TemporaryDirectory | None = None

    @property
    def running(self) -> bool:
        return self.worker is not None

    @property
    def cancelling(self) -> bool:
        return self.worker is not None and self.worker.cancelled

    def _say(self, status: str) -> None:
        self.status = status
        self.changed.emit()

    def start(self, in_dir: str, out_dir: str, model: str | None = None, *,
              project_model: bool = False, jobs: int = 1, kbest: int = 0,
              prune: bool = True) -> bool:
        """Convert the folder off the UI thread (True when the run started): with the model
        file ``model`` (None: per file, the bundled model that fits it), or the project's
        version in use when ``project_model``."""
        if self.running:
            return False
        in_dir, out_dir = in_dir.strip(), out_dir.strip()
        if not in_dir or not out_dir:
            self._say("Choose an input folder and an output folder first.")
            return False
        self.report, self.error, self.report_note, self.fraction = None, "", "", 0.0
        self._shown.clear()
        self.cleared.emit()
        try:
            model_path = self._project_model() if project_model else model
        except (OSError, KeyError, PadError) as e:
            self._say(f"Not converted: the project's model: {e}")
            return False
        options = {"in_dir": in_dir, "out_dir": out_dir, "model_path": model_path,
                   "jobs": jobs, "kbest": kbest, "prune": prune}
        self.worker = Worker(lambda w: convert_folder(**options, progress=w.report,
                                                       cancel=w.is_cancelled), "pad-batch")
        self.worker.yielded.connect(self._progress)
        self.worker.returned.connect(self._done)
        self.worker.errored.connect(self._failed)
        self.worker.finished.connect(self._ended)
        self._say("Starting (loading the model)…")
        self.launch(self.worker)
        return True

    def _project_model(self) -> str | None:
        """The model file of the project's version in use (a retrained one is written to a
        temporary file the workers read); None when version 0 chooses per file."""
        m = self.models
        if m is None:
            raise PadError("no project is open")
        if m.active == BUNDLED:
            return str(m.startup_path) if m.startup_path is not None else None
        if self._model_folder is None:
            self._model_folder = tempfile.TemporaryDirectory(prefix="pad-batch-")
        path = Path(self._model_folder.name) / f"version-{m.active}.padmodel"
        write_bytes(path, m.store.version_bytes(m.active))
        return str(path)

    def cancel(self) -> None:
        """Stop after the current sentence; finished files stay, partial ones are removed."""
        if self.worker is not None and not self.worker.cancelled:
            self.worker.cancel()
            self._say("Cancelling…")

    def stop(self) -> None:
        """Cancel and wait for the run (the dialog is closing: no worker outlives it)."""
        if self.worker is not None:
            self.cancel()
            self.worker.stop()

    def _show(self, f: FileResult) -> None:
        if f.input not in self._shown:
            self._shown.add(f.input)
            self.row.emit(f)

    def _progress(self, event: BatchProgress) -> None:
        if event.file is not None:
            self._show(event.file)
        if not self.cancelling:
            self.fraction = event.fraction
            left = (f", {duration(event.seconds_left)} left"
                    if event.seconds_left is not None else "")
            self._say(f"{event.files_done} of {event.files_total} files, "
                      f"{event.sentences_done:,} sentences, "
                      f"{event.sentences_per_second:,.0f} sentences/s{left}")

    def _done(self, report: BatchReport) -> None:
        self.report = report
        for f in report.files:  # files up to date from an earlier run come only with it
            self._show(f)
        if not report.cancelled:
            self.fraction = 1.0
        failed = report.count(FAILED)
        what = "Cancelled" if report.cancelled else "Done"
        self.report_note = f"Report: {report.report_path} (and .txt)"
        self._say(
            f"{what}: {report.converted:,} of {report.sentences:,} sentences converted in "
            f"{len(report.files)} files ({failed} failed, {len(report.skipped)} sentences "
            f"skipped), {report.seconds:.1f} s, {report.sentences_per_second:,.0f} sentences/s.")

    def _failed(self, error: Exception) -> None:
        self.error = str(error) if isinstance(error, (PadError, OSError)) else \
            f"{type(error).__name__}: {error}"
        self._say(f"Not converted: {self.error}")

    def _ended(self) -> None:
        self.worker = None
        self.changed.emit()


def duration(seconds: float) -> str:
    """A time left as a person reads it: 42 s, 3 min 05 s, 1 h 02 min."""
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds:02d} s"
    return f"{minutes // 60} h {minutes % 60:02d} min"
