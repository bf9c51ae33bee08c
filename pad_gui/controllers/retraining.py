"""Retraining on the corrected sentences (Model > Retrain): ``retrain`` in the engine, run on
a worker thread, then cross-validation on the same corrected trees, then the sentences not
yet corrected whose trees the new model would change (``controllers.review``). The trained
model becomes a new project version, but it decodes the uncorrected sentences only once it
scored better than the version in use on the same held-out folds (``compare``), by more
than the noise of so few held-out sentences (``pad_engine.significance``), and changes none
of their trees, or when the annotator picks it (``use_new``, after reviewing the
changes, or Model Versions): a retrain never silently makes the output worse, nor silently
changes trees the annotator has looked at.

Each fold of the cross-validation trains as the new model did, but continues from where the
chain of continued trainings started (the start-up model, or nothing), never from an earlier
retrained version: that one has seen the held-out trees. The version in use is scored on
the same folds: the start-up model as it is, a retrained version by re-running its plan.

Continuing from the bundled model is the default: it adapts the model to the corrected trees
without overwriting what it knew (``pad_engine.learning.adaptation``; why, and the figures of
every way tried, in docs/ADAPTATION.md). ``pad learning-curve --adapt`` measures it against
the model alone and Retrain from scratch.

A model trained from scratch may learn from the file's dependency labels (DEPREL) instead
of the rule-based projection of each d-parse; that is offered when most words have one, but
not ticked: measured on GUM, from scratch, reading DEPREL scored 6.4 F1 below reading the
projection at 50 trees and 3.0 below at 200 (:data:`LABELS_WHY`). A continued model keeps
its base's choice.

Function tags and indices (PP-TMP, WHNP-1) in corrected trees stay in the trees and the
exports, and a retrained model learns them as labels of their own (PP-TMP enters its
grammar and its trees), but the cross-validated F1 scores bare labels, as EVALB does: both
versions may score 100.00 while one gets every PP-TMP wrong. The dialog says so
(:func:`tagged_labels`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from pad_engine.api import (
    CONFIDENCE,
    Cancelled,
    Converter,
    CorrectedTree,
    DepSentence,
    Engine,
    LexNode,
    Model,
    PadError,
    Plan,
    Progress,
    compare,
    edits,
    plan,
    retrain,
    strip_label,
)
from pad_gui.controllers.messages import (
    Changes,
    Compared,
    FoldDone,
    Measured,
    NotMeasured,
    Trained,
)
from pad_gui.controllers.models import ModelVersions, as_model
from pad_gui.controllers.parser_adaptation import ParserAdaptation
from pad_gui.controllers.review import Review, compare_uncorrected, pending
from pad_gui.events import Event
from pad_gui.session import Session
from pad_gui.store import BUNDLED, CONTINUED, SCRATCH
from pad_gui.worker import Worker

FOLDS = 5
LABELED = 0.9  # the share of words with a DEPREL above which labels are offered
LABELS_WHY = ("Off by default: trained from scratch on GUM, reading DEPREL scored 6.4 F1 "
              "below reading the rule-based projection of each d-parse at 50 trees, and 3.0 "
              "below at 200.")
Compare = Callable[[Worker, Model], Changes]  # what a new model changes, run on the worker


def retrain_work(trees: list[CorrectedTree], base: Model | None,
                 cv_base: Callable[[], Model | None], labels: bool,
                 rival: Callable[[], Plan | Model | Converter], changes: Compare,
                 pool: Sequence[DepSentence] = ()) -> Callable[[Worker], Changes]:
    """The work of one run: reports Progress, Trained, FoldDone, then Measured (beside the
    version in use) or NotMeasured, then Compared; returns the ``changes`` the new model
    makes. ``pool``: the file's d-parses (a model from scratch, or a label-free one
    continued, widens its grammar with their rule-based projections)."""
    def work(worker: Worker) -> Changes:
        start = time.perf_counter()
        model = retrain(trees, base, progress=worker.report, cancel=worker.is_cancelled,
                        labels=labels, pool=pool)
        worker.report(Trained(model, model.to_bytes(), time.perf_counter() - start))
        folds = min(FOLDS, len(trees))
        if folds < 2:
            worker.report(NotMeasured("cross-validation needs at least 2 corrected trees"))
        else:
            result = compare(trees, folds, plan(cv_base(), labels, pool), rival(),
                             progress=lambda done, total: worker.report(FoldDone(done, total)),
                             cancel=worker.is_cancelled)
            worker.report(Measured(result.new.f1, len(result.new.folds), result.current.f1,
                                   result.confidence, result.better))
        return changes(worker, model)

    return work


def changes_of(session: Session, current: Converter | None) -> Compare:
    """The comparison of a run on ``session``: its sentences not yet corrected as they are
    now, the new model against ``current`` (what decodes now)."""
    todo = pending(session)
    return lambda worker, model: compare_uncorrected(todo, Engine(model), current,
                                                     worker.report, worker.is_cancelled)


def tagged_labels(trees: Sequence[LexNode]) -> tuple[int, list[str]]:
    """How many of the trees carry function tags or indices (PP-TMP, WHNP-1), and up to
    three such labels: the cross-validated F1 does not see them."""
    found: list[str] = []
    count = 0
    for tree in trees:
        labels = [n.label for n in edits.phrase_nodes(tree) if strip_label(n.label) != n.label]
        count += bool(labels)
        found += [x for x in labels if x not in found][:3 - len(found)]
    return count, found


def labels_offered(session: Session | None) -> bool:
    """Whether a model from scratch may learn the file's labels (most words have one)."""
    return session is not None and session.labeled_share() >= LABELED


