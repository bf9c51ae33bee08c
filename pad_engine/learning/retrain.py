"""The low-resource loop: retrain on corrected trees, cross-validate, learning curves.

Corrected trees are lexicalized trees (``LexNode``) that carry their own heads, so examples made
with :func:`pad_engine.learning.train.example_from_lextree` need no head table: the d-parse used for
training is the one the tree induces. :func:`retrain` adds back-off rules to the grammar read
off the trees, without which a model trained on a few hundred trees cannot derive many
sentences (see :class:`Settings`).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pad_engine.decoding.choice import UD_SHARE, dependency_style
from pad_engine.decoding.engine import Converter, Engine
from pad_engine.decoding.model import Model
from pad_engine.learning.evalb import EvalbReport, bracket_f1, f1_gain_confidence, score
from pad_engine.learning.evaluation import Evaluation, evaluate
from pad_engine.learning.folds import fold_results
from pad_engine.learning.train import WARM_START, Cancelled, Example, Progress, train
from pad_engine.significance import surely_better
from pad_engine.trees.attachment import PENN
from pad_engine.trees.deptree import DepSentence
from pad_engine.trees.lextree import to_line


@dataclass(frozen=True)
class Settings:
    """Training settings of :func:`pad_engine.learning.train.train` used by :func:`retrain`.

    Measured on the PTB sample (first N train sentences, test wsj_0160-0199, pruned decoding):
    the back-off grammar (:func:`pad_engine.learning.train.add_backoff_rules`) is what
    matters with few trees (200 trees: F1 91.7 -> 94.9; 500: 94.7 -> 96.2; 2000: 96.7 ->
    97.2), and it still helps with all 3,396. Epochs (5-20), step size (0.05-0.3), L1
    (0-1e-3), margin (0.5-2), more hash bits and averaging several seeds each moved F1 by 0.2
    or less at 50, 200, 500, 1000 and 2000 trees, within seed noise: one
    setting serves every data size.

    ``projection``: a model from scratch that reads no labels of its input reads the
    rule-based projection of each d-parse instead (its phrase labels per word and over each
    span: :func:`pad_engine.decoding.rulebased.projection_features`), and the projections of
    the file's uncorrected sentences widen its grammar (``train.add_projection_rules``). The
    projection alone scores 97.2 on the PTB sample test split; so trained, PAD learns where
    to trust it (PTB sample, first N train trees, every train d-parse as the pool, exact
    decoding; docs/EXPERIMENTS.md, "A stronger model on little data", has the table).

    ``warm_start``: such a model first makes one pass over the projections of this many of
    the file's sentences (``train.train``): 50 trees 94.15 -> 95.52, 200: 95.93 -> 96.15 with
    the projection before; 250 or 500 gave less (95.03 / 95.96, 95.38 / 96.09), and on the
    last 500 train sentences 2,000 or 4,000 gave 0.06 at 50 trees for 2-4x its 3 s."""

    epochs: int = 10
    eta: float = 0.1
    l1: float = 1e-3
    margin: float = 1.0
    backoff: bool = True
    projection: bool = True
    warm_start: int = WARM_START


SETTINGS = Settings()

# Whether Retrain from scratch should learn from the file's dependency labels (DEPREL), and
# why: the app offers it and says this when it is off by default.
LABELS_RECOMMENDED = False
LABELS_WHY = ("On English genres the bundled UD model never saw, a model trained from scratch "
              "on the corrected trees reading their DEPREL scored below one reading the "
              "rule-based projection instead (F1 65.77 against 72.76 at 25 corrected "
              "sentences, 67.92 against 72.80 at 50), and continuing from the bundled model "
              "beats both (docs/ADAPTATION.md).")


def retrain(examples: list[Example], base: Model | None = None, *,
            progress: Callable[[Progress], None] | None = None,
            cancel: Callable[[], bool] | None = None, seed: int = 0,
            labels: str = "", pool: Sequence[DepSentence] = ()) -> Model:
    """Train on corrected trees, from scratch (base None) with :data:`SETTINGS` (measured
    at 50 to 3,396 trees), or continuing from ``base`` as
    :data:`pad_engine.learning.adaptation.DEFAULT` adapts it (kept near its weights: the
    settings above overwrote what it knew, docs/ADAPTATION.md). From scratch, ``labels``
    names where the examples' d-parse labels come from, if the model should read them (none:
    the projection's, see :class:`Settings`); ``pool`` holds the file's d-parses (their
    projections widen the grammar from scratch, and of a label-free base adapted to read
    the projection). A model from scratch on trees whose d-parses have UD relations
    re-attaches coordinators and punctuation where Penn trees put them, as the bundled UD
    model does (``Model.reattach``). Raises train.Cancelled when cancelled."""
    if not examples:
        raise ValueError("no trees to train on")
    if base is not None:
        from pad_engine.learning.adaptation import DEFAULT, adapt

        model = adapt(examples, base, DEFAULT, pool=pool, seed=seed, progress=progress,
                      cancel=cancel)
        model.training["from"] = "continued from a model"
        model.training["heads"] = "carried by the training trees"
        return model
    s = SETTINGS
    if not labels and s.projection:
        labels = "projection"
    if not s.projection:
        pool = ()
    ud = dependency_style([ex.sentence() for ex in examples]).ud_relations > UD_SHARE
    model = train(examples, epochs=s.epochs, eta=s.eta, l1=s.l1, margin=s.margin,
                  backoff=s.backoff, seed=seed, progress=progress, cancel=cancel,
                  labels=labels, pool=pool, reattach=PENN if ud else "",
                  warm_start=s.warm_start if labels == "projection" else 0, pruned=s.backoff)
    model.training["from"] = "scratch"
    model.training["heads"] = "carried by the training trees"
    return model


@dataclass
class CrossValidation:
    """Result of :func:`cross_validate`."""

    f1: float  # EVALB F1 over all held-out sentences pooled
    folds: list[float]  # per-fold F1
    sentences: int
    seconds: float


@dataclass(frozen=True)
class Plan:
    """How a model is trained on corrected trees: from scratch (``base`` None) or
    continuing from ``base``, reading the d-parse labels named by ``labels``."""

    base: Model | None = None
    labels: str = ""
    pool: Sequence[DepSentence] = ()  # the file's d-parses (see retrain)


# What a model is scored as on each fold: a training plan (re-run on the fold's other
# trees) or a fixed model or converter that never saw these trees (scored as it is).
Rival = Plan | Model | Converter


@dataclass
class Comparison:
    """:func:`compare`: a new training and the model in use on the same held-out folds;
    ``confidence``: the share of resamplings of the held-out sentences in which the new one
    scores higher (:mod:`~pad_engine.significance`)."""

    new: CrossValidation
    current: CrossValidation
    confidence: float

    @property
    def better(self) -> bool:
        """Higher, by more than the held-out trees' noise
        (:func:`~pad_engine.significance.surely_better`)."""
        return surely_better(self.new.f1, self.current.f1, self.confidence)


def cross_validate(examples: list[Example], folds: int = 5, base: Model | None = None, *,
                   progress: Callable[[int, int], None] | None = None,
                   cancel: Callable[[], bool] | None = None, labels: str = "",
                   pool: Sequence[DepSentence] = ()) -> CrossValidation:
    """k-fold CV of ``retrain`` (folds = min(folds, len(examples)); needs >= 2 examples, else
    ValueError). Held-out sentences are decoded with their gold d-parses.

    Fold f holds out every example whose index is f modulo the number of folds, so that each
    fold samples the whole set (corrected sentences tend to come in document order). A
    ``base`` that was trained on these examples would score its own training data."""
    return _pooled(examples, folds, [Plan(base, labels, tuple(pool))], progress, cancel)[0][0]


def compare(examples: list[Example], folds: int, new: Plan, current: Rival, *,
            progress: Callable[[int, int], None] | None = None,
            cancel: Callable[[], bool] | None = None) -> Comparison:
    """Cross-validate a new training plan and score the model in use on the very same
    held-out trees: a retrained version by re-running its own plan on each fold (it was
    trained on some of these trees), the start-up model as it is (it saw none of them)."""
    (a, b), reports = _pooled(examples, folds, [new, current], progress, cancel)
    return Comparison(a, b, f1_gain_confidence(*reports))


def _pooled(examples: list[Example], folds: int, rivals: list[Rival],
            progress: Callable[[int, int], None] | None, cancel: Callable[[], bool] | None
            ) -> tuple[list[CrossValidation], list[EvalbReport]]:
    """Each rival's cross-validation, and the EVALB report of its pooled held-out trees."""
    if len(examples) < 2:
        raise ValueError(f"cross-validation needs at least 2 trees, got {len(examples)}")
    if folds < 2:
        raise ValueError(f"cross-validation needs at least 2 folds, got {folds}")
    start = time.perf_counter()
    results = fold_results(
        examples, folds,
        lambda kept, held: [_score(rival, kept, held, cancel) for rival in rivals],
        progress, cancel)
    pooled = [([], [], []) for _ in rivals]  # gold, test, per-fold F1
    for scored in results:  # pooled in fold order: the figures of one fold at a time
        for result, (gold, test, per_fold) in zip(scored, pooled):
            per_fold.append(result.f1)
            gold += result.gold
            test += result.test
    seconds = time.perf_counter() - start
    reports = [score(gold, test) for gold, test, _ in pooled]
    return ([CrossValidation(bracket_f1(report), per_fold, len(examples), seconds)
             for report, (_, _, per_fold) in zip(reports, pooled)], reports)


