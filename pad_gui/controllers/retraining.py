"""Retraining on the corrected sentences (Model > Retrain): ``retrain`` in the engine, run on
a worker thread, then cross-validation on the same corrected trees. The trained model
becomes a new project version, but it decodes the uncorrected sentences only once it scored
better than the version in use on the same held-out folds (``compare``), or when the
annotator picks it (``use_new``, or Model Versions): a retrain never silently makes the
output worse.

Each fold of the cross-validation trains as the new model did, but continues from where the
chain of continued trainings started (the start-up model, or nothing), never from an earlier
retrained version: that one has seen the held-out trees. The version in use is scored on
the same folds: the start-up model as it is, a retrained version by re-running its plan.

Continuing from the bundled model is the default. ``pad learning-curve --compare-continued
--treebank DIR`` measures both ways at 5, 15, 50 and 200 trees (the first train trees, which
the bundled model was trained on; 300 test trees it never saw). PTB sample, PTB model:
continued 97.66 / 97.71 / 97.68 / 97.51 against 76.26 / 82.09 / 90.18 / 95.02 from scratch
(the model itself: 97.67). GUM (held-out documents), UD model: 82.98 / 83.31 / 82.72 / 82.46
against 26.09 / 58.16 / 72.21 / 76.90 (itself: 83.14). Continuing beats training from scratch
at every size but drifts below the model it started from: the comparison catches that.

A model trained from scratch may learn from the file's dependency labels (DEPREL) as well;
that is offered when most words have one. A continued model keeps its base's choice.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from pad_engine.api import (
    Cancelled,
    Converter,
    CorrectedTree,
    DepSentence,
    Model,
    PadError,
    Plan,
    Progress,
    compare,
    plan,
    retrain,
)
from pad_gui.controllers.messages import FoldDone, Measured, NotMeasured, Trained
from pad_gui.controllers.models import ModelVersions, as_model
from pad_gui.controllers.parser_adaptation import ParserAdaptation
from pad_gui.events import Event
from pad_gui.session import Session
from pad_gui.store import BUNDLED, CONTINUED, SCRATCH
from pad_gui.worker import Worker

FOLDS = 5
LABELED = 0.9  # the share of words with a DEPREL above which labels are offered


def retrain_work(trees: list[CorrectedTree], base: Model | None,
                 cv_base: Callable[[], Model | None], labels: bool,
                 rival: Callable[[], Plan | Model | Converter],
                 pool: Sequence[DepSentence] = ()
                 ) -> Callable[[Worker], Measured | NotMeasured]:
    """The work of one run: reports Progress, Trained and FoldDone; returns Measured (beside
    the version in use) or NotMeasured. ``pool``: the file's d-parses (a model from scratch
    widens its grammar with their rule-based projections)."""
    def work(worker: Worker) -> Measured | NotMeasured:
        start = time.perf_counter()
        model = retrain(trees, base, progress=worker.report, cancel=worker.is_cancelled,
                        labels=labels, pool=pool)
        worker.report(Trained(model, model.to_bytes(), time.perf_counter() - start))
        folds = min(FOLDS, len(trees))
        if folds < 2:
            return NotMeasured("cross-validation needs at least 2 corrected trees")
        result = compare(trees, folds, plan(cv_base(), labels, pool), rival(),
                         progress=lambda done, total: worker.report(FoldDone(done, total)),
                         cancel=worker.is_cancelled)
        return Measured(result.new.f1, len(result.new.folds), result.current.f1)

    return work


def labels_offered(session: Session | None) -> bool:
    """Whether a model from scratch may learn the file's labels (most words have one)."""
    return session is not None and session.labeled_share() >= LABELED


