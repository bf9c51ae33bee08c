"""k-best constrained decoding: the k highest-scoring derivations consistent with the d-parse.

The same cells and layers as :mod:`pad_engine.decoder`, but every item keeps a sorted list
of up to k derivations instead of one. A layer-0 item merges all its incoming attachments
(each a grid of head-side rank x modifier rank, explored lazily with a heap, Huang & Chiang
2005, Algorithm 2); a unary layer merges its rules over the ranks of the layer below; the
item a parent uses is the merge of a cell's layers. Because binarization admits a single
derivation per Penn tree, the k derivations are k distinct Penn trees.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pad_engine.decoder import (
    GLUE_PENALTY,
    HEAD_LEFT,
    HEAD_RIGHT,
    LEAF,
    UNARY,
    _cell_span,
    _transition,
    sentence_structure,
)
from pad_engine.features import (
    N_UNARY,
    binary_context,
    binary_context_array,
    binary_score,
    score_cache,
    unary_context,
    unary_score,
)


@njit(cache=True)
def _push(hs, he, hi, hj, size, score, e, i, j):
    """Push onto a max-heap stored in four arrays; returns the new size."""
    p = size
    hs[p], he[p], hi[p], hj[p] = score, e, i, j
    while p > 0:
        parent = (p - 1) // 2
        if hs[parent] >= hs[p]:
            break
        hs[p], hs[parent] = hs[parent], hs[p]
        he[p], he[parent] = he[parent], he[p]
        hi[p], hi[parent] = hi[parent], hi[p]
        hj[p], hj[parent] = hj[parent], hj[p]
        p = parent
    return size + 1


@njit(cache=True)
def _pop(hs, he, hi, hj, size):
    """Remove the top of the heap (read it before calling); returns the new size."""
    size -= 1
    hs[0], he[0], hi[0], hj[0] = hs[size], he[size], hi[size], hj[size]
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
        he[p], he[child] = he[child], he[p]
        hi[p], hi[child] = hi[child], hi[p]
        hj[p], hj[child] = hj[child], hj[p]
        p = child
    return size


@njit(cache=True)
def _heap(size):
    return np.empty(size), np.empty(size, np.int64), np.empty(size, np.int64), np.empty(
        size, np.int64)


@njit(cache=True)
def _reserve(ps, pa, pb, pc, used, need):
    """Grow the entry pool so that ``need`` more entries fit."""
    if used + need <= ps.shape[0]:
        return ps, pa, pb, pc
    cap = max(2 * ps.shape[0], used + need)
    ps2 = np.empty(cap)
    pa2 = np.empty(cap, np.int64)
    pb2 = np.empty(cap, np.int64)
    pc2 = np.empty(cap, np.int64)
    ps2[:used] = ps[:used]
    pa2[:used] = pa[:used]
    pb2[:used] = pb[:used]
    pc2[:used] = pc[:used]
    return ps2, pa2, pb2, pc2


@njit(cache=True, nogil=True)
def decode_kbest(
    heads, rows, words, tags, labels,
    weights, mask, binary, unary, ptr, ids, tag_sym, nsym, nrows, U, top_sym,
    side_keys, side_p, side_n, prune_rules, prune_side, alpha, glue_binary, glue_unary, K,
):
    """Up to K best derivations. Returns (scores, offsets, kinds, syms, rules, cells, words):
    derivation t is the pre-order node slice offsets[t]:offsets[t+1] of the node arrays."""
    ok, root, nl, nr, lptr, rptr, ldeps, rdeps, order, lo, hi, cbase = sentence_structure(heads)
    e0 = np.zeros(0, np.int64)
    if not ok:
        return np.zeros(0), np.zeros(1, np.int64), e0, e0, e0, e0, e0
    n = heads.shape[0]
    ncell = cbase[n]
    L = U + 1
    nb = binary.shape[0]
    it_off = np.full((ncell, L, nsym), -1, np.int64)
    it_cnt = np.zeros((ncell, L, nsym), np.int64)
    f_off = np.full((ncell, nsym), -1, np.int64)
    f_cnt = np.zeros((ncell, nsym), np.int64)
    f_layer = np.full((ncell, nsym), -1, np.int64)  # >= 0: the list is that layer's own
    lsyms = np.zeros((ncell, L, nsym), np.int64)
    nlsyms = np.zeros((ncell, L), np.int64)
    fsyms = np.zeros((ncell, nsym), np.int64)
    nfsyms = np.zeros(ncell, np.int64)
    cap = 1024
    ps = np.empty(cap)
    pa = np.empty(cap, np.int64)
    pb = np.empty(cap, np.int64)
    pc = np.empty(cap, np.int64)
    used = 0
    ctx = binary_context_array(labels)
    uctx = np.zeros(N_UNARY, np.int64)
    cache, stamp = score_cache(nsym)
    # work buffers reused by every cell (grown on demand)
    e_A = np.empty(256, np.int64)
    e_r = np.empty(256, np.int64)
    e_src = np.empty(256, np.int64)
    e_mod = np.empty(256, np.int64)
    e_s = np.empty(256)
    u_A = np.empty(64, np.int64)
    u_r = np.empty(64, np.int64)
    u_B = np.empty(64, np.int64)
    u_s = np.empty(64)
    hs_, he_, hi_, hj_ = _heap(256 + 4 * K)
    all_row = nrows - 1
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
                    ps, pa, pb, pc = _reserve(ps, pa, pb, pc, used, 1)
                    ps[used], pa[used], pb[used], pc[used] = 0.0, -1, 0, 0
                    it_off[c, 0, s0] = used
                    it_cnt[c, 0, s0] = 1
                    used += 1
                    lsyms[c, 0, 0] = s0
                    nlsyms[c, 0] = 1
                else:
                    # collect the attachments into this cell: (rule, side, base score)
                    count = 0
                    for side in range(2):
                        src = c - ra if side == 0 else c - 1
                        if (side == 0 and a == 0) or (side == 1 and b == 0):
                            continue
                        direction = 1 if side == 0 else 0
                        for q in range(nfsyms[src]):
                            key = (row * 3 + direction) * nsym + fsyms[src, q]
                            count += ptr[key + 1] - ptr[key]
                    if count > e_A.shape[0]:
                        e_A = np.empty(2 * count, np.int64)
                        e_r = np.empty(2 * count, np.int64)
                        e_src = np.empty(2 * count, np.int64)
                        e_mod = np.empty(2 * count, np.int64)
                        e_s = np.empty(2 * count)
                    ne = 0
                    for side in range(2):
                        src, m, k, direction, mcell = _transition(
                            c, h, a, b, side, nl, nr, lptr, rptr, ldeps, rdeps, lo, hi, cbase,
                            rows, prune_side, nrows, side_keys, side_p, side_n, alpha,
                        )
                        if src < 0:
                            continue
                        binary_context(i, k, j, h, m, words, tags, labels, ctx)
                        for q in range(nfsyms[src]):
                            hsym = fsyms[src, q]
                            key = (row * 3 + direction) * nsym + hsym
                            for e in range(ptr[key], ptr[key + 1]):
                                r = ids[e]
                                msym = binary[r, 2]
                                if f_cnt[mcell, msym] == 0:
                                    continue
                                A = binary[r, 0]
                                s = binary_score(ctx, r, A, hsym, msym, nsym, weights, mask,
                                                 cache, stamp, 2 * c + side)
                                if r >= glue_binary:
                                    s -= GLUE_PENALTY
                                e_A[ne], e_r[ne], e_s[ne] = A, r, s
                                e_src[ne] = src * nsym + hsym
                                e_mod[ne] = mcell * nsym + msym
                                ne += 1
                    byA = np.argsort(e_A[:ne], kind="mergesort")
                    g0 = 0
                    if ne + 2 * K + 2 > hs_.shape[0]:
                        hs_, he_, hi_, hj_ = _heap(2 * (ne + 2 * K + 2))
                    while g0 < ne:
                        A = e_A[byA[g0]]
                        g1 = g0
                        size = 0
                        while g1 < ne and e_A[byA[g1]] == A:
                            e = byA[g1]
                            sc, sh = e_src[e] // nsym, e_src[e] % nsym
                            mc, ms = e_mod[e] // nsym, e_mod[e] % nsym
                            top = e_s[e] + ps[f_off[sc, sh]] + ps[f_off[mc, ms]]
                            size = _push(hs_, he_, hi_, hj_, size, top, e, 0, 0)
                            g1 += 1
                        ps, pa, pb, pc = _reserve(ps, pa, pb, pc, used, K)
                        start = used
                        while size > 0 and used - start < K:
                            sc_, e, ri, rj = hs_[0], he_[0], hi_[0], hj_[0]
                            size = _pop(hs_, he_, hi_, hj_, size)
                            ps[used], pa[used], pb[used], pc[used] = sc_, e_r[e], ri, rj
                            used += 1
                            sc, sh = e_src[e] // nsym, e_src[e] % nsym
                            mc, ms = e_mod[e] // nsym, e_mod[e] % nsym
                            base = e_s[e]
                            if rj + 1 < f_cnt[mc, ms]:
                                s = base + ps[f_off[sc, sh] + ri] + ps[f_off[mc, ms] + rj + 1]
                                size = _push(hs_, he_, hi_, hj_, size, s, e, ri, rj + 1)
                            if rj == 0 and ri + 1 < f_cnt[sc, sh]:
                                s = base + ps[f_off[sc, sh] + ri + 1] + ps[f_off[mc, ms]]
                                size = _push(hs_, he_, hi_, hj_, size, s, e, ri + 1, 0)
                        it_off[c, 0, A] = start
                        it_cnt[c, 0, A] = used - start
                        lsyms[c, 0, nlsyms[c, 0]] = A
                        nlsyms[c, 0] += 1
                        g0 = g1
                # unary layers
                if nlsyms[c, 0] > 0:
                    unary_context(i, j, h, words, tags, uctx)
                for layer in range(1, L):
                    count = 0
                    for q in range(nlsyms[c, layer - 1]):
                        key = (row * 3 + 2) * nsym + lsyms[c, layer - 1, q]
                        count += ptr[key + 1] - ptr[key]
                    if count == 0:
                        break
                    if count > u_A.shape[0]:
                        u_A = np.empty(2 * count, np.int64)
                        u_r = np.empty(2 * count, np.int64)
                        u_B = np.empty(2 * count, np.int64)
                        u_s = np.empty(2 * count)
                    ne = 0
                    for q in range(nlsyms[c, layer - 1]):
                        bsym = lsyms[c, layer - 1, q]
                        key = (row * 3 + 2) * nsym + bsym
                        for e in range(ptr[key], ptr[key + 1]):
                            r = ids[e]
                            A = unary[r - nb, 0]
                            if A == top_sym and not (a == nl[h] and b == nr[h] and h == root):
                                continue
                            s = unary_score(uctx, r - nb, weights, mask)
                            if r - nb >= glue_unary:
                                s -= GLUE_PENALTY
                            u_A[ne], u_r[ne], u_B[ne], u_s[ne] = A, r, bsym, s
                            ne += 1
                    byA = np.argsort(u_A[:ne], kind="mergesort")
                    if ne + K + 2 > hs_.shape[0]:
                        hs_, he_, hi_, hj_ = _heap(2 * (ne + K + 2))
                    g0 = 0
                    while g0 < ne:
                        A = u_A[byA[g0]]
                        g1 = g0
                        size = 0
                        while g1 < ne and u_A[byA[g1]] == A:
                            e = byA[g1]
                            top = u_s[e] + ps[it_off[c, layer - 1, u_B[e]]]
                            size = _push(hs_, he_, hi_, hj_, size, top, e, 0, 0)
                            g1 += 1
                        ps, pa, pb, pc = _reserve(ps, pa, pb, pc, used, K)
                        start = used
                        while size > 0 and used - start < K:
                            sc_, e, ri = hs_[0], he_[0], hi_[0]
                            size = _pop(hs_, he_, hi_, hj_, size)
                            ps[used], pa[used], pb[used], pc[used] = sc_, u_r[e], ri, 0
                            used += 1
                            below = it_off[c, layer - 1, u_B[e]]
                            if ri + 1 < it_cnt[c, layer - 1, u_B[e]]:
                                s = u_s[e] + ps[below + ri + 1]
                                size = _push(hs_, he_, hi_, hj_, size, s, e, ri + 1, 0)
                        it_off[c, layer, A] = start
                        it_cnt[c, layer, A] = used - start
                        lsyms[c, layer, nlsyms[c, layer]] = A
                        nlsyms[c, layer] += 1
                        g0 = g1
                # final lists: merge the layers of each symbol
                for layer in range(L):
                    for q in range(nlsyms[c, layer]):
                        A = lsyms[c, layer, q]
                        if f_cnt[c, A] == 0 and f_off[c, A] == -1:
                            f_off[c, A] = -2  # mark as listed
                            fsyms[c, nfsyms[c]] = A
                            nfsyms[c] += 1
                if L + K + 2 > hs_.shape[0]:
                    hs_, he_, hi_, hj_ = _heap(2 * (L + K + 2))
                for q in range(nfsyms[c]):
                    A = fsyms[c, q]
                    size = 0
                    only = -1
                    for layer in range(L):
                        if it_cnt[c, layer, A] > 0:
                            s = ps[it_off[c, layer, A]]
                            size = _push(hs_, he_, hi_, hj_, size, s, layer, 0, 0)
                            only = layer
                    if size == 1:  # a single layer: its list is the merged list
                        f_off[c, A] = it_off[c, only, A]
                        f_cnt[c, A] = it_cnt[c, only, A]
                        f_layer[c, A] = only
                        continue
                    ps, pa, pb, pc = _reserve(ps, pa, pb, pc, used, K)
                    start = used
                    while size > 0 and used - start < K:
                        sc_, layer, ri = hs_[0], he_[0], hi_[0]
                        size = _pop(hs_, he_, hi_, hj_, size)
                        ps[used], pa[used], pb[used], pc[used] = sc_, layer, ri, 0
                        used += 1
                        if ri + 1 < it_cnt[c, layer, A]:
                            s = ps[it_off[c, layer, A] + ri + 1]
                            size = _push(hs_, he_, hi_, hj_, size, s, layer, ri + 1, 0)
                    f_off[c, A] = start
                    f_cnt[c, A] = used - start
    rc = cbase[root] + nl[root] * (nr[root] + 1) + nr[root]
    nk = f_cnt[rc, top_sym]
    if nk == 0:
        return np.zeros(0), np.zeros(1, np.int64), e0, e0, e0, e0, e0
    per = 2 * n + ncell * L + 4
    kinds = np.zeros(nk * per, np.int64)
    syms = np.zeros(nk * per, np.int64)
    rules = np.full(nk * per, -1, np.int64)
    cells = np.zeros(nk * per, np.int64)
    wout = np.full(nk * per, -1, np.int64)
    offsets = np.zeros(nk + 1, np.int64)
    scores = np.zeros(nk)
    st_f = np.zeros(per, np.int64)  # 1: final-list reference, 0: layer-item reference
    st_c = np.zeros(per, np.int64)
    st_l = np.zeros(per, np.int64)
    st_s = np.zeros(per, np.int64)
    st_r = np.zeros(per, np.int64)
    out = 0
    for kk in range(nk):
        scores[kk] = ps[f_off[rc, top_sym] + kk]
        st_f[0], st_c[0], st_l[0], st_s[0], st_r[0] = 1, rc, 0, top_sym, kk
        sp = 1
        while sp > 0:
            sp -= 1
            c, A, rank = st_c[sp], st_s[sp], st_r[sp]
            if st_f[sp] == 1:
                if f_layer[c, A] >= 0:
                    st_f[sp], st_l[sp] = 0, f_layer[c, A]
                else:
                    ent = f_off[c, A] + rank
                    st_f[sp], st_l[sp], st_r[sp] = 0, pa[ent], pb[ent]
                sp += 1
                continue
            layer = st_l[sp]
            ent = it_off[c, layer, A] + rank
            r = pa[ent]
            syms[out], cells[out], rules[out] = A, c, r
            if layer > 0:
                kinds[out] = UNARY
                st_f[sp], st_c[sp], st_l[sp], st_s[sp], st_r[sp] = (
                    0, c, layer - 1, unary[r - nb, 1], pb[ent])
                sp += 1
            elif r < 0:
                kinds[out] = LEAF
                wout[out] = np.searchsorted(cbase, c, side="right") - 1
            else:
                h = np.searchsorted(cbase, c, side="right") - 1
                ra = nr[h] + 1
                a = (c - cbase[h]) // ra
                b = (c - cbase[h]) % ra
                hsym, msym = binary[r, 1], binary[r, 2]
                if binary[r, 3] == 0:
                    kinds[out] = HEAD_LEFT
                    src = c - 1
                    m = rdeps[rptr[h] + b - 1]
                else:
                    kinds[out] = HEAD_RIGHT
                    src = c - ra
                    m = ldeps[lptr[h] + a - 1]
                mcell = cbase[m] + nl[m] * (nr[m] + 1) + nr[m]
                if binary[r, 3] == 0:  # left child (head side) must pop first
                    st_f[sp], st_c[sp], st_s[sp], st_r[sp] = 1, mcell, msym, pc[ent]
                    st_f[sp + 1], st_c[sp + 1], st_s[sp + 1], st_r[sp + 1] = (
                        1, src, hsym, pb[ent])
                else:
                    st_f[sp], st_c[sp], st_s[sp], st_r[sp] = 1, src, hsym, pb[ent]
                    st_f[sp + 1], st_c[sp + 1], st_s[sp + 1], st_r[sp + 1] = (
                        1, mcell, msym, pc[ent])
                sp += 2
            out += 1
        offsets[kk + 1] = out
    return scores, offsets, kinds[:out], syms[:out], rules[:out], cells[:out], wout[:out]