class Retraining:
    """One retrain run at a time, and what it shows: ``status`` and ``result`` (text),
    ``fraction`` done (of the phase: training, cross-validating, ``comparing``), and once
    it ends ``outcome`` ("trained", "measured", "cancelled" or "error") and ``review``:
    the uncorrected sentences the new version changes; ``in_use`` tells whether the new
    version decodes now (it scored better and changes no tree, or the annotator chose
    it), ``kept`` whether the annotator chose to keep the current one. Event:
    ``changed()`` after each of these changes."""

    def __init__(self, models: ModelVersions, launch: Callable[[Worker], None]):
        self.models = models
        self.workspace = models.workspace
        self.launch = launch  # starts a worker whose events reach this thread
        self.worker: Worker | None = None
        self.version: int | None = None  # the version this run added
        self.model: Model | None = None  # its model
        self.measured: Measured | NotMeasured | None = None
        self.comparing = False
        self.review: Review | None = None
        self.in_use = False
        self.kept = False
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

    @property
    def current(self) -> bool:
        """Whether this run's version belongs to the open project."""
        return self.version is not None and self.workspace.session is self.session

    @property
    def undecided(self) -> bool:
        """The new version waits for the annotator: neither in use nor declined."""
        return self.current and not self.running and not self.in_use and not self.kept

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
        self.measured, self.review, self.comparing = None, None, False
        self.in_use, self.kept, self.against = False, False, self.models.active
        self.worker = Worker(retrain_work(trees, base, cv_base, labels and not continued,
                                          self.models.rival(),
                                          changes_of(s, self.models.in_use.converter),
                                          list(s.sentences)),
                             "pad-retrain")
        self.worker.yielded.connect(self._report)
        self.worker.returned.connect(self._finish)
        self.worker.errored.connect(self._failed)
        self.worker.finished.connect(self._ended)
        self._say(f"Training on {len(trees)} corrected trees…", 0.0, "")
        self.launch(self.worker)

    def cancel(self) -> None:
        """Stop training (no new version), the cross-validation or the comparison (the
        version stays, not in use); the d-parser's run too, or before it starts."""
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
        cancelled = self.worker.cancelled
        match event:
            case Progress() as p if self.version is None and not cancelled:
                doing = (f"starting from the projections of {p.total} of the file's "
                         f"sentences, {p.done} done" if p.epoch == 0 else
                         f"epoch {p.epoch} of {p.epochs}, {p.done} of {p.total} sentences "
                         f"({p.errors} still wrong this epoch)")
                self._say(f"Training: {doing}, {p.seconds:.1f} s", p.share)
            case Trained(model, data, seconds):
                self._trained(model, data, seconds)
            case FoldDone(done, total) if not cancelled:
                self._say(f"Cross-validating: fold {done} of {total} done…", done / total)
            case Measured() | NotMeasured():
                self._measured(event)
            case Compared(done, total) if not cancelled and self.version is not None:
                self._say(f"Comparing on the uncorrected sentences: {done:,} of {total:,}",
                          done / total if total else 1.0)

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

    def _measured(self, result: Measured | NotMeasured) -> None:
        if self.version is None:
            return  # the project was closed meanwhile
        self.measured, self.comparing, self.fraction = result, True, 0.0  # before set_cv,
        # whose event redraws the progress bar
        if isinstance(result, Measured):
            self.models.set_cv(self.version, result.f1, result.folds, self.against,
                               result.current)
            self.outcome = "measured"
        self._say("Comparing on the uncorrected sentences…", 0.0)

    def use_new(self) -> None:
        """Decode with this run's version (it scored worse, or changes trees the
        annotator reviewed)."""
        if self.current and self.model is not None and not self.in_use:
            self.in_use, self.kept = True, False
            self.models.use(self.version, self.model)
            self._say(f"Version {self.version} decodes the sentences not yet corrected, "
                      "as you chose.")

    def keep_current(self) -> None:
        """Leave the version in use as it is; the new one stays in Model Versions."""
        if self.undecided:
            self.kept = True
            self._say(f"Version {self.against} stays in use, as you chose; version "
                      f"{self.version} is kept in Model Versions.")

    def _finish(self, changes: Changes) -> None:
        if self.version is None or self.workspace.session is not self.session:
            return  # the project was closed meanwhile
        self.comparing = False
        self.review = Review(self.session, changes)
        n, of = len(self.review), f"{self.review.compared:,}"
        changes_said = (f"changes {n} of {of} uncorrected sentences" if n else
                        f"changes none of the {of} uncorrected sentences' trees")
        result = self.measured
        if isinstance(result, NotMeasured):
            self._say(f"Done; not cross-validated: {result.why}. Version {self.version} "
                      f"{changes_said}. Version {self.against} stays in use: Use New Version "
                      f"puts version {self.version} in use.", 1.0)
            return
        f1, folds, current = result.f1, result.folds, result.current
        scores = (f"Version {self.version} scores <b>{f1:.2f}</b> against <b>{current:.2f}"
                  f"</b> (version {self.against}, in use; {folds}-fold cross-validated F1 "
                  "on the same corrected trees)")
        if result.better and not n:
            self.in_use = True
            self.models.use(self.version, self.model)
            self._say(f"Done: {scores} and {changes_said}: it now decodes them.", 1.0)
        elif result.better:
            self._say(f"{scores} and {changes_said}: Review… shows them. Version "
                      f"{self.against} stays in use until you choose Use New Version or "
                      "Keep Current.", 1.0)
        elif f1 > current:
            self._say(f"Done: {scores}, but the gain is within the noise of so few held-out "
                      f"sentences (higher in {result.confidence:.0%} of their resamplings; a "
                      f"version goes into use by itself at {CONFIDENCE:.0%}): version "
                      f"{self.against} stays in use (Use New Version puts version "
                      f"{self.version} in use anyway); it {changes_said}.", 1.0)
        else:
            self._say(f"Done: {scores}. Version {self.version} does not score better: "
                      f"version {self.against} stays in use (Use New Version puts it in use "
                      f"anyway); it {changes_said}.", 1.0)

    def _failed(self, error: Exception) -> None:
        step = "training" if self.version is None else \
            "comparison" if self.comparing else "cross-validation"
        if isinstance(error, Cancelled) and self.version is not None:
            self.comparing = False
            self._say(f"{step.capitalize()} cancelled: version {self.version} is kept"
                      f"{' without an F1' if self.measured is None else ''}; version "
                      f"{self.against} stays in use.", 0.0)
        elif not isinstance(error, Cancelled):
            self.outcome = "error"
            self.comparing = False
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
