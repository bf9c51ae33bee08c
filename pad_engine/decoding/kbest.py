"""The k-best combine of the chart (:mod:`pad_engine.decoding.decoder`): an item's K best
derivations from its candidate edges.

Each edge is a rule over one or two premises whose derivation lists are sorted, so its
derivations form a grid (head-side rank x modifier rank) sorted along both axes; the K best of
all grids are enumerated lazily with one heap (Huang & Chiang 2005, Algorithm 2): start every
grid at (0, 0); after popping (i, j) push (i, j + 1), and (i + 1, 0) when j = 0, so every cell
of a grid is pushed at most once. Because binarization admits a single derivation per Penn
tree, the k derivations are k distinct Penn trees.
"""

from __future__ import annotations

from numba import njit

# edge buffer columns (shared with the decoder)
E_SYM, E_RULE, E_X, E_NX, E_Y, E_NY = range(6)


@njit(cache=True)
def _push(hs, hx, size, score, e, i, j):
    """Push onto a max-heap of scores ``hs`` with payloads ``hx`` rows; returns the new size."""
    p = size
    hs[p], hx[p, 0], hx[p, 1], hx[p, 2] = score, e, i, j
    while p > 0:
        parent = (p - 1) // 2
        if hs[parent] >= hs[p]:
            break
        hs[p], hs[parent] = hs[parent], hs[p]
        for f in range(3):
            hx[p, f], hx[parent, f] = hx[parent, f], hx[p, f]
        p = parent
    return size + 1


@njit(cache=True)
def _pop(hs, hx, size):
    """Remove the top of the heap (read it before calling); returns the new size."""
    size -= 1
    hs[0] = hs[size]
    for f in range(3):
        hx[0, f] = hx[size, f]
    _sift_down(hs, hx, size, 0)
    return size


@njit(cache=True, inline="always")
def _grid(E, es, ps, e, i, j):
    """Score of derivation (i, j) of edge e: its own score plus its premises' i-th and j-th."""
    s = es[e] + ps[E[e, E_X] + i]
    if E[e, E_Y] >= 0:
        s += ps[E[e, E_Y] + j]
    return s


@njit(cache=True)
def _sift_down(hs, hx, size, p):
    """Restore the max-heap below position ``p``."""
    while True:
        left = 2 * p + 1
        if left >= size:
            return
        child = left
        if left + 1 < size and hs[left + 1] > hs[left]:
            child = left + 1
        if hs[p] >= hs[child]:
            return
        hs[p], hs[child] = hs[child], hs[p]
        for f in range(3):
            hx[p, f], hx[child, f] = hx[child, f], hx[p, f]
        p = child


@njit(cache=True)
def combine(E, es, ne, K, ps, pe, items, ui, ue, hs, hx, slot, within, order, start):
    """Group the ``ne`` edges by symbol and write each symbol's K best derivations (down to
    ``within`` below its best) as an item (from ``ui``) with its entries (from ``ue``: score;
    edge's rule, rank i, rank j). The heap ``hs``/``hx`` needs room for ``ne + 2 K`` entries,
    ``order`` for ``ne``, ``start`` for a symbol more than the item count; ``slot`` (one per
    symbol, -1) is left as found. Returns (items, entries) written.

    Edges are grouped by a counting pass and each group's heap is built bottom-up: no sort
    and no allocation per item, which cost more than the heaps themselves."""
    count = 0
    for e in range(ne):  # symbols in order of first edge; slot: the symbol's group
        A = E[e, E_SYM]
        if slot[A] < 0:
            slot[A] = count
            items[ui + count, 0], items[ui + count, 2] = A, 0
            count += 1
        items[ui + slot[A], 2] += 1
    start[0] = 0
    for g in range(count):
        start[g + 1] = start[g] + items[ui + g, 2]
        items[ui + g, 2] = 0
    for e in range(ne):
        g = slot[E[e, E_SYM]]
        order[start[g] + items[ui + g, 2]] = e
        items[ui + g, 2] += 1
    used = 0
    for g in range(count):
        slot[items[ui + g, 0]] = -1
        size = 0
        for q in range(start[g], start[g + 1]):
            e = order[q]
            hs[size], hx[size, 0], hx[size, 1], hx[size, 2] = _grid(E, es, ps, e, 0, 0), e, 0, 0
            size += 1
        for p in range(size // 2 - 1, -1, -1):
            _sift_down(hs, hx, size, p)
        first = ue + used
        while size > 0 and ue + used - first < K and (ue + used == first or
                                                      hs[0] >= ps[first] - within):
            best, e, i, j = hs[0], hx[0, 0], hx[0, 1], hx[0, 2]
            size = _pop(hs, hx, size)
            p = ue + used
            ps[p], pe[p, 0], pe[p, 1], pe[p, 2] = best, E[e, E_RULE], i, j
            used += 1
            if j + 1 < E[e, E_NY]:
                size = _push(hs, hx, size, _grid(E, es, ps, e, i, j + 1), e, i, j + 1)
            if j == 0 and i + 1 < E[e, E_NX]:
                size = _push(hs, hx, size, _grid(E, es, ps, e, i + 1, 0), e, i + 1, 0)
        items[ui + g, 1], items[ui + g, 2] = first, ue + used - first
    return count, used
