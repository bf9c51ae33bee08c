"""Dependency sentences: tokens, tags and heads, plus what a round trip must keep."""

from __future__ import annotations

from dataclasses import dataclass, field


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


def tree_problem(heads: list[int]) -> str | None:
    """Why ``heads`` is not a dependency tree with exactly one root, or None when it is one.

    ``heads[i]`` is the head of word i+1; 0 is the root. Checks range, root count and cycles.
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
    if len(roots) > 1:
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
            return f"cycle through words {' -> '.join(map(str, cycle + [w]))}"
        for v in path:
            state[v] = 2
    return None


def nonprojective_arcs(heads: list[int]) -> list[int]:
    """Dependents m whose arc (heads[m-1], m) is non-projective (some word between is not
    dominated by the head). Assumes ``heads`` is a tree."""
    n = len(heads)
    bad = []
    for m in range(1, n + 1):
        h = heads[m - 1]
        if h == 0:
            continue
        lo, hi = (h, m) if h < m else (m, h)
        for w in range(lo + 1, hi):
            v = w
            while v != 0 and v != h:
                v = heads[v - 1]
            if v != h:
                bad.append(m)
                break
    return bad


def is_projective(heads: list[int]) -> bool:
    """True when every arc of the tree ``heads`` is projective."""
    return not nonprojective_arcs(heads)
