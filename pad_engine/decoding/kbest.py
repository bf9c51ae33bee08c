"""The combine of the chart (:mod:`pad_engine.decoding.decoder`): an item's derivations
from its candidate edges, the best one (K = 1) or the K best, and a cell's final items from
its unary layers.

Each edge is a rule over one or two premises whose derivation lists are sorted, so its
derivations form a grid (head-side rank x modifier rank) sorted along both axes; the K best of
all grids are enumerated lazily with one heap (Huang & Chiang 2005, Algorithm 2): start every
grid at (0, 0); after popping (i, j) push (i, j + 1), and (i + 1, 0) when j = 0, so every cell
of a grid is pushed at most once. Because binarization admits a single derivation per Penn
tree, the k derivations are k distinct Penn trees.

Distinct k-best (``distinct``) keeps, per item, the best derivation of each class of
derivations that differ only in unary chains of one label (NP over NP over the same words),
the classes :func:`pad_engine.trees.compare.merged_brackets` tells apart: each entry gets a
key (the entry array's fourth column), fresh for a binary derivation or a preterminal, and
for a unary one its child's key, mixed with the rule's symbol unless that symbol is the
child's. Keys so name the chain with repeats removed over a binary derivation, and equal keys
within an item are one class; the heap skips an entry whose key its item already has, so the
K kept are K classes, as they would be best first, and a parent's derivations over distinct
children are distinct. On the PTB sample test split 40 plain derivations held 3.8 distinct
trees on average.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from pad_engine.decoding.tables import best_score
from pad_engine.jit import leaf, njit

# edge buffer columns (shared with the decoder); E_SAME: a unary edge whose symbol is its
# child's (distinct k-best: the child's key passes unchanged)
E_SYM, E_RULE, E_X, E_NX, E_Y, E_NY, E_SAME = range(7)
KEY = 3  # the entry arrays' key column (distinct k-best only)
_MIX = 0x9E3779B97F4A7C15


@njit(cache=True, inline="always")
def mix_key(key, symbol):
    """A 31-bit key from a child's key and a symbol (or from an entry index alone, with
    ``symbol`` -1): a splitmix64 round, so equal chains meet and others almost never do."""
    z = np.uint64(key) * np.uint64(4099) + np.uint64(symbol + 2) + np.uint64(_MIX)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return np.int32(z & np.uint64(0x7FFFFFFF))


class Work(NamedTuple):
    """The combine's work arrays, made per cell (made once per chart and carried through the
    chart's loops, it measured slower)."""

    E: np.ndarray  # edges: rows of the E_ columns
    es: np.ndarray  # each edge's own score
    hs: np.ndarray  # the heap's scores (K > 1: room for the edges and 2 K)
    hx: np.ndarray  # the heap's payloads: edge, rank i, rank j
    order: np.ndarray  # edges grouped by symbol
    start: np.ndarray  # each group's first edge in ``order``
    cslot: np.ndarray  # per symbol, -1: the merge's, as the cell's own slots are in use
    layer_item: np.ndarray  # per (layer, symbol) the cell's item (-1: none)


@leaf(cache=True)
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


@leaf(cache=True)
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


@leaf(cache=True)
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


@leaf(cache=True)
def combine(w, ne, K, ps, pe, items, ui, ue, slot, within, distinct):
    """Group the ``ne`` edges of ``w`` by symbol and write each symbol's K best derivations
    (down to ``within`` below its best; with ``distinct``, the best of each class, keyed in
    ``pe``'s KEY column) as an item (from ``ui``) with its entries (from ``ue``: score;
    edge's rule, rank i, rank j). The heap ``w.hs``/``w.hx`` needs room for ``ne + 2 K``
    entries (more for ``distinct``, whose skipped entries push too: it stops when full),
    ``w.order`` for ``ne``, ``w.start`` for a symbol more than the item count; ``slot`` (one
    per symbol, -1) is left as found. Returns (items, entries) written.

    Edges are grouped by a counting pass and each group's heap is built bottom-up: no sort
    and no allocation per item, which cost more than the heaps themselves."""
    E, es, hs, hx, order, start = w.E, w.es, w.hs, w.hx, w.order, w.start
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
        room = hs.shape[0]
        while size > 0 and ue + used - first < K and (ue + used == first or
                                                      hs[0] >= ps[first] - within):
            best, e, i, j = hs[0], hx[0, 0], hx[0, 1], hx[0, 2]
            size = _pop(hs, hx, size)
            p = ue + used
            keep = True
            if distinct:
                if E[e, E_Y] >= 0:  # a binary derivation: a class of its own
                    key = mix_key(p, -1)
                elif E[e, E_SAME]:
                    key = pe[E[e, E_X] + i, KEY]
                else:
                    key = mix_key(pe[E[e, E_X] + i, KEY], E[e, E_SYM])
                for q in range(first, p):
                    if pe[q, KEY] == key:
                        keep = False
                        break
                pe[p, KEY] = key
            if keep:
                ps[p], pe[p, 0], pe[p, 1], pe[p, 2] = best, E[e, E_RULE], i, j
                used += 1
            if size + 2 > room:  # distinct: skipped entries filled the heap's room
                break
            if j + 1 < E[e, E_NY]:
                size = _push(hs, hx, size, _grid(E, es, ps, e, i, j + 1), e, i, j + 1)
            if j == 0 and i + 1 < E[e, E_NX]:
                size = _push(hs, hx, size, _grid(E, es, ps, e, i + 1, 0), e, i + 1, 0)
        items[ui + g, 1], items[ui + g, 2] = first, ue + used - first
    return count, used


