"""Pseudo-projective lifting (Nivre & Nilsson 2005): make a non-projective d-parse projective.

The decoder needs a projective tree, and a few percent of UD sentences are not. A lift
moves a dependent from its head to its head's head; lifting shrinks what every word
dominates, so no lift ever repairs an arc other than the one lifted, and the number of
non-projective arcs is a lower bound on the lifts needed. Nivre & Nilsson lift the shortest
non-projective arc first; that greedy order is not always the fewest lifts (on random
8-word trees about one in eight greedy answers has a lift too many, and 6 of the 641
non-projective EWT/GUM sentences do). So when greedy needs more lifts than the lower bound,
an A* search over lift sequences (heuristic: the number of non-projective arcs left) looks
for fewer, within a budget of work (words examined); when the budget runs out the best solution
found so far stands (``Projectivized.minimal`` says whether it is proven fewest).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from pad_engine.errors import InputError
from pad_engine.trees.deptree import (
    is_projective,
    nonprojective_arcs,
    single_root,
    tree_problem,
)
from pad_engine.trees.structure import is_projective_tree

SEARCH_BUDGET = 1_000_000  # words the exact search may examine per sentence (about 0.7 s)


class Lift(NamedTuple):
    """One lifted arc: ``dependent`` moved from ``original_head`` up to ``new_head`` (1-based
    words, 0 = root), by one or more lifts."""

    dependent: int
    original_head: int
    new_head: int

    def __str__(self) -> str:
        return f"{self.dependent}: {self.original_head} -> {self.new_head}"


def describe_lifts(lifts: list[Lift]) -> str:
    """How a d-parse was changed, for reports: "non-projective, lifted 3: 5 -> 2" and/or
    "several roots, re-rooted 7: 0 -> 4"."""
    moved = [str(x) for x in lifts if x.original_head != 0]
    rerooted = [str(x) for x in lifts if x.original_head == 0]
    parts = ([f"non-projective, lifted {', '.join(moved)}"] if moved else []) + \
        ([f"several roots, re-rooted {', '.join(rerooted)}"] if rerooted else [])
    return "; ".join(parts)


@dataclass
class Projectivized:
    """The outcome of :func:`projectivize_tree`."""

    heads: list[int]
    lifts: list[Lift]  # one per lifted or re-rooted arc, by dependent
    count: int  # single lifts (an arc lifted over two heads counts two; re-rooting not counted)
    minimal: bool  # count is proven the fewest possible


def projectivize(heads: list[int]) -> tuple[list[int], list[Lift]]:
    """A projective d-parse from ``heads`` (1-based, 0 = root) and the arcs lifted, in order
    of dependent. Raises InputError when ``heads`` is not a tree."""
    result = projectivize_tree(heads)
    return result.heads, result.lifts


def projectivize_tree(heads: list[int], budget: int = SEARCH_BUDGET) -> Projectivized:
    """Like :func:`projectivize`, with the proof status; ``budget`` bounds the exact search."""
    # the common case, a projective tree, in one pass, compiled once the decoder is loaded
    # (a tenth of the checks' time below, which was a tenth of ``pad convert``'s)
    if heads and min(heads) >= 0 and is_projective_tree(np.asarray(heads, np.int64) - 1):
        return Projectivized(list(heads), [], 0, True)
    problem = tree_problem(heads, several_roots=True)
    if problem is not None:
        raise InputError(f"not a tree: {problem}")
    given = list(heads)
    heads, main, extra = single_root(given)
    rerooted = [Lift(r, 0, main) for r in extra]
    if is_projective(heads):
        return Projectivized(heads, rerooted, 0, True)
    bound = len(nonprojective_arcs(heads))
    best = _greedy(heads)
    minimal = len(best) == bound
    if not minimal:
        found, minimal = _search(heads, len(best), budget)
        if found is not None:
            best = found
    new = list(heads)
    for m in best:
        new[m - 1] = new[new[m - 1] - 1]
    lifts = sorted([*rerooted, *(Lift(m, given[m - 1], new[m - 1]) for m in set(best))])
    return Projectivized(new, lifts, len(best), minimal)


def _greedy(heads: list[int]) -> list[int]:
    """Nivre & Nilsson's order: lift the shortest non-projective arc (leftmost on ties)."""
    h = list(heads)
    order = []
    while True:
        bad = nonprojective_arcs(h)
        if not bad:
            return order
        m = min(bad, key=lambda m: (abs(h[m - 1] - m), m))
        h[m - 1] = h[h[m - 1] - 1]
        order.append(m)


def _search(heads: list[int], limit: int, budget: int) -> tuple[list[int] | None, bool]:
    """A* for a lift sequence shorter than ``limit``; returns (sequence or None, proven).

    Moves lift a non-projective arc or an arc above one: lifting an arc that is still
    projective can pay off when it lets a non-projective dependent below jump two heads in
    one later lift. (Checked against exhaustive search over all lifts on random trees.)
    """
    start = tuple(heads)
    bound = len(nonprojective_arcs(start))
    queue = [(bound, 0, start, ())]
    seen = {start: 0}
    work = 0
    while queue:
        f, g, state, path = heapq.heappop(queue)
        if f >= limit:
            return None, True
        if seen.get(state, g) < g:
            continue
        if f == g:  # no non-projective arc left
            return list(path), True
        work += len(state)
        if work > budget:
            return None, False
        for m in _moves(state):
            h = state[m - 1]
            nxt = list(state)
            nxt[m - 1] = state[h - 1]
            key = tuple(nxt)
            if seen.get(key, limit) <= g + 1:
                continue
            seen[key] = g + 1
            work += len(key)
            left = len(nonprojective_arcs(key))
            if g + 1 + left < limit:
                heapq.heappush(queue, (g + 1 + left, g + 1, key, (*path, m)))
    return None, True


def _moves(state: tuple[int, ...]) -> list[int]:
    """The words worth lifting: non-projective dependents and the words above their heads
    (not those attached to the root, which cannot go higher)."""
    bad = nonprojective_arcs(state)
    moves = set(bad)
    for m in bad:
        v = state[m - 1]
        while v and state[v - 1] and v not in moves:
            moves.add(v)
            v = state[v - 1]
    return sorted(moves)
