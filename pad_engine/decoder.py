"""The constrained lexicalized CKY decoder of paper §3 (Figure 3, right), in Numba.

Because the d-parse is fixed, an item headed by word h is determined by how many of h's left
dependents (nearest first) and right dependents it has absorbed: a *cell* (h, a, b). Each cell
holds a score per symbol in ``U + 1`` layers: layer 0 comes from the attachment of the next
left or right dependent (or the preterminal when a = b = 0); layer l applies one unary rule
to layer l - 1, which bounds unary chains without cycles. Heads are processed dependents
first, cells of a head in (a, b) order, so every premise is final when it is used.

The same routine does loss-augmented decoding for training (``loss_weight`` > 0 adds the
Hamming cost of each production against the gold derivation).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pad_engine.features import (
    N_UNARY,
    binary_context,
    binary_context_array,
    binary_indices,
    binary_score,
    score_cache,
    unary_context,
    unary_indices,
    unary_score,
)

NEG = -1e30
GLUE_PENALTY = 100.0
NO_GLUE = 1 << 40
# node kinds in a decoded derivation (pre-order arrays)
LEAF, UNARY, HEAD_LEFT, HEAD_RIGHT = 0, 1, 2, 3


@njit(cache=True)
def sentence_structure(heads):
    """Dependents, spans and cells of a projective d-parse.

    ``heads[m]`` is the 0-based head of word m, -1 for the root. Returns None-like empty
    arrays with ok = False when the tree is not a projective single-rooted tree.
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
    return ok, root, nl, nr, lptr, rptr, ldeps, rdeps, order, lo, hi, cbase


@njit(cache=True, nogil=True)
def is_projective_tree(heads):
    """Whether ``heads`` (0-based, -1 root) is a single-rooted projective tree."""
    return sentence_structure(heads)[0]


@njit(cache=True, nogil=True)
def cell_spans(heads):
    """Span (i, j) of every cell, for building per-cell costs."""
    ok, root, nl, nr, lptr, rptr, ldeps, rdeps, order, lo, hi, cbase = sentence_structure(heads)
    n = heads.shape[0]
    spans = np.zeros((cbase[n], 2), np.int64)
    for h in range(n):
        for a in range(nl[h] + 1):
            for b in range(nr[h] + 1):
                c = cbase[h] + a * (nr[h] + 1) + b
                spans[c, 0], spans[c, 1] = _cell_span(h, a, b, lptr, rptr, ldeps, rdeps, lo, hi)
    return spans


@njit(cache=True)
def _cell_span(h, a, b, lptr, rptr, ldeps, rdeps, lo, hi):
    i = h if a == 0 else lo[ldeps[lptr[h] + a - 1]]
    j = h if b == 0 else hi[rdeps[rptr[h] + b - 1]]
    return i, j


@njit(cache=True)
def _side_mode(th, tl, tr, nrows, side_keys, side_p, side_n, alpha):
    """0: both sides allowed next; 1: only left; 2: only right (pruning 2)."""
    key = (th * nrows + tl) * nrows + tr
    pos = np.searchsorted(side_keys, key)
    if pos >= side_keys.shape[0] or side_keys[pos] != key or side_n[pos] < 2:
        return 0
    p = side_p[pos]
    if p > alpha:
        return 1
    if 1.0 - p > alpha:
        return 2
    return 0


@njit(cache=True)
def _transition(c, h, a, b, side, nl, nr, lptr, rptr, ldeps, rdeps, lo, hi, cbase,
                rows, prune_side, nrows, side_keys, side_p, side_n, alpha):
    """The attachment that builds cell c = (h, a, b): side 0 attaches h's a-th left
    dependent to cell (h, a-1, b), side 1 its b-th right dependent to (h, a, b-1).
    Returns (source cell, dependent m, split k, rule direction, m's complete cell); source
    is -1 when there is no such attachment or pruning 2 rules that side out."""
    ra = nr[h] + 1
    if side == 0:
        if a == 0:
            return -1, 0, 0, 0, 0
        src, m, sa, sb = c - ra, ldeps[lptr[h] + a - 1], a - 1, b
        k, direction = hi[m], 1
    else:
        if b == 0:
            return -1, 0, 0, 0, 0
        src, m, sa, sb = c - 1, rdeps[rptr[h] + b - 1], a, b - 1
        k, direction = lo[m] - 1, 0
    if prune_side and sa < nl[h] and sb < nr[h]:
        mode = _side_mode(rows[h], rows[ldeps[lptr[h] + sa]], rows[rdeps[rptr[h] + sb]],
                          nrows, side_keys, side_p, side_n, alpha)
        if (mode == 1 and side == 1) or (mode == 2 and side == 0):
            return -1, 0, 0, 0, 0
    return src, m, k, direction, cbase[m] + nl[m] * (nr[m] + 1) + nr[m]