@leaf(cache=True)
def keep_best(E, es, ne, ps, pe, items, ui, ue, slot):
    """The 1-best combine: per symbol, its best edge. Writes the new items from ``ui`` (one
    entry each, from ``ue``) and returns how many."""
    count = 0
    for e in range(ne):
        A = E[e, E_SYM]
        top = es[e] + ps[E[e, E_X]]
        if E[e, E_Y] >= 0:
            top += ps[E[e, E_Y]]
        q = slot[A]
        if q < 0:
            q = slot[A] = count
            items[ui + q, 0], items[ui + q, 1], items[ui + q, 2] = A, ue + q, 1
            count += 1
        elif top <= ps[ue + q]:
            continue
        ps[ue + q] = top
        pe[ue + q, 0], pe[ue + q, 1], pe[ue + q, 2] = E[e, E_RULE], 0, 0
    for q in range(count):
        slot[items[ui + q, 0]] = -1
    return count


@leaf(cache=True)
def finish_cell(c, K, lay, items, finals, uf, ps, pe, ue, slot, w, within, beam, real,
                complete, distinct):
    """The cell's final items from its layers (``lay``: per cell and layer its items):
    a symbol built in one layer keeps that layer's list (so does the best layer for K = 1);
    the K best over several layers are merged into new entries (rule column: the layer),
    except for symbols the cell's beam will drop (:func:`tables.keep_within`, which the
    caller applies next); ``distinct`` as for :func:`combine`. Returns (finals, entries)
    written."""
    E, es, layer_item = w.E, w.es, w.layer_item
    L = layer_item.shape[0]
    nf = 0
    nmerge = 0
    for layer in range(L):
        for q in range(lay[c * L + layer, 0], lay[c * L + layer, 0] + lay[c * L + layer, 1]):
            A = items[q, 0]
            layer_item[layer, A] = q
            f = slot[A]
            if f < 0:
                slot[A] = nf
                finals[uf + nf, 0], finals[uf + nf, 1] = A, items[q, 1]
                finals[uf + nf, 2], finals[uf + nf, 3] = items[q, 2], layer
                nf += 1
            elif K == 1:
                if ps[items[q, 1]] > ps[finals[uf + f, 1]]:
                    finals[uf + f, 1], finals[uf + f, 3] = items[q, 1], layer
            else:
                if finals[uf + f, 3] >= 0:
                    finals[uf + f, 3] = -1  # several layers: merged below
                    nmerge += 1
                if ps[items[q, 1]] > ps[finals[uf + f, 1]]:  # the best layer's, until then
                    finals[uf + f, 1] = items[q, 1]
    used = 0
    if nmerge > 0:
        floor = (best_score(finals, uf, nf, ps, real, complete) - beam if beam < np.inf
                 else -np.inf)
        ne = 0
        for f in range(nf):
            if finals[uf + f, 3] < 0 and ps[finals[uf + f, 1]] >= floor:
                A = finals[uf + f, 0]
                for layer in range(L):
                    q = layer_item[layer, A]
                    if q >= 0:
                        E[ne, E_SYM], E[ne, E_RULE] = A, layer
                        E[ne, E_X], E[ne, E_NX], E[ne, E_Y], E[ne, E_NY] = (
                            items[q, 1], items[q, 2], -1, 1)
                        E[ne, E_SAME] = 1
                        es[ne] = 0.0
                        ne += 1
        merged, used = combine(w, ne, K, ps, pe, finals, uf + nf, ue, w.cslot, within,
                               distinct)
        # the merged lists replace the placeholders, which leave the cell's range
        w = 0
        for f in range(nf):
            if finals[uf + f, 3] >= 0:
                for col in range(4):
                    finals[uf + w, col] = finals[uf + f, col]
                w += 1
        for f in range(merged):
            for col in range(3):
                finals[uf + w + f, col] = finals[uf + nf + f, col]
            finals[uf + w + f, 3] = -1
        nf = w + merged
    for layer in range(L):
        for q in range(lay[c * L + layer, 0], lay[c * L + layer, 0] + lay[c * L + layer, 1]):
            layer_item[layer, items[q, 0]] = -1
            slot[items[q, 0]] = -1
    return nf, used
