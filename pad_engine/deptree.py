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


def nonprojective_arcs(heads: list[int] | tuple[int, ...]) -> list[int]:
    """Dependents m whose arc is non-projective (a word between m and its head is not
    dominated by the head), in time linear in the total arc length. ``heads`` must be a tree."""
    n = len(heads)
    children: list[list[int]] = [[] for _ in range(n + 1)]
    for m, h in enumerate(heads, 1):
        children[h].append(m)
    enter = [0] * (n + 1)
    leave = [0] * (n + 1)
    clock = 0
    stack = [0]
    while stack:  # pre-order numbering; leave[v] is the last number inside v's subtree
        v = stack.pop()
        if v < 0:
            leave[~v] = clock - 1
            continue
        enter[v] = clock
        clock += 1
        stack.append(~v)
        stack.extend(children[v])
    bad = []
    for m, h in enumerate(heads, 1):
        if h == 0:
            continue
        lo, hi = (h, m) if h < m else (m, h)
        first, last = enter[h], leave[h]
        for w in range(lo + 1, hi):
            if not first <= enter[w] <= last:
                bad.append(m)
                break
    return bad


def is_projective(heads: list[int] | tuple[int, ...]) -> bool:
    """True when every subtree of the tree ``heads`` covers a contiguous span (linear time)."""
    n = len(heads)
    lo = list(range(n + 1))
    hi = list(range(n + 1))
    size = [1] * (n + 1)
    depth = [0] * (n + 1)
    for m in range(1, n + 1):
        if depth[m] == 0:
            path = []
            v = m
            while v != 0 and depth[v] == 0:
                path.append(v)
                v = heads[v - 1]
            d = depth[v]
            for v in reversed(path):
                d += 1
                depth[v] = d
    for m in sorted(range(1, n + 1), key=depth.__getitem__, reverse=True):
        h = heads[m - 1]
        if hi[m] - lo[m] + 1 != size[m]:
            return False
        if h:
            lo[h] = min(lo[h], lo[m])
            hi[h] = max(hi[h], hi[m])
            size[h] += size[m]
    return True
