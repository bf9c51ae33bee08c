"""Where a Penn tree puts a coordinator, for d-parses that put it elsewhere (UD).

UD hangs a coordinator (``cc``) and the comma before a conjunct (``punct``) on the conjunct
that follows them, so every tree that keeps the d-parse brackets them with that conjunct:
``(NP (NP cats) (NP and dogs))``, where Penn trees make them siblings of the conjuncts,
``(NP (NP cats) (CC and) (NP dogs))``. Re-attached to the coordination's head (the
conjunct's own head), they let the decoder build the Penn tree. A model trained this way
(``pad train --deps --reattach coordination``) decodes every d-parse re-attached the same
way: GUM's held-out documents score 86.9 F1 against 84.3, and no converter that keeps the
UD d-parses as they are can score above 94.3 there, against 95.9 with them re-attached
(docs/EXPERIMENTS.md, "Coordinators where Penn trees put them").
"""

from __future__ import annotations

from collections.abc import Sequence

from pad_engine.trees.lextree import LexNode, induced_heads
from pad_engine.trees.projectivize import Lift

COORDINATION = "coordination"  # the re-attachment's name in a model file
SCHEMES = ("", COORDINATION)  # "" re-attaches nothing
_MOVED = ("cc", "punct")  # relations of a conjunct's opening words that move


def _base(rel: str) -> str:
    return rel.split(":", 1)[0]


def reattach(heads: Sequence[int], rels: Sequence[str] | None, scheme: str
             ) -> tuple[list[int], list[Lift]]:
    """``heads`` (1-based, 0 = root, projective) with the opening words of each conjunct
    that are its coordinator or punctuation (a ``cc`` or ``punct`` word with no dependents
    of its own, nearest the conjunct's left edge, before any other of its dependents)
    re-attached to the conjunct's head, and the arcs moved. Moving a word that opens its
    head's span to that head's head keeps a projective tree projective, and a second call
    moves nothing more. Nothing moves without UD relations (``conj``, ``cc``, ``punct``) or
    for ``scheme`` "" ."""
    out = list(heads)
    n = len(out)
    if scheme != COORDINATION or not rels or len(rels) != n:
        return out, []
    lefts: list[list[int]] = [[] for _ in range(n + 1)]  # each word's left dependents
    leaf = [True] * (n + 1)
    for m, h in enumerate(out, 1):
        leaf[h] = False
        if m < h:
            lefts[h].append(m)  # nearest last: words come in order
    moved = []
    for h in range(1, n + 1):
        g = out[h - 1]
        if g == 0 or _base(rels[h - 1]) != "conj":
            continue
        for m in lefts[h]:  # farthest first: the conjunct's left edge
            if not leaf[m] or rels[m - 1] not in _MOVED:
                break
            out[m - 1] = g
            moved.append(Lift(m, h, g))
    moved.sort()
    return out, moved


def edited_heads(tree: LexNode, before: Sequence[int], rels: Sequence[str] | None,
                 scheme: str) -> list[int]:
    """The d-parse an edited tree leaves: the heads the tree induces, except for a word the
    model re-attached (``scheme``) and the tree still attaches there, which keeps its head
    in ``before``, so editing a bracket does not move the coordinators of the file's
    d-parse."""
    induced = induced_heads(tree, len(before))
    moved, _ = reattach(before, rels, scheme)
    return [b if m == i else i for b, m, i in zip(before, moved, induced, strict=True)]