@njit(cache=True, nogil=True)
def decode(
    heads, rows, words, tags, labels,
    weights, mask, binary, unary, ptr, ids, tag_sym, nsym, nrows, U, top_sym,
    side_keys, side_p, side_n, prune_rules, prune_side, alpha,
    gold_bin, gold_un, cell_cost, loss_weight, glue_binary, glue_unary,
):
    """Best derivation consistent with ``heads``.

    Returns (score, kinds, syms, rules, cells, words_out) as pre-order node arrays; score is
    NEG and the arrays empty when no derivation exists under the grammar (the caller backs
    off). ``rows`` are pruning rows of the tags, ``tags``/``words`` the padded feature values.
    """
    ok, root, nl, nr, lptr, rptr, ldeps, rdeps, order, lo, hi, cbase = sentence_structure(heads)
    empty = np.zeros(0, np.int64)
    if not ok:
        return NEG, empty, empty, empty, empty, empty
    n = heads.shape[0]
    ncell = cbase[n]
    L = U + 1
    nb = binary.shape[0]
    # only score and best need initializing: the other arrays are read where those are set
    score = np.full((ncell, L, nsym), NEG)
    bp = np.empty((ncell, L, nsym), np.int64)
    fin = np.empty((ncell, L, nsym), np.int64)
    nfin = np.zeros((ncell, L), np.int64)
    best = np.full((ncell, nsym), NEG)
    best_layer = np.empty((ncell, nsym), np.int64)
    bfin = np.empty((ncell, nsym), np.int64)
    nbfin = np.zeros(ncell, np.int64)
    ctx = binary_context_array(labels)
    uctx = np.zeros(N_UNARY, np.int64)
    cache, stamp = score_cache(nsym)
    all_row = nrows - 1
    use_cells = cell_cost.shape[0] == ncell and cell_cost.shape[1] == nsym
    for t in range(n):
        h = order[t]
        row = rows[h] if prune_rules else all_row
        ra = nr[h] + 1
        for a in range(nl[h] + 1):
            for b in range(nr[h] + 1):
                c = cbase[h] + a * ra + b
                i, j = _cell_span(h, a, b, lptr, rptr, ldeps, rdeps, lo, hi)
                if a == 0 and b == 0:
                    s0 = tag_sym[rows[h]]
                    score[c, 0, s0] = 0.0
                    bp[c, 0, s0] = -1
                    fin[c, 0, 0] = s0
                    nfin[c, 0] = 1
                for side in range(2):  # 0: came by attaching a left dep, 1: a right dep
                    src, m, k, direction, mcell = _transition(
                        c, h, a, b, side, nl, nr, lptr, rptr, ldeps, rdeps, lo, hi, cbase,
                        rows, prune_side, nrows, side_keys, side_p, side_n, alpha,
                    )
                    if src < 0:
                        continue
                    binary_context(i, k, j, h, m, words, tags, labels, ctx)
                    gold = gold_bin[c * 2 + side] if loss_weight > 0 and not use_cells else -2
                    for q in range(nbfin[src]):
                        hs = bfin[src, q]
                        key = (row * 3 + direction) * nsym + hs
                        base_score = best[src, hs]
                        for e in range(ptr[key], ptr[key + 1]):
                            r = ids[e]
                            ms = binary[r, 2]
                            sm = best[mcell, ms]
                            if sm <= NEG:
                                continue
                            A = binary[r, 0]
                            s = base_score + sm + binary_score(
                                ctx, r, A, hs, ms, nsym, weights, mask, cache, stamp, 2 * c + side
                            )
                            if r >= glue_binary:
                                s -= GLUE_PENALTY
                            if use_cells:
                                s += cell_cost[c, A]
                            elif loss_weight > 0:
                                s += loss_weight * (-1.0 if r == gold else 1.0)
                            if s > score[c, 0, A]:
                                if score[c, 0, A] <= NEG:
                                    fin[c, 0, nfin[c, 0]] = A
                                    nfin[c, 0] += 1
                                score[c, 0, A] = s
                                bp[c, 0, A] = r
                # unary layers
                if nfin[c, 0] > 0:
                    unary_context(i, j, h, words, tags, uctx)
                for layer in range(1, L):
                    gold = gold_un[c * L + layer] if loss_weight > 0 and not use_cells else -2
                    for q in range(nfin[c, layer - 1]):
                        bsym = fin[c, layer - 1, q]
                        key = (row * 3 + 2) * nsym + bsym
                        below = score[c, layer - 1, bsym]
                        for e in range(ptr[key], ptr[key + 1]):
                            r = ids[e]
                            A = unary[r - nb, 0]
                            if A == top_sym and not (a == nl[h] and b == nr[h] and h == root):
                                continue
                            s = below + unary_score(uctx, r - nb, weights, mask)
                            if r - nb >= glue_unary:
                                s -= GLUE_PENALTY
                            if use_cells:  # X over X cannot match a gold bracket twice
                                s += cell_cost[c, A] if A != unary[r - nb, 1] else -1.0
                            elif loss_weight > 0:
                                s += loss_weight * (-1.0 if r == gold else 1.0)
                            if s > score[c, layer, A]:
                                if score[c, layer, A] <= NEG:
                                    fin[c, layer, nfin[c, layer]] = A
                                    nfin[c, layer] += 1
                                score[c, layer, A] = s
                                bp[c, layer, A] = r
                for layer in range(L):
                    for q in range(nfin[c, layer]):
                        A = fin[c, layer, q]
                        if score[c, layer, A] > best[c, A]:
                            if best[c, A] <= NEG:
                                bfin[c, nbfin[c]] = A
                                nbfin[c] += 1
                            best[c, A] = score[c, layer, A]
                            best_layer[c, A] = layer
    rc = cbase[root] + nl[root] * (nr[root] + 1) + nr[root]
    total = best[rc, top_sym]
    if total <= NEG:
        return NEG, empty, empty, empty, empty, empty
    # backtrace, pre-order
    cap = 2 * n + ncell * L + 4
    kinds = np.zeros(cap, np.int64)
    syms = np.zeros(cap, np.int64)
    rules = np.full(cap, -1, np.int64)
    cells = np.zeros(cap, np.int64)
    wout = np.full(cap, -1, np.int64)
    st_c = np.zeros(cap, np.int64)
    st_l = np.zeros(cap, np.int64)
    st_s = np.zeros(cap, np.int64)
    st_c[0], st_l[0], st_s[0] = rc, best_layer[rc, top_sym], top_sym
    sp = 1
    out = 0
    while sp > 0:
        sp -= 1
        c, layer, A = st_c[sp], st_l[sp], st_s[sp]
        r = bp[c, layer, A]
        syms[out] = A
        cells[out] = c
        rules[out] = r
        if layer > 0:
            kinds[out] = UNARY
            st_c[sp], st_l[sp], st_s[sp] = c, layer - 1, unary[r - nb, 1]
            sp += 1
        elif r < 0:
            kinds[out] = LEAF
            # the cell of a preterminal is (h, 0, 0): find h
            h = np.searchsorted(cbase, c, side="right") - 1
            wout[out] = h
        else:
            h = np.searchsorted(cbase, c, side="right") - 1
            ra = nr[h] + 1
            a = (c - cbase[h]) // ra
            b = (c - cbase[h]) % ra
            hs, ms = binary[r, 1], binary[r, 2]
            if binary[r, 3] == 0:  # head left: right dependent attached
                kinds[out] = HEAD_LEFT
                src = c - 1
                m = rdeps[rptr[h] + b - 1]
            else:
                kinds[out] = HEAD_RIGHT
                src = c - ra
                m = ldeps[lptr[h] + a - 1]
            mcell = cbase[m] + nl[m] * (nr[m] + 1) + nr[m]
            # push right child first so that the left child is emitted next (pre-order)
            if binary[r, 3] == 0:
                st_c[sp], st_l[sp], st_s[sp] = mcell, best_layer[mcell, ms], ms
                st_c[sp + 1], st_l[sp + 1], st_s[sp + 1] = src, best_layer[src, hs], hs
            else:
                st_c[sp], st_l[sp], st_s[sp] = src, best_layer[src, hs], hs
                st_c[sp + 1], st_l[sp + 1], st_s[sp + 1] = mcell, best_layer[mcell, ms], ms
            sp += 2
        out += 1
    return total, kinds[:out], syms[:out], rules[:out], cells[:out], wout[:out]


