"""The chart's tables (:mod:`pad_engine.decoding.decoder`): growing them as a sentence
needs, and keeping only the rows of a cell within its beam.

Tables are 2-D arrays of rows (an item: symbol, first entry, entries; a final item: the same
and its layer) over two entry arrays (``ps`` scores, ``pe`` rule and ranks); they grow by
doubling, so memory follows what a sentence builds.
"""

from __future__ import annotations

import numpy as np

from pad_engine.jit import leaf, njit


@njit(cache=True)
def grow_rows(a, used, need):
    """``a`` (2-D) with room for ``need`` more rows after the first ``used``."""
    if used + need <= a.shape[0]:
        return a
    b = np.empty((max(2 * a.shape[0], used + need), a.shape[1]), a.dtype)
    b[:used] = a[:used]
    return b


@njit(cache=True)
def grow(a, used, need):
    """``a`` (1-D) with room for ``need`` more values after the first ``used``."""
    if used + need <= a.shape[0]:
        return a
    b = np.empty(max(2 * a.shape[0], used + need), a.dtype)
    b[:used] = a[:used]
    return b


@njit(cache=True)
def entry_room(ps, pe, used, need, K, budget):
    """The entry arrays with room for ``need`` more entries after the first ``used``, grown
    by doubling, for K > 1 never past ``budget`` entries. Returns (ps, pe, ok): ok False,
    arrays unchanged, when the need itself passes the budget."""
    if used + need <= ps.shape[0]:
        return ps, pe, True
    size = max(2 * ps.shape[0], used + need)
    if K > 1 and size > budget:
        if used + need > budget:
            return ps, pe, False
        size = budget
    ps2 = np.empty(size)
    pe2 = np.empty((size, pe.shape[1]), np.int32)
    ps2[:used] = ps[:used]
    pe2[:used] = pe[:used]
    return ps2, pe2, True


@njit(cache=True)
def built_fraction(order, t, nl, nr, c, cbase, ncell):
    """The fraction of the chart's cells built before cell ``c`` of head ``order[t]``."""
    done = c - cbase[order[t]]
    for u in range(t):
        done += (nl[order[u]] + 1) * (nr[order[u]] + 1)
    return done / max(ncell, 1)


@njit(cache=True, inline="always")
def below_best(table, first, count, ps, real, complete, above, n):
    """The n-th best distinct score below ``above`` among rows ``first``.. of a table of
    items or final items (in a complete cell, among its phrases and tags: what a parent can
    attach); ``above`` itself for n = 0, -inf when they have fewer: n passes over a cell's
    few items, no sort and no allocation."""
    for _ in range(n):
        below = -np.inf
        for f in range(first, first + count):
            v = ps[table[f, 1]]
            if below < v < above and (real[table[f, 0]] or not complete):
                below = v
        above = below
        if above == -np.inf:
            break
    return above


@njit(cache=True, inline="always")
def best_score(table, first, count, ps, real, complete):
    """The best score among those :func:`below_best` ranks."""
    return below_best(table, first, count, ps, real, complete, np.inf, 1)


@leaf(cache=True)
def keep_within(table, first, count, ps, beam, real, complete, cap, margin):
    """Keep, in order, the rows ``first``.. of a table of items or final items of a cell
    that score within ``beam`` of their best (:func:`best_score`) and, more than ``margin``
    below it, only among its ``cap`` best scores; returns how many. Applied to each unary
    layer as it is built (no cap), it spares the unary rules over items the cell's beam
    would drop (fewer items a cell, the same final items)."""
    best = best_score(table, first, count, ps, real, complete)
    floor = best - beam
    if count > cap:
        floor = max(floor, min(below_best(table, first, count, ps, real, complete, best,
                                          cap - 1), best - margin))
    kept = 0
    for f in range(first, first + count):
        if ps[table[f, 1]] >= floor and (real[table[f, 0]] or not complete):
            for col in range(table.shape[1]):
                table[first + kept, col] = table[f, col]
            kept += 1
    return kept


@leaf(cache=True)
def compact(table, first, count, ps, pe, ue):
    """Move the entries of rows ``first``.. of an item or final-item table that own entries
    from ``ue`` on (in row order, as they were written) down over those of the rows
    :func:`keep_within` dropped; returns how many entries they keep. The chart's entries are
    most of its memory, and a long flat sentence's beam drops more than half of them."""
    w = ue
    for f in range(first, first + count):
        src, n = table[f, 1], table[f, 2]
        if src < ue:
            continue  # a final item that is a layer's item: its entries are that item's
        if src != w:
            for e in range(n):
                ps[w + e] = ps[src + e]
                for col in range(pe.shape[1]):  # rule, ranks (and distinct k-best's key)
                    pe[w + e, col] = pe[src + e, col]
            table[f, 1] = w
        w += n
    return w - ue


@leaf(cache=True)
def find(table, first, count, A):
    """The row of symbol A among rows ``first``..``first + count`` of an item table."""
    for q in range(first, first + count):
        if table[q, 0] == A:
            return q
    return -1