def _score(rival: Rival, kept: list[Example], held: list[Example],
           cancel: Callable[[], bool] | None) -> Evaluation:
    if isinstance(rival, Plan):
        model = retrain(kept, rival.base, cancel=cancel, labels=rival.labels, pool=rival.pool)
        return evaluate(model, held, cancel=cancel)
    if isinstance(rival, Model):
        return evaluate(rival, held, cancel=cancel)
    if isinstance(rival, Engine):
        return evaluate(rival.model, held, cancel=cancel)
    return evaluate_converter(rival, held, cancel)


def evaluate_converter(converter: Converter, examples: list[Example],
                       cancel: Callable[[], bool] | None = None) -> Evaluation:
    """:func:`evaluate` for a converter without a model (the rule-based projection)."""
    gold, test, hows = [], [], Counter()
    for ex in examples:
        if cancel is not None and cancel():
            raise Cancelled()
        found = converter.candidates(ex.sentence(), k=1)
        hows[found[0].how] += 1
        gold.append(to_line(ex.lex, ex.forms))
        test.append(to_line(found[0].tree, ex.forms))
    return Evaluation(bracket_f1(score(gold, test)) if gold else 0.0, gold, test, hows)


@dataclass
class CurvePoint:
    """One point of a learning curve, with what it took."""

    size: int
    f1: float
    train_seconds: float
    hows: Counter