class Retraining:
    """One retrain run at a time, and what it shows: ``status`` and ``result`` (text),
    ``fraction`` done, and once it ends ``outcome`` ("trained", "measured", "cancelled" or
    "error"); ``in_use`` tells whether the new version decodes now (it scored better, or
    the annotator chose it). Event: ``changed()`` after each of these changes."""

    def __init__(self, models: ModelVersions, launch: Callable[[Worker], None]):
        self.models = models
        self.workspace = models.workspace
        self.launch = launch  # starts a worker whose events reach this thread
        self.worker: Worker | None = None
        self.version: int | None = None  # the version this run added
        self.model: Model | None = None  # its model
        self.in_use = False
        self.against = BUNDLED  # the version in use when the run started
        self.session: Session | None = None  # whose corrected trees this run trains on
        self.plan: tuple[str, int | None, int] = (SCRATCH, None, 0)  # how, base, trees
        self.outcome = ""
        self.status = "Correct some sentences, then Start."
        self.result = ""
        self.fraction = 0.0
        self.changed = Event()
        self.parser = ParserAdaptation(self.workspace, launch)  # the d-parser, after PAD
        self._parser_next = False
        self.workspace.opened.connect(self.stop)

    @property
    def running(self) -> bool:
        return self.worker is not None

    def _say(self, status: str, fraction: float | None = None, result: str | None = None
             ) -> None:
        self.status = status
        if fraction is not None:
            self.fraction = fraction
        if result is not None:
            self.result = result
        self.changed.emit()

    def start(self, continued: bool, labels: bool, parser: bool = False) -> None:
        """Train on the corrected trees as they are now, from scratch (with the file's
        labels if ``labels``) or continuing from the current model; with ``parser`` the
        d-parser is retrained on the corrected arcs afterwards (``self.parser``)."""
        s = self.workspace.session
        if self.running or self.parser.running or s is None:
            return
        self._parser_next = parser
        trees = s.corrected_trees()
        if not trees:
            self._say("No corrected sentence with a tree yet.")
            return self._then_parser()
        base = self.models.current_model() if continued else None
        if continued and base is None:
            return self._say("The current model is still loading: try again in a moment."
                             if self.models.loading else
                             "No current model to continue from: train from scratch.")
        origin = self.models.origin(self.models.active) if continued else None
        start = self.models.startup_loader()
        cv_base = (lambda: as_model(start())) if origin == BUNDLED else (lambda: None)
        self.plan = (CONTINUED if continued else SCRATCH,
                     self.models.active if continued else None, len(trees))
        self.version, self.model, self.outcome, self.session = None, None, "", s
        self.in_use, self.against = False, self.models.active
        self.worker = Worker(retrain_work(trees, base, cv_base, labels and not continued,
                                          self.models.rival(), list(s.sentences)),
                             "pad-retrain")
        self.worker.yielded.connect(self._report)
        self.worker.returned.connect(self._finish)
        self.worker.errored.connect(self._failed)
        self.worker.finished.connect(self._ended)
        self._say(f"Training on {len(trees)} corrected trees…", 0.0, "")
        self.launch(self.worker)

    def cancel(self) -> None:
        """Stop training (no new version) or the cross-validation (the version stays);
        the d-parser's run too, or before it starts."""
        self._parser_next = False
        self.parser.cancel()
        if self.worker is not None:
            self.worker.cancel()
            self._say("Cancelling…")

    def stop(self) -> None:
        """Cancel and wait for the run (the window or its project is closing)."""
        self._parser_next = False
        if self.worker is not None:
            self.cancel()
            self.worker.stop()
        self.parser.stop()

    def _report(self, event) -> None:
        if isinstance(event, Progress):
            if self.version is None and not self.worker.cancelled:
                p = event
                doing = (f"starting from the projections of {p.total} of the file's "
                         f"sentences, {p.done} done" if p.epoch == 0 else
                         f"epoch {p.epoch} of {p.epochs}, {p.done} of {p.total} sentences "
                         f"({p.errors} still wrong this epoch)")
                self._say(f"Training: {doing}, {p.seconds:.1f} s", p.share)
        elif isinstance(event, Trained):
            self._trained(event.model, event.data, event.seconds)
        elif not self.worker.cancelled:
            self._say(f"Cross-validating: fold {event.done} of {event.total} done…",
                      event.done / event.total)

    def _trained(self, model: Model, data: bytes, seconds: float) -> None:
        if self.workspace.session is not self.session:
            return  # another project was opened meanwhile: the model is not its version
        how, base, n = self.plan
        self.version = self.models.keep(how, base, n, seconds, data)
        self.model = model
        self.outcome = "trained"
        what = "from scratch" if how == SCRATCH else f"continued from version {base}"
        self._say(f"Cross-validating beside version {self.against} (in use) on the corrected "
                  "trees…", 0.0,
                  f"<b>Version {self.version}</b>: trained on {n} corrected trees {what} in "
                  f"{seconds:.2f} s; version {self.against} decodes until it is scored.")

    def use_new(self) -> None:
        """Decode with this run's version although it did not score better."""
        if self.version is not None and self.model is not None and not self.in_use \
                and self.workspace.session is self.session:
            self.in_use = True
            self.models.use(self.version, self.model)
            self._say(f"Version {self.version} decodes the sentences not yet corrected, "
                      "as you chose.")

    def _finish(self, result: Measured | NotMeasured) -> None:
        if self.version is None:
            return  # the project was closed meanwhile
        if isinstance(result, NotMeasured):
            self._say(f"Done; not cross-validated: {result.why}. Version {self.against} stays "
                      f"in use: Use New Version puts version {self.version} in use.")
            return
        f1, folds, current = result.f1, result.folds, result.current
        self.models.set_cv(self.version, f1, folds, self.against, current)
        self.outcome = "measured"
        side = (f"version {self.version} <b>{f1:.2f}</b>, version {self.against} (in use) "
                f"<b>{current:.2f}</b> ({folds}-fold cross-validated F1 on the same "
                "corrected trees)")
        if f1 > current:
            self.in_use = True
            self.models.use(self.version, self.model)
            self._say(f"Done: {side}. Version {self.version} scores better: it now decodes "
                      "the sentences not yet corrected.", 1.0)
        else:
            self._say(f"Done: {side}. Version {self.version} does not score better: version "
                      f"{self.against} stays in use (Use New Version puts it in use "
                      "anyway).", 1.0)

    def _failed(self, error: Exception) -> None:
        if isinstance(error, Cancelled) and self.version is not None:
            self._say(f"Cross-validation cancelled: version {self.version} is kept without "
                      f"an F1; version {self.against} stays in use.", 0.0)
        elif not isinstance(error, Cancelled):
            self.outcome = "error"
            step = "training" if self.version is None else "cross-validation"
            why = str(error) if isinstance(error, PadError) else \
                f"{type(error).__name__}: {error}"
            self._say(f"Failed in {step}: {why}")

    def _ended(self) -> None:
        self.worker = None
        if self.version is None and self.outcome != "error":
            self.outcome = "cancelled"  # in training, or the project was closed
            self._say("Cancelled: no new model; the current one stays.", 0.0)
        else:
            self.changed.emit()
        self._then_parser()

    def _then_parser(self) -> None:
        if self._parser_next and self.workspace.session is not None:
            self._parser_next = False
            self.parser.start()
