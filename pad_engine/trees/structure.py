"""The cell structure of a projective d-parse, compiled: the decoder's items, the training
oracle's costs and the projectivity check all walk the same dependents, spans and cells.

A cell (h, a, b) is word h with its a nearest left and b nearest right dependents absorbed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from pad_engine.jit import leaf, njit


class Structure(NamedTuple):
    """Dependents, spans and cells of a d-parse, as :func:`sentence_structure` compiles
    them (a named tuple, so the kernels take it whole and read its fields once)."""

    ok: bool  # a single-rooted projective tree; else the arrays below mean nothing
    root: int
    nl: np.ndarray  # left dependents per word
    nr: np.ndarray  # right dependents per word
    lptr: np.ndarray  # word h's left dependents, nearest first: ldeps[lptr[h]:lptr[h + 1]]
    rptr: np.ndarray
    ldeps: np.ndarray
    rdeps: np.ndarray
    order: np.ndarray  # words, dependents before their heads
    lo: np.ndarray  # first word of each word's subtree
    hi: np.ndarray  # last word of each word's subtree
    cbase: np.ndarray  # word h's cells (a, b): cbase[h] + a * (nr[h] + 1) + b


@njit(cache=True)
def sentence_structure(heads):
    """Dependents, spans and cells of a projective d-parse.

    ``heads[m]`` is the 0-based head of word m, -1 for the root. The arrays mean nothing
    when ``ok`` is False: the tree is not a projective single-rooted tree.
    """
    n = heads.shape[0]
    nl = np.zeros(n, np.int64)
    nr = np.zeros(n, np.int64)
    root = -1
    ok = True
    for m in range(n):
        h = heads[m]
        if h < 0:
            if root >= 0:
                ok = False
            root = m
        elif h >= n or h == m:
            ok = False
        elif m < h:
            nl[h] += 1
        else:
            nr[h] += 1
    if root < 0:
        ok = False
    lptr = np.zeros(n + 1, np.int64)
    rptr = np.zeros(n + 1, np.int64)
    for h in range(n):
        lptr[h + 1] = lptr[h] + nl[h]
        rptr[h + 1] = rptr[h] + nr[h]
    ldeps = np.zeros(max(lptr[n], 1), np.int64)
    rdeps = np.zeros(max(rptr[n], 1), np.int64)
    fill = np.zeros(n, np.int64)
    for m in range(n - 1, -1, -1):  # left dependents nearest first
        h = heads[m]
        if 0 <= h < n and m < h:
            ldeps[lptr[h] + fill[h]] = m
            fill[h] += 1
    fill[:] = 0
    for m in range(n):  # right dependents nearest first
        h = heads[m]
        if 0 <= h < n and m > h:
            rdeps[rptr[h] + fill[h]] = m
            fill[h] += 1
    # order: dependents before heads (reverse pre-order from the root)
    order = np.zeros(n, np.int64)
    seen = 0
    if ok:
        stack = np.zeros(n, np.int64)
        top = 0
        stack[0] = root
        top = 1
        while top > 0:
            top -= 1
            h = stack[top]
            order[seen] = h
            seen += 1
            for q in range(lptr[h], lptr[h + 1]):
                stack[top] = ldeps[q]
                top += 1
            for q in range(rptr[h], rptr[h + 1]):
                stack[top] = rdeps[q]
                top += 1
        if seen != n:
            ok = False  # a cycle: some words never reached from the root
    order = order[::-1].copy()
    lo = np.arange(n)
    hi = np.arange(n)
    size = np.ones(n, np.int64)
    if ok:
        for t in range(n):
            h = order[t]
            for q in range(lptr[h], lptr[h + 1]):
                lo[h] = min(lo[h], lo[ldeps[q]])
                size[h] += size[ldeps[q]]
            for q in range(rptr[h], rptr[h + 1]):
                hi[h] = max(hi[h], hi[rdeps[q]])
                size[h] += size[rdeps[q]]
            if hi[h] - lo[h] + 1 != size[h]:
                ok = False  # non-projective
    cbase = np.zeros(n + 1, np.int64)
    for h in range(n):
        cbase[h + 1] = cbase[h] + (nl[h] + 1) * (nr[h] + 1)
    return Structure(ok, root, nl, nr, lptr, rptr, ldeps, rdeps, order, lo, hi, cbase)


@njit(cache=True, nogil=True)
def projective_tree(heads):
    """Whether ``heads`` (0-based, -1 root) is a single-rooted projective tree, compiled:
    the decoder's check, compiled with it (:func:`is_projective_tree` for everyone else)."""
    return sentence_structure(heads).ok


