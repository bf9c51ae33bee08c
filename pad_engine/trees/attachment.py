"""Where Penn trees attach coordinators and punctuation, for d-parses that attach them
elsewhere (UD).

Every tree that keeps a d-parse brackets each word with the phrase of its head. UD hangs a
coordinator (``cc``) and the comma before a conjunct on the conjunct that follows them, so
such a tree has ``(NP (NP cats) (NP and dogs))`` where Penn trees make them siblings of the
conjuncts, ``(NP (NP cats) (CC and) (NP dogs))``; and UD hangs a comma, colon or hyphen at
the edge of a phrase on the phrase's own head, where Penn trees put it beside the phrase.
The ``penn`` re-attachment moves a conjunct's opening coordinators and punctuation to the
coordination's head, and punctuation at either edge of a word's phrase up to that word's
head, until it is inside its head's phrase. Only words without dependents move, each from
an edge of its head's phrase, so a projective d-parse stays projective, and a second call
moves nothing. A model trained on re-attached d-parses (``pad train --deps --reattach
penn``) decodes every d-parse re-attached the same way, so its trees induce those heads:
on GUM's held-out documents 90.0 F1 against 84.3 without (docs/EXPERIMENTS.md, "Coordinators
and punctuation where Penn trees put them").
"""

from __future__ import annotations

from collections.abc import Sequence

from pad_engine.trees.deptree import tree_problem
from pad_engine.trees.lextree import LexNode, induced_heads
from pad_engine.trees.projectivize import Lift

PENN = "penn"  # the re-attachment's name in a model file
SCHEMES = ("", PENN)  # "" re-attaches nothing
_OPENING = ("cc", "punct")  # relations of a conjunct's opening words that move
_EDGE_TAGS = frozenset({",", ":", "HYPH", "NFP"})  # punctuation that leaves a phrase's edge


def reattach(heads: Sequence[int], tags: Sequence[str], rels: Sequence[str] | None,
             scheme: str) -> tuple[list[int], list[Lift]]:
    """``heads`` (1-based, 0 = root, projective) re-attached as ``scheme`` says, and the arcs
    moved (by dependent). Nothing moves without relations (the coordinators are found by
    UD's ``conj``, ``cc`` and ``punct``), nor for ``scheme`` "", nor in what is not a tree
    (heads out of range, a cycle: left for the caller's check to name; a coordinator in a
    cycle moved around it for ever)."""
    out = list(heads)
    n = len(out)
    if scheme != PENN or not rels or len(rels) != n or len(tags) != n \
            or tree_problem(out, several_roots=True) is not None:
        return out, []
    while _coordinators(out, rels) + _edge_punctuation(out, tags):
        pass
    return out, [Lift(m, heads[m - 1], out[m - 1]) for m in range(1, n + 1)
                 if out[m - 1] != heads[m - 1]]


def _coordinators(heads: list[int], rels: Sequence[str]) -> int:
    """Move each conjunct's opening words (``cc`` or ``punct``, without dependents, before
    any other of its left dependents) to the conjunct's head; how many moved."""
    n = len(heads)
    lefts: list[list[int]] = [[] for _ in range(n + 1)]  # each word's left dependents
    leaf = [True] * (n + 1)
    for m, h in enumerate(heads, 1):
        leaf[h] = False
        if m < h:
            lefts[h].append(m)  # in word order: the farthest first
    moved = 0
    for h in range(1, n + 1):
        g = heads[h - 1]
        if g == 0 or rels[h - 1].split(":", 1)[0] != "conj":
            continue
        for m in lefts[h]:
            if not leaf[m] or rels[m - 1] not in _OPENING:
                break
            heads[m - 1] = g
            moved += 1
    return moved


def _edge_punctuation(heads: list[int], tags: Sequence[str]) -> int:
    """Move a comma, colon or hyphen without dependents that is the first or last word of
    its head's phrase up to that head's head, until none is; how many moved. A move takes
    the word out of one phrase only (its head's: the head's head still covers it), so only
    that phrase's span is made again, from its dependents', and only the words at its new
    edges, the word itself and a head left without dependents can move next: linear in the
    sentence but for those spans (a right-branching chain of 5,000 words ending in a comma
    took 17 s when every move made every span again)."""
    n = len(heads)
    lo, hi, kids = _spans(heads)
    moved = 0
    todo = list(range(n, 0, -1))  # every word once, the first on top
    while todo:
        w = todo.pop()
        h = heads[w - 1]
        if not (h and heads[h - 1] and not kids[w] and tags[w - 1] in _EDGE_TAGS
                and w in (lo[h], hi[h])):
            continue
        g = heads[h - 1]
        heads[w - 1] = g
        kids[h].remove(w)
        kids[g].append(w)
        moved += 1
        lo[h] = min(h, min(map(lo.__getitem__, kids[h]), default=h))
        hi[h] = max(h, max(map(hi.__getitem__, kids[h]), default=h))
        todo += [x for x in {h, lo[h], hi[h]} if x == h or heads[x - 1] == h]
        todo.append(w)
    return moved


def _spans(heads: list[int]) -> tuple[list[int], list[int], list[list[int]]]:
    """The first and last word of each word's phrase (its subtree) and its dependents,
    indexed by word (1-based)."""
    n = len(heads)
    kids: list[list[int]] = [[] for _ in range(n + 1)]
    for m, h in enumerate(heads, 1):
        kids[h].append(m)
    lo, hi = list(range(n + 1)), list(range(n + 1))
    order, stack = [], list(kids[0])
    while stack:  # top down from the root(s)
        x = stack.pop()
        order.append(x)
        stack.extend(kids[x])
    for x in reversed(order):
        h = heads[x - 1]
        if h:
            lo[h], hi[h] = min(lo[h], lo[x]), max(hi[h], hi[x])
    return lo, hi, kids


def edited_heads(tree: LexNode, before: Sequence[int], tags: Sequence[str],
                 rels: Sequence[str] | None, scheme: str) -> list[int]:
    """The d-parse an edited tree leaves: the heads the tree induces, except for a word the
    model re-attached (``scheme``) and the tree still attaches there, which keeps its head
    in ``before``, so editing a bracket does not move the coordinators and punctuation of
    the file's d-parse."""
    induced = induced_heads(tree, len(before))
    moved, _ = reattach(before, tags, rels, scheme)
    return [b if m == i else i for b, m, i in zip(before, moved, induced, strict=True)]
