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

import numpy as np
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
    p = 0
    while True:
        left = 2 * p + 1
        if left >= size:
            break
        child = left
        if left + 1 < size and hs[left + 1] > hs[left]:
            child = left + 1
        if hs[p] >= hs[child]:
            break
        hs[p], hs[child] = hs[child], hs[p]
        for f in range(3):
            hx[p, f], hx[child, f] = hx[child, f], hx[p, f]
        p = child
    return size


@njit(cache=True, inline="always")
def _grid(E, es, ps, e, i, j):
    """Score of derivation (i, j) of edge e: its own score plus its premises' i-th and j-th."""
    s = es[e] + ps[E[e, E_X] + i]
    if E[e, E_Y] >= 0:
        s += ps[E[e, E_Y] + j]
    return s


@njit(cache=True)
def combine(E, es, ne, K, ps, pe, items, ui, ue, hs, hx):
    """Group the ``ne`` edges by symbol and write each symbol's K best derivations as an item
    (from ``ui``) with its entries (from ``ue``: score; edge's rule, rank i, rank j). The heap
    ``hs``/``hx`` needs room for ``ne + 2 K`` entries. Returns (items, entries) written."""
    order = np.argsort(E[:ne, E_SYM], kind="mergesort")
    count = used = 0
    g0 = 0
    while g0 < ne:
        A = E[order[g0], E_SYM]
        size = 0
        g1 = g0
        while g1 < ne and E[order[g1], E_SYM] == A:
            e = order[g1]
            size = _push(hs, hx, size, _grid(E, es, ps, e, 0, 0), e, 0, 0)
            g1 += 1
        start = ue + used
        while size > 0 and ue + used - start < K:
            top, e, i, j = hs[0], hx[0, 0], hx[0, 1], hx[0, 2]
            size = _pop(hs, hx, size)
            p = ue + used
            ps[p], pe[p, 0], pe[p, 1], pe[p, 2] = top, E[e, E_RULE], i, j
            used += 1
            if j + 1 < E[e, E_NY]:
                size = _push(hs, hx, size, _grid(E, es, ps, e, i, j + 1), e, i, j + 1)
            if j == 0 and i + 1 < E[e, E_NX]:
                size = _push(hs, hx, size, _grid(E, es, ps, e, i + 1, 0), e, i + 1, 0)
        items[ui + count, 0], items[ui + count, 1] = A, start
        items[ui + count, 2] = ue + used - start
        count += 1
        g0 = g1
    return count, used