def is_projective_tree(heads: Sequence[int] | np.ndarray) -> bool:
    """Whether ``heads`` (0-based, -1 root) is a single-rooted projective tree:
    :func:`projective_tree` once the decoder has it compiled or loaded in this process (3 us
    an EWT dev sentence with its call), plain Python before (9 us), so a first start shows
    the rule-based projection's trees with nothing compiled (the compile took 1.5-4 s on two
    busy cores). tests/test_structure.py holds the two to the same answers."""
    if getattr(projective_tree, "signatures", None):  # none under NUMBA_DISABLE_JIT
        return bool(projective_tree(np.asarray(heads, np.int64)))
    hs = heads.tolist() if isinstance(heads, np.ndarray) else list(heads)
    n = len(hs)
    arcs = []  # (first, -last) of each arc; the root's from before the first word
    root = -1
    for m, h in enumerate(hs):
        if h < 0:
            if root >= 0:
                return False
            root = m
            arcs.append((-1, -m))
        elif h >= n or h == m:
            return False
        else:
            arcs.append((h, -m) if h < m else (m, -h))
    if root < 0:
        return False
    arcs.sort()  # by first word, the longest first: an arc nests in those open before it
    open_ends: list[int] = []
    for first, last in arcs:
        while open_ends and open_ends[-1] <= first:
            open_ends.pop()
        if open_ends and open_ends[-1] < -last:
            return False  # two arcs cross
        open_ends.append(-last)
    reaches = [False] * n  # acyclic: every word reaches the root
    reaches[root] = True
    for m in range(n):
        path = []
        w = m
        while not reaches[w]:
            if len(path) > n:
                return False
            path.append(w)
            w = hs[w]
        for w in path:
            reaches[w] = True
    return True


@njit(cache=True, nogil=True)
def cell_count(heads):
    """How many cells the chart of ``heads`` (0-based, -1 root) has: the sum over words of
    (left dependents + 1) x (right dependents + 1)."""
    n = heads.shape[0]
    nl = np.zeros(n, np.int64)
    nr = np.zeros(n, np.int64)
    for m in range(n):
        h = heads[m]
        if 0 <= h < m:
            nr[h] += 1
        elif m < h < n:
            nl[h] += 1
    total = 0
    for h in range(n):
        total += (nl[h] + 1) * (nr[h] + 1)
    return total


@njit(cache=True, nogil=True)
def cell_spans(heads):
    """Span (i, j) of every cell, for building per-cell costs."""
    st = sentence_structure(heads)
    nl, nr, lptr, rptr, ldeps, rdeps, lo, hi, cbase = (st.nl, st.nr, st.lptr, st.rptr,
                                                       st.ldeps, st.rdeps, st.lo, st.hi,
                                                       st.cbase)
    n = heads.shape[0]
    spans = np.zeros((cbase[n], 2), np.int64)
    for h in range(n):
        for a in range(nl[h] + 1):
            for b in range(nr[h] + 1):
                c = cbase[h] + a * (nr[h] + 1) + b
                spans[c, 0], spans[c, 1] = cell_span(h, a, b, lptr, rptr, ldeps, rdeps, lo, hi)
    return spans


@leaf(cache=True)
def cell_span(h, a, b, lptr, rptr, ldeps, rdeps, lo, hi):
    """The words (first, last) cell (h, a, b) covers; a leaf the decoder calls per cell."""
    i = h if a == 0 else lo[ldeps[lptr[h] + a - 1]]
    j = h if b == 0 else hi[rdeps[rptr[h] + b - 1]]
    return i, j


@njit(cache=True, nogil=True)
def nonprojective_mask(heads):
    """Per word m, whether its arc is non-projective (a word between m and its head is not
    dominated by the head), for a tree ``heads`` (1-based, 0 = root), in time linear in the
    total arc length. Compiled: the lifting search calls it for every state it visits."""
    n = heads.shape[0]
    count = np.zeros(n + 1, np.int64)
    for m in range(n):
        count[heads[m]] += 1
    first = np.zeros(n + 2, np.int64)
    for v in range(n + 1):
        first[v + 1] = first[v] + count[v]
    children = np.zeros(max(n, 1), np.int64)
    fill = first[:-1].copy()
    for m in range(1, n + 1):
        children[fill[heads[m - 1]]] = m
        fill[heads[m - 1]] += 1
    enter = np.zeros(n + 1, np.int64)
    leave = np.zeros(n + 1, np.int64)
    stack = np.zeros(2 * n + 2, np.int64)
    stack[0] = 0
    top = 1
    clock = 0
    while top > 0:  # pre-order numbering; leave[v] is the last number inside v's subtree
        top -= 1
        v = stack[top]
        if v < 0:
            leave[~v] = clock - 1
            continue
        enter[v] = clock
        clock += 1
        stack[top] = ~v
        top += 1
        for q in range(first[v], first[v + 1]):
            stack[top] = children[q]
            top += 1
    bad = np.zeros(n + 1, np.bool_)
    for m in range(1, n + 1):
        h = heads[m - 1]
        if h == 0:
            continue
        lo, hi = (h, m) if h < m else (m, h)
        for w in range(lo + 1, hi):
            if not enter[h] <= enter[w] <= leave[h]:
                bad[m] = True
                break
    return bad
