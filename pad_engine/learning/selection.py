"""Which sentence to correct next: file order, or the one the model is least sure of.

The model's certainty about a sentence is the score margin between its two best c-parses
(same d-parse), per word: a small margin means the model barely preferred its answer, so a
correction there teaches it most; dividing by the length keeps long sentences from looking
uncertain merely for having more decisions. Sentences of up to :data:`SHORT` words come
first: an annotator's cost grows with the length (docs/EXPERIMENTS.md, "The next sentence
worth correcting", has the simulated figures); least-sure-first over all lengths needs more words
than file order (long sentences have the smallest margins). Also measured and dropped: caps
of 15 and 25 words, and the total margin or the margin times the square root of the length
instead of the margin per word (each needed more words for the F1 of 200 file-order
sentences). A sentence with a single consistent c-parse has nothing to teach and sorts last.

:func:`simulate` measures an order by simulated annotation: the gold tree stands in for the
annotator, the model is retrained after each batch and scored on a held-out set, with the
sentences and the words corrected so far (``pad learning-curve --select``: on the PTB sample,
or on Dutch Alpino with ``--alpino``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pad_engine.decoding.model import Model
from pad_engine.decoding.parser import Parser
from pad_engine.learning.retrain import evaluate, retrain
from pad_engine.learning.train import Example

ORDERS = ("sequential", "uncertain")
SHORT = 20  # words: sentences up to this long are offered first (see the module docstring)


def margins(model: Model, examples: Sequence[Example], prune: bool = True) -> list[float]:
    """The per-word score margin between each example's two best c-parses under ``model``
    (``inf`` when its d-parse allows only one c-parse)."""
    parser = Parser(model)
    return [margin_of([p.score for p in parser.kbest(ex.forms, ex.tags, ex.heads, 2,
                                                      prune=prune, rels=ex.rels)], len(ex.forms))
            for ex in examples]


def margin_of(scores: Sequence[float], words: int) -> float:
    """The per-word margin between the two best of a sentence's candidate ``scores`` (best
    first); ``inf`` with fewer than two."""
    if len(scores) < 2 or not all(math.isfinite(s) for s in scores[:2]):
        return math.inf
    return (scores[0] - scores[1]) / max(1, words)


def priority(margin: float, words: int, index: int) -> tuple[bool, float, int]:
    """Sort key of a sentence to correct: short ones first, then the least sure, then file
    order (the app's "least sure first" and :func:`least_sure` both rank by it)."""
    return words > SHORT, margin, index


def least_sure(model: Model, pool: Sequence[Example], count: int) -> list[int]:
    """Indices into ``pool`` of the ``count`` examples to correct next, by :func:`priority`."""
    m = margins(model, pool)
    return sorted(range(len(pool)), key=lambda i: priority(m[i], len(pool[i].forms), i))[:count]


@dataclass
class Step:
    """The state of a simulated annotation after one batch."""

    sentences: int
    words: int
    f1: float


def simulate(pool: Sequence[Example], test: Sequence[Example], sizes: Sequence[int],
             order: str, base: Model | None = None,
             progress: Callable[[Step], None] | None = None, *, labels: str = "",
             delete: Sequence[str] = ()) -> list[Step]:
    """Correct the pool in ``order`` up to each of ``sizes`` sentences, retraining (from
    ``base``, or from scratch reading the d-parse labels ``labels`` names) after each batch
    and scoring on ``test`` (exact decoding; EVALB deleting ``delete`` labels too, such as
    the punctuation tag of a treebank that is not the PTB).

    "uncertain" picks each batch by :func:`least_sure` under the model of the batch before
    (the first batch, with no model yet, takes the least sure under ``base`` or else the
    file's first sentences)."""
    if order not in ORDERS:
        raise ValueError(f"order must be one of {', '.join(ORDERS)}, not {order!r}")
    chosen: list[int] = []
    model = base
    steps = []
    for size in sorted(set(sizes)):
        need = min(size, len(pool)) - len(chosen)
        if need > 0:
            taken = set(chosen)
            left = [i for i in range(len(pool)) if i not in taken]
            if order == "uncertain" and model is not None:
                picked = least_sure(model, [pool[i] for i in left], need)
                chosen += [left[j] for j in picked]
            else:
                chosen += left[:need]
            model = retrain([pool[i] for i in chosen], base, labels=labels, pool=pool)
        step = Step(len(chosen), sum(len(pool[i].forms) for i in chosen),
                    evaluate(model, list(test), delete=delete).f1 if model is not None
                    else 0.0)
        steps.append(step)
        if progress is not None:
            progress(step)
    return steps
