"""Dependency sentences: tokens, tags and heads, plus what a round trip must keep."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from pad_engine.trees.structure import nonprojective_mask


@dataclass
class DepSentence:
    """One dependency-parsed sentence.

    ``heads[i]`` is the head of word i+1 (1-based word indices; 0 is the root), so all lists
    have one entry per syntactic word (multiword-token ranges and empty nodes excluded).
    ``lines`` holds the sentence's original text lines (comments, ranges, empty nodes and
    all, without newlines) so that writing it back unchanged is byte-exact.
    """

    forms: list[str]
    tags: list[str]
    heads: list[int]
    rels: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    path: str | None = None
    line: int | None = None  # 1-based line number of the sentence's first line in its file
    sent_id: str | None = None

    def __len__(self) -> int:
        return len(self.forms)


def tree_problem(heads: list[int], several_roots: bool = False) -> str | None:
    """Why ``heads`` is not a dependency tree, or None when it is one.

    ``heads[i]`` is the head of word i+1; 0 is the root. Checks range, root count and cycles;
    with ``several_roots`` more than one word may have head 0 (older CoNLL treebanks attach
    punctuation and fragments there; :func:`single_root` makes such a tree single-rooted).
    """
    n = len(heads)
    if n == 0:
        return "empty sentence"
    for i, h in enumerate(heads, 1):
        if not 0 <= h <= n:
            return f"head {h} of word {i} is out of range 0..{n}"
        if h == i:
            return f"word {i} is its own head"
    roots = [i for i, h in enumerate(heads, 1) if h == 0]
    if not roots:
        return "no root (no word has head 0)"
    if len(roots) > 1 and not several_roots:
        return f"several roots: words {', '.join(map(str, roots))} have head 0"
    state = [0] * (n + 1)  # 0 unseen, 1 on the current path, 2 reaches the root
    state[0] = 2
    for start in range(1, n + 1):
        path = []
        w = start
        while state[w] == 0:
            state[w] = 1
            path.append(w)
            w = heads[w - 1]
        if state[w] == 1:
            cycle = path[path.index(w):]
            return f"cycle through words {' -> '.join(map(str, [*cycle, w]))}"
        for v in path:
            state[v] = 2
    return None


def bottom_up(heads: list[int] | tuple[int, ...]) -> list[int]:
    """The words (1-based) deepest first, so each comes before its head (``heads`` a tree,
    several roots allowed)."""
    n = len(heads)
    depth = [0] * (n + 1)
    for m in range(1, n + 1):
        path, v = [], m
        while v and depth[v] == 0:
            path.append(v)
            v = heads[v - 1]
        d = depth[v]
        for w in reversed(path):
            d += 1
            depth[w] = d
    return sorted(range(1, n + 1), key=depth.__getitem__, reverse=True)


def single_root(heads: list[int]) -> tuple[list[int], int, list[int]]:
    """The tree with one root: every extra word attached to 0 goes under the main root.

    The main root is the root word that dominates the most words (the leftmost on ties): in
    CoNLL 2007 the extra roots are mostly punctuation and short fragments. Attaching them to
    it keeps the tree projective wherever it was, as the main root then dominates every word.
    Returns (heads, main root, the re-rooted words). ``heads`` must pass
    ``tree_problem(heads, several_roots=True)``.
    """
    roots = [i for i, h in enumerate(heads, 1) if h == 0]
    if len(roots) <= 1:
        return list(heads), roots[0] if roots else 0, []
    size = [1] * (len(heads) + 1)
    for m in bottom_up(heads):
        if heads[m - 1]:
            size[heads[m - 1]] += size[m]
    main = max(roots, key=lambda r: (size[r], -r))
    new = [main if h == 0 and m != main else h for m, h in enumerate(heads, 1)]
    return new, main, [r for r in roots if r != main]


def nonprojective_arcs(heads: list[int] | tuple[int, ...]) -> list[int]:
    """Dependents m whose arc is non-projective (a word between m and its head is not
    dominated by the head), in time linear in the total arc length. ``heads`` must be a tree."""
    return np.flatnonzero(nonprojective_mask(np.asarray(heads, np.int64))).tolist()


def is_projective(heads: list[int] | tuple[int, ...]) -> bool:
    """True when every subtree of the tree ``heads`` covers a contiguous span (linear time)."""
    n = len(heads)
    lo = list(range(n + 1))
    hi = list(range(n + 1))
    size = [1] * (n + 1)
    for m in bottom_up(heads):
        h = heads[m - 1]
        if hi[m] - lo[m] + 1 != size[m]:
            return False
        if h:
            lo[h] = min(lo[h], lo[m])
            hi[h] = max(hi[h], hi[m])
            size[h] += size[m]
    return True


def depths(heads: Sequence[int]) -> list[int]:
    """Each word's depth in the d-parse (1 under the root), in time linear in its length."""
    depth = [-1] * len(heads)
    for m in range(len(heads)):
        path, w = [], m
        while w >= 0 and depth[w] < 0 and len(path) <= len(heads):
            path.append(w)
            w = heads[w] - 1
        d = depth[w] if w >= 0 else 0
        for v in reversed(path):
            d += 1
            depth[v] = d
    return depth