@njit(cache=True, nogil=True)
def derivation_features(
    heads, words, tags, labels, kinds, rules, cells, binary, unary, nsym, mask, out
):
    """Feature indices of every production of a derivation (pre-order node arrays).
    Returns how many were written to ``out``."""
    ok, root, nl, nr, lptr, rptr, ldeps, rdeps, order, lo, hi, cbase = sentence_structure(heads)
    ctx = binary_context_array(labels)
    uctx = np.zeros(N_UNARY, np.int64)
    pos = 0
    for q in range(kinds.shape[0]):
        kind = kinds[q]
        if kind == LEAF:
            continue
        c = cells[q]
        r = rules[q]
        h = np.searchsorted(cbase, c, side="right") - 1
        ra = nr[h] + 1
        a = (c - cbase[h]) // ra
        b = (c - cbase[h]) % ra
        i, j = _cell_span(h, a, b, lptr, rptr, ldeps, rdeps, lo, hi)
        if kind == UNARY:
            unary_context(i, j, h, words, tags, uctx)
            pos = unary_indices(uctx, r - binary.shape[0], mask, out, pos)
            continue
        if kind == HEAD_LEFT:
            m = rdeps[rptr[h] + b - 1]
            k = lo[m] - 1
        else:
            m = ldeps[lptr[h] + a - 1]
            k = hi[m]
        binary_context(i, k, j, h, m, words, tags, labels, ctx)
        A, hs, ms = binary[r, 0], binary[r, 1], binary[r, 2]
        pos = binary_indices(ctx, r, A, A * nsym + hs, A * nsym + ms, mask, out, pos)
    return pos
