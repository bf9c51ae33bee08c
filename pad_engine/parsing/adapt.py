"""Adapting a text model's d-parser to corrected sentences: an annotator who
corrects the predicted arcs of a new domain teaches the parser that domain.

The arc model continues the averaged passive-aggressive training of
:func:`pad_engine.parsing.train.train_text_model` from the model's own weights: the updates
are averaged over the adaptation steps only (the base weights are the starting point, not
part of the average), and :attr:`Settings.mix` scales what they add to the base. The arc
filter is raised to every corrected arc's span, so that no corrected arc is ever pruned
again; the label model continues the same way where the corrected sentences have relations.
The taggers stay as they are. :func:`compare` cross-validates an adapted parser against the
one in use on the same held-out corrected sentences, so the app can tell whether it is better.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from pad_engine.errors import Cancelled
from pad_engine.parsing.arcs import learn_filter, sentence_arrays
from pad_engine.parsing.features import half_precision
from pad_engine.parsing.labels import label_epoch
from pad_engine.parsing.model import TextModel
from pad_engine.parsing.perceptron import train_epoch
from pad_engine.parsing.train import COST
from pad_engine.significance import gain_confidence, surely_better
from pad_engine.trees.deptree import DepSentence
from pad_engine.trees.projectivize import projectivize

CHUNK = 25  # sentences per call of the compiled epoch: how often progress and cancel are seen
FOLDS = 5


@dataclass(frozen=True)
class Settings:
    """How adaptation trains. Tuned with ``pad adapt-parser-curve`` on GUM dev documents
    (the bundled EWT model, 25-200 sentences, UAS with predicted tags): the step's clip does
    not matter (steps stay below 0.01); the full averaged update (mix 1) loses 0.1-0.4 UAS
    and amplifying it (3) loses 2-5, a third of it gains 0.1-0.2; 3, 5 or 10 epochs differ
    by less than seed noise."""

    epochs: int = 5
    clip: float = 0.1  # largest passive-aggressive step (the base model trained with 0.01)
    mix: float = 0.3  # share of the averaged adaptation updates added to the base weights


SETTINGS = Settings()


@dataclass
class ParserExample:
    """A corrected sentence as the parser reads it: words, the model's parse-column tags
    (and its coarse column, where it has one), gold heads, and relations if known."""

    forms: list[str]
    tags: list[str]
    heads: list[int]
    coarse: list[str] | None = None
    rels: list[str] | None = None


@dataclass
class ParserComparison:
    """:func:`compare`: UAS (all words, pooled over folds) of the adapted parser and of the
    parser in use on the same held-out corrected sentences."""

    new: float
    current: float
    folds: int
    sentences: int
    seconds: float
    new_folds: list[float] = field(default_factory=list)
    confidence: float = 0.0  # higher in this share of resamplings of the held-out sentences

    @property
    def better(self) -> bool:
        """Higher, by more than the held-out sentences' noise
        (:func:`~pad_engine.significance.surely_better`)."""
        return surely_better(self.new, self.current, self.confidence)


def example_of(model: TextModel, forms: Sequence[str], tags: dict[str, list[str]],
               heads: Sequence[int], rels: Sequence[str] | None = None) -> ParserExample:
    """A corrected sentence with its tags by column; a column the arc model reads that
    ``tags`` lacks is tagged by the model."""
    tags = dict(tags)
    for col in (model.arc_column, model.coarse_column):
        if col is not None and col not in tags:
            tags[col] = model.taggers[col].tag(forms)
    first, second = model.arc_tags(tags)
    return ParserExample(list(forms), list(first), list(heads),
                         list(second) if second else None, list(rels) if rels else None)


def adapt(model: TextModel, examples: Sequence[ParserExample], *,
          settings: Settings = SETTINGS, seed: int = 0,
          progress: Callable[[int, int], None] | None = None,
          cancel: Callable[[], bool] | None = None) -> TextModel:
    """A copy of ``model`` whose arc (and label) weights continued training on the
    examples; deterministic given ``seed``. ``progress`` gets (steps done, steps), a step
    being one sentence of one epoch; raises :class:`Cancelled` when ``cancel()`` says so."""
    examples = [ex for ex in examples if ex.forms]
    if not examples:
        raise ValueError("no corrected sentences to adapt the parser to")
    start = time.perf_counter()
    arrs = [sentence_arrays(ex.forms, ex.tags, ex.coarse) for ex in examples]
    arrays = np.concatenate(arrs, axis=1)
    starts = np.cumsum([0] + [a.shape[1] for a in arrs]).astype(np.int64)
    heads = np.array([h for ex in examples for h in projectivize(ex.heads)[0]], np.int64)
    table = model.arc_filter.astype(np.int64).copy()
    learn_filter(arrays, starts, heads, table)
    rng = np.random.default_rng(seed)
    n, s = len(examples), settings
    total_steps, done = s.epochs * n, 0

    def chunks():
        nonlocal done
        for _ in range(s.epochs):
            order = rng.permutation(n)
            for at in range(0, n, CHUNK):
                if cancel is not None and cancel():
                    raise Cancelled()
                yield order[at:at + CHUNK]
                done += len(order[at:at + CHUNK])
                if progress is not None:
                    progress(done, total_steps)

    base = model.arc_weights
    weights, total, step = base.astype(np.float64), np.zeros(base.shape[0]), 1.0
    for part in chunks():
        _, step = train_epoch(arrays, starts, heads, part, weights, total, model.arc_mask,
                              step, COST, table, s.clip)
    out = copy.copy(model)
    out.arc_weights = half_precision(_mixed(base, weights - total / step, s.mix))
    out.arc_filter = table
    labeled = _label_ids(model, examples)
    if labeled is not None:
        lw = model.label_weights.astype(np.float64)
        lt, lstep = np.zeros(lw.shape[0]), 1.0
        for _ in range(s.epochs):
            if cancel is not None and cancel():
                raise Cancelled()
            _, lstep = label_epoch(arrays, starts, heads, labeled, rng.permutation(n), lw, lt,
                                   model.label_mask, len(model.labels), lstep)
        out.label_weights = _mixed(model.label_weights, lw - lt / lstep, s.mix)
    out.training = {**model.training, "adapted": {
        "sentences": n, "words": int(heads.shape[0]), "epochs": s.epochs, "clip": s.clip,
        "mix": s.mix, "labels": labeled is not None, "seed": seed,
        "seconds": round(time.perf_counter() - start, 2)}}
    return out


def _mixed(base: np.ndarray, adapted: np.ndarray, mix: float) -> np.ndarray:
    return (base + mix * (adapted - base)).astype(np.float32)


def _label_ids(model: TextModel, examples: Sequence[ParserExample]) -> np.ndarray | None:
    """The examples' relations as the label model's ids, when every word has one it knows
    (a relation it never saw cannot be learned by continuing; None: labels stay as they are)."""
    if not model.labels or any(not ex.rels or len(ex.rels) != len(ex.forms) for ex in examples):
        return None
    index = {r: k for k, r in enumerate(model.labels)}
    ids = [index.get(r, -1) for ex in examples for r in ex.rels]
    return None if -1 in ids else np.array(ids, np.int64)


def uas(model: TextModel, examples: Sequence[ParserExample]) -> tuple[int, int]:
    """(words whose predicted head is right, words): the examples parsed with their tags."""
    right, words = sentence_hits(model, examples).sum(axis=0)
    return int(right), int(words)


def sentence_hits(model: TextModel, examples: Sequence[ParserExample]) -> np.ndarray:
    """Per example, (words whose predicted head is right, words)."""
    rows = []
    for ex in examples:
        pred = model.parse(ex.forms, ex.tags, ex.coarse)
        rows.append((sum(p == g for p, g in zip(pred, ex.heads)), len(ex.heads)))
    return np.array(rows, np.float64).reshape(-1, 2)


def compare(base: TextModel, examples: Sequence[ParserExample], current: TextModel | None = None,
            *, adapted_on: set[int] | None = None, folds: int = FOLDS,
            settings: Settings = SETTINGS, seed: int = 0,
            progress: Callable[[int, int], None] | None = None,
            cancel: Callable[[], bool] | None = None) -> ParserComparison:
    """k-fold cross-validated UAS of ``base`` adapted to the other folds, against the parser
    in use on the same held-out sentences (fold f holds out every example whose index is f
    modulo the folds). The parser in use is ``current`` scored as it is, when it saw none of
    the examples (the bundled one), else, ``adapted_on`` naming the examples it was adapted
    to, ``base`` adapted on those of them in the other folds: scored as it is it would be
    scored on its own training sentences."""
    examples = list(examples)
    if len(examples) < 2:
        raise ValueError(f"cross-validation needs at least 2 sentences, got {len(examples)}")
    start = time.perf_counter()
    k = min(folds, len(examples))
    new_hits, cur_hits, per_fold = [], [], []
    for f in range(k):
        held = examples[f::k]
        kept = [i for i in range(len(examples)) if i % k != f]
        model = adapt(base, [examples[i] for i in kept], settings=settings, seed=seed,
                      cancel=cancel)
        hits = sentence_hits(model, held)
        right, n = hits.sum(axis=0)
        if adapted_on is not None:
            earlier = [examples[i] for i in kept if i in adapted_on]
            rival = adapt(base, earlier, settings=settings, seed=seed, cancel=cancel) \
                if earlier else base
        else:
            rival = current if current is not None else base
        new_hits.append(hits)
        cur_hits.append(sentence_hits(rival, held))
        per_fold.append(100 * right / n if n else 0.0)
        if progress is not None:
            progress(f + 1, k)
    new, cur = np.concatenate(new_hits), np.concatenate(cur_hits)
    words = max(new[:, 1].sum(), 1)
    return ParserComparison(100 * new[:, 0].sum() / words, 100 * cur[:, 0].sum() / words, k,
                            len(examples), time.perf_counter() - start, per_fold,
                            gain_confidence(new, cur))


def sentence_tags(sent: DepSentence) -> dict[str, list[str]]:
    """The tag columns of a read CoNLL sentence (UPOS, XPOS; a column of "_" left out),
    as a text model reads them: what ``read_for_annotation`` filled in, for predicted arcs."""
    rows = [line.split("\t") for line in sent.lines if not line.startswith("#")]
    rows = [cols for cols in rows if len(cols) >= 5 and cols[0].isdigit()]
    out: dict[str, list[str]] = {}
    if len(rows) == len(sent.forms):
        for name, col in (("upos", 3), ("xpos", 4)):
            column = [cols[col] for cols in rows]
            if "_" not in column:
                out[name] = column
    return out or {"xpos": list(sent.tags)}


def sentence_example(model: TextModel, sent: DepSentence,
                     heads: Sequence[int]) -> ParserExample:
    """A read sentence with corrected ``heads`` as the parser learns from it (its tags as
    the file has them, the missing columns tagged by the model; relations left out: those of
    predicted arcs are predicted too)."""
    return example_of(model, sent.forms, sentence_tags(sent), heads)


def predict(model: TextModel, sentences: Sequence[DepSentence]) -> list[tuple[list[int],
                                                                              list[str]]]:
    """The d-parse and relations ``model`` gives each sentence, read with its own tags."""
    out = []
    for sent in sentences:
        ex = sentence_example(model, sent, sent.heads)
        heads, rels = model.parse_and_label(ex.forms, ex.tags, ex.coarse)
        out.append((heads, rels))
    return out
