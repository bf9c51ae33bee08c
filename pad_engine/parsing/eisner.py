"""Eisner's algorithm with sibling parts (McDonald & Pereira 2006): the highest-scoring
projective dependency tree under arc scores plus scores of (head, previous dependent on the
same side, dependent) triples and of each head's outermost dependent on each side (or none),
with exactly one word attached to the root, in O(n^3) time.

``scores[h, m]`` is the score of the arc h -> m over positions 0..n (0 the root; NEG where
the arc is pruned); the sibling scores come from the hashed weights through
:func:`_sibling`, computed only for triples whose two arcs survived pruning. Spans are
complete (C) or incomplete (I), facing left (head at the right end, 0) or right (head at the
left end, 1); a sibling span S(s, t) joins s's right half and t's left half. A head's
dependents are added from the nearest outward, each with its inner neighbour as sibling; a
complete span C(s, t) = I(s, r) + C(r, t) closes s's side with r outermost (its stop part), a
one-word complete span closes a side with no dependent. The root takes one child: I(0, t) is
only ever built as a first child.
"""

from __future__ import annotations

import numpy as np

from pad_engine.jit import njit
from pad_engine.parsing.arcs import (
    MAX_SIB_FEATURES,
    NEG,
    sibling_head_features,
    sibling_pair_features,
    stop_scores,
    summed,
)

_LIVE = NEG / 2  # a chart item above this is reachable
# Backtrace item kinds
_CL, _CR, _IL, _IR, _SIB = 0, 1, 2, 3, 4


@njit(cache=True, inline="always")
def _sibling(h, s, m, arr, weights, mask, feats, pair, near):
    """The score of the sibling part (h, s, m), its head-free part memoized in ``pair[s, m]``
    (``near[m, d - 1]`` without a sibling; NaN until first needed): the decoder tries each
    (sibling, dependent) pair with many heads."""
    if s == h:
        d = 1 if h < m else 2
        shared = near[m, d - 1]
        if shared != shared:
            shared = summed(feats, sibling_pair_features(-1, m, d, arr, feats), weights, mask)
            near[m, d - 1] = shared
    else:
        shared = pair[s, m]
        if shared != shared:
            shared = summed(feats, sibling_pair_features(s, m, 1 if s < m else 2, arr, feats),
                          weights, mask)
            pair[s, m] = shared
    return shared + summed(feats, sibling_head_features(h, s, m, arr, feats), weights, mask)


@njit(cache=True, nogil=True)
def eisner2(scores, arr, weights, mask):
    """The best single-rooted projective tree: heads[m - 1] for words 1..n (0 = root)."""
    size = scores.shape[0]
    n = size - 1
    c = np.full((size, size, 2), NEG)
    inc = np.full((size, size, 2), NEG)
    sib = np.full((size, size), NEG)
    cb = np.zeros((size, size, 2), np.int64)
    ib = np.full((size, size, 2), -1, np.int64)
    sb = np.zeros((size, size), np.int64)
    feats = np.empty(MAX_SIB_FEATURES, np.int64)
    stop, none = stop_scores(scores, arr, weights, mask)
    pair = np.full((size, size), np.nan)
    near = np.full((size, 2), np.nan)
    for s in range(size):  # a one-word complete span: s takes no dependent on that side
        c[s, s, 0] = none[s, 1]
        c[s, s, 1] = none[s, 0]
    for k in range(1, size):
        for s in range(0, size - k):
            t = s + k
            if s > 0:  # sibling span: s's right half, t's left half
                best, arg = NEG, s
                for r in range(s, t):
                    v = c[s, r, 1] + c[r + 1, t, 0]
                    if v > best:
                        best, arg = v, r
                sib[s, t] = best
                sb[s, t] = arg
            if scores[s, t] > _LIVE:  # s -> t
                best = c[s + 1, t, 0] + _sibling(s, s, t, arr, weights, mask, feats, pair, near)
                arg = -1
                if s > 0:
                    for r in range(s + 1, t):
                        if inc[s, r, 1] > _LIVE and sib[r, t] > _LIVE:
                            v = inc[s, r, 1] + sib[r, t] + _sibling(s, r, t, arr, weights, mask,
                                                                     feats, pair, near)
                            if v > best:
                                best, arg = v, r
                inc[s, t, 1] = best + scores[s, t]
                ib[s, t, 1] = arg
            if s > 0 and scores[t, s] > _LIVE:  # t -> s
                best = c[s, t - 1, 1] + _sibling(t, t, s, arr, weights, mask, feats, pair, near)
                arg = -1
                for r in range(s + 1, t):
                    if inc[r, t, 0] > _LIVE and sib[s, r] > _LIVE:
                        v = sib[s, r] + inc[r, t, 0] + _sibling(t, r, s, arr, weights, mask,
                                                                 feats, pair, near)
                        if v > best:
                            best, arg = v, r
                inc[s, t, 0] = best + scores[t, s]
                ib[s, t, 0] = arg
            if s > 0:
                best, arg = NEG, s
                for r in range(s, t):  # r: t's outermost left dependent
                    v = c[s, r, 0] + inc[r, t, 0] + stop[t, r]
                    if v > best:
                        best, arg = v, r
                c[s, t, 0] = best
                cb[s, t, 0] = arg
            best, arg = NEG, s + 1
            for r in range(s + 1, t + 1):  # r: s's outermost right dependent
                v = inc[s, r, 1] + c[r, t, 1] + stop[s, r]
                if v > best:
                    best, arg = v, r
            c[s, t, 1] = best
            cb[s, t, 1] = arg
    heads = np.zeros(n, np.int64)
    stack = np.zeros((4 * size + 4, 3), np.int64)  # (s, t, kind)
    stack[0] = (0, n, _CR)
    top = 1
    while top > 0:
        top -= 1
        s, t, kind = stack[top]
        if s == t:
            continue
        if kind == _CR:
            r = cb[s, t, 1]
            stack[top] = (s, r, _IR)
            stack[top + 1] = (r, t, _CR)
            top += 2
        elif kind == _CL:
            r = cb[s, t, 0]
            stack[top] = (s, r, _CL)
            stack[top + 1] = (r, t, _IL)
            top += 2
        elif kind == _SIB:
            r = sb[s, t]
            stack[top] = (s, r, _CR)
            stack[top + 1] = (r + 1, t, _CL)
            top += 2
        elif kind == _IR:
            heads[t - 1] = s
            r = ib[s, t, 1]
            if r < 0:
                stack[top] = (s + 1, t, _CL)
                top += 1
            else:
                stack[top] = (s, r, _IR)
                stack[top + 1] = (r, t, _SIB)
                top += 2
        else:
            heads[s - 1] = t
            r = ib[s, t, 0]
            if r < 0:
                stack[top] = (s, t - 1, _CR)
                top += 1
            else:
                stack[top] = (s, r, _SIB)
                stack[top + 1] = (r, t, _IL)
                top += 2
    return heads
