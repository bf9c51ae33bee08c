"""Model > Retrain on corrected sentences…: the app's face of ``pad_engine.learning``.

Training, then cross-validation on the same corrected trees, run on a QThread; progress goes
into a plain queue that the dialog drains on a timer (as the batch dialog does), so the UI
stays responsive and no Python object crosses threads inside Qt. The trained model becomes a
new project version and decodes at once; the cross-validated F1 follows when measured.

Each fold of the cross-validation trains as the new model did, but continues from where the
chain of continued trainings started (the start-up model, or nothing), never from an earlier
retrained version: that one has seen the held-out trees.

A model trained from scratch may learn from the file's dependency labels (DEPREL) as well;
the box is offered, and ticked, when most words have one. A continued model keeps its base's
choice.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable

from PySide6.QtCore import QThread, QTimer
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QDialog,
    QGroupBox,
    QLabel,
    QProgressBar,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from pad_engine.errors import PadError
from pad_engine.learning import cross_validate, retrain
from pad_engine.lextree import LexNode
from pad_engine.model import Model
from pad_engine.train import Cancelled, Progress, example_from_lextree
from pad_gui.dialogs import job_buttons
from pad_gui.learning_plot import LearningPlot
from pad_gui.model_versions import ModelControl, model_bytes
from pad_gui.store import BUNDLED, CONTINUED, SCRATCH

POLL_MS = 50
FOLDS = 5
STEPS = 1000  # progress bar resolution
LABELED = 0.9  # the share of words with a DEPREL above which labels are offered


class RetrainWorker(QThread):
    """Trains on the corrected trees, then cross-validates the same way; events (Progress,
    then tuples) are taken with :meth:`take`."""

    def __init__(self, trees: list[tuple[LexNode, list[str], list[str]]], base: Model | None,
                 cv_base: Callable[[], Model | None], labels: bool = False, parent=None):
        super().__init__(parent)
        self.trees = trees
        self.base = base
        self.cv_base = cv_base
        self.labels = "deprel" if labels else ""
        self.cancel_requested = threading.Event()
        self.events: queue.SimpleQueue = queue.SimpleQueue()

    def run(self) -> None:
        try:
            self._run()
        except Cancelled:
            self.events.put(("cancelled",))
        except (PadError, ValueError, OSError) as err:
            self.events.put(("error", str(err)))
        except Exception as err:  # noqa: BLE001 - shown in the dialog, not lost in a thread
            self.events.put(("error", f"{type(err).__name__}: {err}"))

    def _run(self) -> None:
        cancel = self.cancel_requested.is_set
        examples = [example_from_lextree(tree, forms, rels) for tree, forms, rels in self.trees]
        start = time.perf_counter()
        model = retrain(examples, self.base, progress=self.events.put, cancel=cancel,
                        labels=self.labels)
        seconds = time.perf_counter() - start
        self.events.put(("trained", model, model_bytes(model), seconds))
        folds = min(FOLDS, len(examples))
        if folds < 2:
            self.events.put(("no-cv", "cross-validation needs at least 2 corrected trees"))
            return
        cv = cross_validate(examples, folds, self.cv_base(),
                            progress=lambda done, total: self.events.put(("fold", done, total)),
                            cancel=cancel, labels=self.labels)
        self.events.put(("cv", cv.f1, len(cv.folds)))

    def take(self) -> list[object]:
        """Every event posted so far (call from the UI thread)."""
        out = []
        while True:
            try:
                out.append(self.events.get_nowait())
            except queue.Empty:
                return out


class RetrainDialog(QDialog):
    """From scratch or from the current model; Start, progress, Cancel; the learning curve."""

    def __init__(self, control: ModelControl, parent: QWidget | None = None):
        super().__init__(parent)
        self.control = control
        self.setWindowTitle("Retrain on corrected sentences")
        self.resize(560, 600)
        self.worker: RetrainWorker | None = None
        self.version: int | None = None  # the version this run added
        self.session = None  # the session whose corrected trees this run trains on
        self.plan: tuple[str, int | None, int] = (SCRATCH, None, 0)  # how, base, trees
        self.outcome = ""  # "trained", "measured", "cancelled", "error" once a run ends

        box = QGroupBox("Train")
        self.scratch = QRadioButton("From scratch: only the corrected trees")
        self.resume = QRadioButton()
        self.scratch.setChecked(True)
        self.how = QButtonGroup(self)
        self.how.addButton(self.scratch)
        self.how.addButton(self.resume)
        self.use_labels = QCheckBox("Learn from the dependency labels too (DEPREL column)")
        self.use_labels.setToolTip(
            "The model then reads each word's relation as well as its head: more accurate "
            "where the file's labels are consistent (UD relations on GUM: held-out F1 84.3 "
            "instead of 83.6); it expects files labeled the same way.")
        self.data_label = QLabel()
        self.data_label.setWordWrap(True)
        lay = QVBoxLayout(box)
        lay.addWidget(self.scratch)
        lay.addWidget(self.resume)
        lay.addWidget(self.use_labels)
        lay.addWidget(self.data_label)

        self.progress_bar = QProgressBar()
        self.progress_bar.setRange(0, STEPS)
        self.status_label = QLabel("Correct some sentences, then Start.")
        self.status_label.setWordWrap(True)
        self.result_label = QLabel()
        self.result_label.setWordWrap(True)
        self.plot = LearningPlot()

        buttons, self.start_button, self.cancel_button, self.close_button = job_buttons(self)

        layout = QVBoxLayout(self)
        layout.addWidget(box)
        layout.addWidget(self.progress_bar)
        layout.addWidget(self.status_label)
        layout.addWidget(self.result_label)
        layout.addWidget(QLabel("<b>Learning curve</b>: cross-validated F1 after each retrain"))
        layout.addWidget(self.plot, 1)
        layout.addWidget(buttons)
        self._poll = QTimer(self)
        self._poll.setInterval(POLL_MS)
        self._poll.timeout.connect(self._take_events)
        control.changed.connect(self.refresh)
        control.window.model.dataChanged.connect(self.refresh)  # a sentence was (un)marked
        self.how.buttonToggled.connect(lambda *_: self.refresh())
        self._labels_for = None  # the session the labels box was last set up for
        self.refresh()

    @property
    def running(self) -> bool:
        return self.worker is not None

    def refresh(self) -> None:
        """Show the current model, the corrected set and the curve as they are now."""
        c = self.control
        name = f"version {c.active}" + (f" ({c.startup_name})" if c.active == BUNDLED else "")
        self.resume.setText(f"Continue from the current model: {name}")
        s = self.control.window.session
        trees = len(s.corrected_trees()) if s is not None else 0
        self.data_label.setText(
            f"{trees} corrected sentences with a tree" + (f" (of {len(s)})" if s else "")
            + ". Afterwards the sentences not yet corrected are decoded again with the new "
              "model; corrected ones keep their trees.")
        self._refresh_labels(s)
        self.plot.set_points(c.curve())

    def _refresh_labels(self, session) -> None:
        """Offer labels from scratch where the file has them (ticked the first time); a
        continued model reads labels exactly when its base does."""
        has = session is not None and session.labeled_share() >= LABELED
        if self.resume.isChecked():
            base = self.control.current_model()
            self.use_labels.setEnabled(False)
            self.use_labels.setChecked(base is not None and bool(base.labels))
            self._labels_for = None
            return
        self.use_labels.setEnabled(has and not self.running)
        if session is not self._labels_for or not has:
            self.use_labels.setChecked(has)
            self._labels_for = session

    def start(self) -> None:
        """Train off the UI thread on the corrected trees as they are now."""
        s = self.control.window.session
        if self.running or s is None:
            return
        trees = s.corrected_trees()
        if not trees:
            self.status_label.setText("No corrected sentence with a tree yet.")
            return
        continued = self.resume.isChecked()
        base = self.control.current_model() if continued else None
        if continued and base is None:
            self.status_label.setText("No current model to continue from: train from scratch.")
            return
        origin = self.control.origin(self.control.active) if continued else None
        cv_base = self.control.startup_loader() if origin == BUNDLED else (lambda: None)
        self.plan = (CONTINUED if continued else SCRATCH,
                     self.control.active if continued else None, len(trees))
        self.version, self.outcome, self.session = None, "", s
        self.result_label.clear()
        self.progress_bar.setValue(0)
        self.status_label.setText(f"Training on {len(trees)} corrected trees…")
        labels = not continued and self.use_labels.isChecked()
        self.worker = RetrainWorker(trees, base, cv_base, labels, self)
        self._set_running(True)
        self.worker.start()
        self._poll.start()

    def cancel(self) -> None:
        """Stop training (no new version) or the cross-validation (the version stays)."""
        if self.worker is not None:
            self.worker.cancel_requested.set()
            self.cancel_button.setEnabled(False)
            self.status_label.setText("Cancelling…")

    def stop(self) -> None:
        """Cancel and wait for the worker (the window or its project is closing)."""
        if self.worker is not None:
            self.cancel()
            self.worker.wait()
            self._take_events()

    def _set_running(self, running: bool) -> None:
        for w in (self.start_button, self.scratch, self.resume, self.use_labels):
            w.setEnabled(not running)  # _finish's refresh() then sets the labels box by its rule
        self.cancel_button.setEnabled(running)

    def _take_events(self) -> None:
        if self.worker is None:
            return
        last: Progress | None = None
        for event in self.worker.take():
            if isinstance(event, Progress):
                last = event
                continue
            kind, *args = event
            if kind == "trained":
                self._trained(*args)
            elif kind == "fold":
                done, total = args
                self.progress_bar.setValue(round(STEPS * done / total))
                self.status_label.setText(f"Cross-validating: fold {done} of {total} done…")
            else:
                self._finish(kind, *args)
                return
        if last is not None and self.version is None:
            step = (last.epoch - 1) * last.total + last.done
            self.progress_bar.setValue(round(STEPS * step / max(1, last.epochs * last.total)))
            self.status_label.setText(
                f"Training: epoch {last.epoch} of {last.epochs}, {last.done} of {last.total} "
                f"sentences ({last.errors} still wrong this epoch), {last.seconds:.1f} s")

    def _trained(self, model: Model, data: bytes, seconds: float) -> None:
        if self.control.window.session is not self.session:
            return  # another project was opened meanwhile: the model is not its version
        how, base, n = self.plan
        self.version = self.control.add(how, base, n, seconds, data, model)
        self.outcome = "trained"
        self.progress_bar.setValue(0)
        what = "from scratch" if how == SCRATCH else f"continued from version {base}"
        self.result_label.setText(
            f"<b>Version {self.version}</b>: trained on {n} corrected trees {what} in "
            f"{seconds:.2f} s; it now decodes the sentences not yet corrected.")
        self.status_label.setText("Cross-validating on the corrected trees…")

    def _finish(self, kind: str, *args) -> None:
        self._poll.stop()
        self.worker.wait()
        self.worker = None
        self._set_running(False)
        self.refresh()
        if kind == "error":
            self.outcome = "error"
            step = "training" if self.version is None else "cross-validation"
            self.status_label.setText(f"Failed in {step}: {args[0]}")
        elif self.version is None:  # cancelled in training, or the project was closed
            self.outcome = "cancelled"
            self.progress_bar.setValue(0)
            self.status_label.setText("Cancelled: no new model; the current one stays.")
        elif kind == "cv":
            f1, folds = args
            self.control.set_cv(self.version, f1, folds)
            self.outcome = "measured"
            self.progress_bar.setValue(STEPS)
            self.status_label.setText(f"Done. Cross-validated F1 ({folds}-fold on the "
                                      f"corrected trees): <b>{f1:.2f}</b>")
        elif kind == "no-cv":
            self.status_label.setText(f"Done; not cross-validated: {args[0]}.")
        else:
            self.progress_bar.setValue(0)
            self.status_label.setText("Cross-validation cancelled: the new model is kept "
                                      "without an F1.")

    def reject(self) -> None:
        """Closing while running cancels first, so no worker outlives the dialog."""
        self.stop()
        super().reject()