def curve_point(train_examples: list[Example], test: list[Example], size: int,
                cancel: Callable[[], bool] | None = None, labels: str = "",
                base: Model | None = None) -> CurvePoint:
    """Train on the first ``size`` examples as :func:`retrain` does, from scratch (reading
    their d-parse labels when ``labels`` names their source; every train example's d-parse
    in the pool, as the annotator's file holds them all) or continuing from ``base``, and
    score on ``test``."""
    if size < 1:
        raise ValueError(f"training size must be at least 1, got {size}")
    if size > len(train_examples):
        raise ValueError(f"training size {size} exceeds the {len(train_examples)} trees given")
    start = time.perf_counter()
    model = retrain(train_examples[:size], base, cancel=cancel, labels=labels,
                    pool=train_examples)
    seconds = time.perf_counter() - start
    result = evaluate(model, test, cancel=cancel)
    return CurvePoint(size, result.f1, seconds, result.hows)


def learning_curve(train: list[Example], test: list[Example], sizes: Sequence[int], *,
                   progress: Callable[[int, int], None] | None = None,
                   cancel: Callable[[], bool] | None = None, labels: str = ""
                   ) -> list[tuple[int, float]]:
    """(size, F1 on test) for each size: trained from scratch on the first ``size`` sentences.
    ``progress`` gets (sizes done, sizes)."""
    out = []
    for done, size in enumerate(sizes, 1):
        point = curve_point(train, test, size, cancel, labels)
        out.append((point.size, point.f1))
        if progress is not None:
            progress(done, len(sizes))
    return out
