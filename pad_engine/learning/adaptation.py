"""Adapting a trained model to a file's corrected trees without forgetting what it knew.

Continuing training as a model is first trained loses: on genres the bundled UD model never
saw, 25 corrected sentences took F1 from 75.92 to 74.73. Why: AdaGrad starts afresh, so the
first update of a feature moves it by the whole step size (0.1), about the median magnitude
of the bundled models' weights (0.10 PTB, 0.12 UD), and L1 pulls every touched weight toward
zero: a few hundred updates overwrite what thousands of trees taught. The grammar is not the
cause (the base's rules are kept and the corrected trees' added).

A :class:`Method` says how to continue; :data:`METHODS` are the ones ``pad learning-curve
--adapt`` compares and :data:`DEFAULT` the one Retrain uses (docs/ADAPTATION.md has the
measurements behind the choice).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from pad_engine.decoding.model import Model
from pad_engine.decoding.parser import Parser
from pad_engine.learning.evalb import bracket_f1, f1_gain_confidence, score
from pad_engine.learning.evaluation import Evaluation, evaluate
from pad_engine.learning.folds import fold_results
from pad_engine.learning.train import Example, Progress, example_from_lextree, train
from pad_engine.significance import surely_better
from pad_engine.trees.deptree import DepSentence, tree_problem
from pad_engine.trees.lextree import to_line
from pad_engine.trees.projectivize import projectivize

GUARD_FOLDS = 5  # as the app's Retrain dialog compares (pad_gui.controllers.retraining.FOLDS)


@dataclass(frozen=True)
class Method:
    """How a base model continues on corrected trees: the training settings, whether L1
    pulls toward the base's weights (``anchored``: a prior on the offset w - w_base) rather
    than toward zero, how many of the file's uncorrected d-parses, decoded by the base, are
    trained on beside the trees (``self_train``: the base's own trees keep it where the
    corrections say nothing; ``teacher`` "adapted": the trees of the base first adapted to
    the corrected ones), and whether the number of epochs (none at all, when training
    makes them worse) is chosen on the last fifth of the corrected trees (:data:`DEV_PART`)
    (``validated``: the file's next sentences are what the model must do better on), and
    whether the base is kept unless cross-validation on the corrected trees scores the
    adapted model above it (``guarded``: :func:`guard`), and whether a label-free base,
    adapted, also reads the rule-based projection of each d-parse as a ``pad train
    --projection`` model does (``projection``: :func:`reading_projection`), the grammar of
    any base then widened with the projections of the file's d-parses (``widen``: those
    rules alone, the projection not read), and the share of the trees' decodes made with
    the projection hidden (``projection_dropout``, as ``pad train --projection`` trains),
    and how many of the trees must have a rule the base lacks for it to stay in the adapted
    grammar (``support``; only for a base with the back-off grammar, :func:`_support`)."""

    name: str
    epochs: int = 10
    eta: float = 0.1
    l1: float = 1e-3
    margin: float = 1.0
    anchored: bool = False
    self_train: int = 0
    validated: bool = False
    guarded: bool = False
    folds: int = GUARD_FOLDS  # the guard's cross-validation folds (at most one per tree)
    teacher: str = "base"  # whose trees the self-trained sentences get: "base" or "adapted"
    backoff: bool | None = None  # add the back-off rules (None: as the base was trained)
    projection: bool = False
    widen: bool = False
    projection_dropout: float = 0.0
    support: int = 1


CONTINUED = Method("continued")  # the settings a model is first trained with
METHODS = (
    CONTINUED,
    Method("anchored-0.01", eta=0.01, anchored=True),
    Method("anchored-0.03", eta=0.03, anchored=True),
    Method("self-train", eta=0.03, anchored=True, self_train=100),
    Method("validated", eta=0.03, anchored=True, validated=True),
    Method("guarded", eta=0.03, anchored=True, guarded=True),
    Method("guarded-10", eta=0.03, anchored=True, guarded=True, folds=10),
    Method("self-train-adapted", eta=0.03, anchored=True, self_train=200, teacher="adapted"),
    Method("anchored-0.03-20", eta=0.03, anchored=True, epochs=20),
    Method("anchored-0.1", eta=0.1, anchored=True),
    Method("backoff", eta=0.03, anchored=True, backoff=True),
    Method("margin-2", eta=0.03, anchored=True, margin=2.0),
    Method("projection", eta=0.03, anchored=True, projection=True),
    Method("projection-guarded", eta=0.03, anchored=True, projection=True, guarded=True),
    Method("widen", eta=0.03, anchored=True, widen=True),
    Method("projection-dropout", eta=0.03, anchored=True, projection=True,
           projection_dropout=0.3),
    Method("supported", eta=0.03, anchored=True, projection=True, support=2),
    Method("supported-guarded", eta=0.03, anchored=True, projection=True, support=2,
           guarded=True),
)
DEFAULT = next(m for m in METHODS if m.name == "supported")  # docs/ADAPTATION.md
DEV_PART = 5  # a validated method holds out the last fifth of the trees to choose epochs
DEV_FROM = 10  # ... once there are this many (fewer leave too few to judge by: its epochs)
VALIDATION_SHARE = 0.5  # of the progress reported, the validation's (about half the work)


def by_name(name: str) -> Method:
    """The method of :data:`METHODS` so named (ValueError naming them otherwise)."""
    for method in METHODS:
        if method.name == name:
            return method
    raise ValueError(f"no adaptation method {name!r}: {', '.join(m.name for m in METHODS)}")


def adapt(examples: list[Example], base: Model, method: Method = DEFAULT, *,
          pool: Sequence[DepSentence] = (), seed: int = 0,
          progress: Callable[[Progress], None] | None = None,
          cancel: Callable[[], bool] | None = None) -> Model:
    """``base`` continued on the corrected trees as ``method`` says; ``pool``: the file's
    d-parses (self-training decodes some that are not among the examples). Raises
    train.Cancelled when cancelled."""
    if method.guarded:
        return guard(examples, base, replace(method, guarded=False), folds=method.folds,
                     pool=pool, seed=seed, cancel=cancel)
    teacher = base
    if method.self_train and method.teacher == "adapted":
        teacher = adapt(examples, base, replace(method, self_train=0), seed=seed, cancel=cancel)
    extra = _self_trees(teacher, examples, pool, method.self_train) if method.self_train else []
    # a base model trained without the back-off rules has no weights for them: adding them
    # lets untrained rules compete with what it learned (bundled model + 200 trees with
    # back-off: PTB test F1 97.45 -> 97.07; without: 97.35)
    backoff = bool(base.training.get("backoff")) if method.backoff is None else method.backoff
    trees = [*examples, *extra]
    if method.projection:
        base = reading_projection(base)
    epochs = method.epochs
    final = progress
    if method.validated and len(examples) >= DEV_FROM:
        epochs = _validated_epochs(examples, extra, base, method, epochs, backoff, seed,
                                   _share(progress, 0.0, VALIDATION_SHARE), cancel)
        final = _share(progress, VALIDATION_SHARE, 1.0)
    model = train(trees, init=base, epochs=epochs, eta=method.eta,
                  l1=method.l1, margin=method.margin, backoff=backoff, seed=seed,
                  progress=final, cancel=cancel, headrules=base.headrules,
                  anchored=method.anchored, pool=pool if _widened(method) else (),
                  pruned=backoff, projection_dropout=method.projection_dropout,
                  rule_support=_support(method, backoff))
    model.training["adaptation"] = method.name
    if method.validated:
        model.training["validated_epochs"] = epochs
    if extra:
        model.training["self_trained"] = len(extra)
    return model


def _support(method: Method, backoff: bool) -> int:
    """How many trees must have a new rule for the adapted grammar to keep it. A base with
    the back-off grammar already derives almost any phrase the trees show, so one tree's
    new rule (with the back-off rules it implies) adds competition more than coverage: from
    the bundled PTB model, 15 GUM genres with Collins d-parses, as the app puts it into use,
    93.09 -> 93.28 at 10 trees (model alone 93.20). A base without it lacks many rules the
    file needs, and one tree's rule is coverage: the bundled UD model on GENTLE, 75.79 /
    75.99 / 75.99 / 76.42 at 10 / 25 / 50 / 100 trees with every rule, 75.69 / 75.92 /
    75.82 / 76.38 with those of two trees (docs/ADAPTATION.md, thirteenth round)."""
    return method.support if backoff else 1


def _widened(method: Method) -> bool:
    """Whether the projections of the file's d-parses widen the adapted grammar: for the
    ``projection`` method whatever the base reads (``train.pool_projections`` adds none
    where their labels are foreign to it). For a UD base, as the app puts it into use
    (guarded), it gains on both settings measured: GENTLE's 8 genres, bundled UD model,
    75.59 / 75.67 / 75.79 at 10 / 25 / 50 trees against 75.38 / 75.47 / 75.66 unwidened;
    GUM news + whow, a UD model trained without them, 84.58 / 84.75 / 84.82 at 10 / 50 /
    200 against 84.58 / 84.68 / 84.54 (docs/ADAPTATION.md, fifth round)."""
    return method.widen or method.projection


def reading_projection(base: Model) -> Model:
    """``base`` also reading the rule-based projection of each d-parse (the templates of a
    ``pad train --projection`` model, features.py), if it reads no labels: the projection
    then gives the label templates their labels and adds its span templates. Their weights
    start as whatever base weights their hashes share (no template of the base's own moves),
    and, anchored, are pulled toward those. A base that reads labels (DEPREL) is returned
    as it is: a sentence has one label per word for the decoder, and the base's are its
    own."""
    if base.dep_labels:
        return base
    return replace(base, dep_labels="projection", label_set=[], _packed=None)


def _share(progress: Callable[[Progress], None] | None, low: float, high: float
           ) -> Callable[[Progress], None] | None:
    """``progress`` hearing one training of several as the part from ``low`` to ``high``."""
    if progress is None:
        return None
    return lambda p: progress(replace(p, share=low + (high - low) * p.share))


def _validated_epochs(examples: list[Example], extra: list[Example], base: Model,
                      method: Method, epochs: int, backoff: bool, seed: int,
                      progress: Callable[[Progress], None] | None,
                      cancel: Callable[[], bool] | None) -> int:
    """The epochs (0 to ``epochs``) whose averaged weights score best (fewest on a tie) on
    the last fifth of the corrected trees when trained on the rest: 0 when any training
    makes them worse, as when the corrections show nothing the base does not already do
    and updates only add noise. The last fifth: the corrected sentences nearest the rest
    of the file."""
    cut = len(examples) - len(examples) // DEV_PART
    fit, dev = examples[:cut], examples[cut:]
    scores: list[float] = []
    gold = [to_line(ex.lex, ex.forms) for ex in dev]

    def judge(model: Model, epoch: int, weights) -> None:
        parser = Parser(replace(model, weights=weights))
        scores.append(bracket_f1(score(
            gold, [to_line(parser.parse(ex.forms, ex.tags, ex.heads, rels=ex.rels).tree,
                           ex.forms) for ex in dev])))

    train([*fit, *extra], init=base, epochs=epochs, eta=method.eta, l1=method.l1,
          margin=method.margin, backoff=backoff, seed=seed, progress=progress, cancel=cancel,
          headrules=base.headrules, anchored=method.anchored, epoch_end=judge, pruned=backoff)
    return max(range(len(scores)), key=lambda e: (scores[e], -e))


def _self_trees(base: Model, examples: list[Example], pool: Sequence[DepSentence],
                limit: int) -> list[Example]:
    """Up to ``limit`` of the pool's d-parses (spread over it, the corrected ones left out)
    with the base's own trees as their targets."""
    seen = {tuple(ex.forms) for ex in examples}
    left = [s for s in pool if tuple(s.forms) not in seen and tree_problem(s.heads) is None]
    if len(left) > limit:
        left = [left[i * len(left) // limit] for i in range(limit)]
    parser = Parser(base)
    out = []
    for sent in left:
        heads, _ = projectivize(sent.heads)
        parse = parser.parse(sent.forms, sent.tags, heads, rels=sent.rels)
        if parse.how != "fallback":
            out.append(example_from_lextree(parse.tree, sent.forms, sent.rels))
    return out


def guard(examples: list[Example], base: Model, method: Method = DEFAULT, *,
          folds: int = GUARD_FOLDS, pool: Sequence[DepSentence] = (), seed: int = 0,
          cancel: Callable[[], bool] | None = None) -> Model:
    """``base`` adapted by ``method``, or ``base`` itself (its training notes saying so)
    unless ``folds``-fold cross-validation on the corrected trees scores the adapted model
    above it by more than the held-out trees' noise (:mod:`~pad_engine.significance`):
    what the app's Retrain does, whose dialog puts a new version into use only when it
    scored so on the same held-out folds (``retrain.compare``). Where the corrections show
    nothing the base does not already do, the updates are noise, and this keeps the base's
    trees."""
    k = min(folds, len(examples))
    gained, sure = 1.0, True
    if k >= 2:

        def fold(kept: list[Example], held: list[Example]) -> tuple[Evaluation, Evaluation]:
            return (evaluate(adapt(kept, base, method, pool=pool, seed=seed, cancel=cancel),
                             held, cancel=cancel), evaluate(base, held, cancel=cancel))

        results = fold_results(examples, k, fold, cancel=cancel)
        gold, new, old = [], [], []
        for adapted, kept_base in results:  # pooled in fold order
            gold += adapted.gold
            new += adapted.test
            old += kept_base.test
        new_report, old_report = score(gold, new), score(gold, old)
        f1_new, f1_old = bracket_f1(new_report), bracket_f1(old_report)
        gained, confidence = f1_new - f1_old, f1_gain_confidence(new_report, old_report)
        sure = surely_better(f1_new, f1_old, confidence)
    if not sure:
        return replace(base, training={**base.training, "guard": round(gained, 2),
                                       "guard_confidence": round(confidence, 3),
                                       "adaptation": "guarded: kept the model"})
    model = adapt(examples, base, method, pool=pool, seed=seed, cancel=cancel)
    if k >= 2:
        model.training.update(guard=round(gained, 2), guard_confidence=round(confidence, 3))
    else:
        model.training["guard"] = "not measured: fewer than 2 trees"
    return model

