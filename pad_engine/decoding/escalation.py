"""Which heads the decoder redoes how (:mod:`pad_engine.decoding.decoder`): before a head
that failed exactly is decoded with glue rules, its subtree is redone exactly when pruning
decoded part of it and exact rules could build the head's item at all."""

from __future__ import annotations

import numpy as np

from pad_engine.decoding.records import PRUNED
from pad_engine.jit import njit


@njit(cache=True)
def exact_builds(st, g, rows, t0, t):
    """Whether exact decoding of the subtree st.order[t0..t] (without glue) gives its head
    a phrase or tag (at the root: TOP): the chart's walk with the symbols a cell can have
    instead of scored items, so much cheaper than the decoding it may spare (most heads that
    fail exactly fail for want of a rule, not for what pruning dropped). Takes the records:
    it runs only for a head that failed."""
    order, root, nl, nr, lptr, rptr, ldeps, rdeps = (st.order, st.root, st.nl, st.nr, st.lptr,
                                                     st.rptr, st.ldeps, st.rdeps)
    tag_sym, ptr, ids, binary, unary = g.tag_sym, g.ptr, g.ids, g.binary, g.unary
    nsym, nrows, L, top, real = g.nsym, g.nrows, g.max_unary + 1, g.top, g.real
    nb = binary.shape[0]
    can = np.zeros((t - t0 + 1, nsym), np.bool_)  # per head of the subtree: its complete cell
    at = np.zeros(rows.shape[0], np.int64)  # word -> its row of ``can``
    for u in range(t0, t + 1):
        m = order[u]
        at[m] = u - t0
        ra = nr[m] + 1
        grid = np.zeros((2, ra, nsym), np.bool_)  # rows a - 1 and a of the head's cells
        for a in range(nl[m] + 1):
            grid[a % 2] = False
            for b in range(ra):
                cur = grid[a % 2, b]
                if a == 0 and b == 0:
                    cur[tag_sym[rows[m]]] = True
                for side in range(2):
                    if (side == 0 and a == 0) or (side == 1 and b == 0):
                        continue
                    src = grid[(a - 1) % 2, b] if side == 0 else grid[a % 2, b - 1]
                    d = ldeps[lptr[m] + a - 1] if side == 0 else rdeps[rptr[m] + b - 1]
                    dep = can[at[d]]
                    for Y in range(nsym):
                        if src[Y]:
                            key = ((nrows - 1) * 3 + 1 - side) * nsym + Y
                            for e in range(ptr[key], ptr[key + 1]):
                                if dep[binary[ids[e], 2]]:
                                    cur[binary[ids[e], 0]] = True
                top_ok = m == root and a == nl[m] and b == nr[m]
                frontier = cur.copy()
                for _ in range(1, L):  # each layer one unary rule over the one below
                    nxt = np.zeros(nsym, np.bool_)
                    for B in range(nsym):
                        if frontier[B]:
                            key = ((nrows - 1) * 3 + 2) * nsym + B
                            for e in range(ptr[key], ptr[key + 1]):
                                A = unary[ids[e] - nb, 0]
                                if top != A or top_ok:
                                    nxt[A] = True
                    if not nxt.any():
                        break
                    cur |= nxt
                    frontier = nxt
        done = grid[nl[m] % 2, nr[m]]
        if m == root:
            return done[top]
        can[u - t0] = done & real
    return can[t - t0].any()


@njit(cache=True)
def pruned_below(order, start_mode, t0, t):
    """Whether a head of order[t0:t] (a subtree's dependents) was decoded with pruning."""
    for u in range(t0, t):
        if start_mode[order[u]] == PRUNED:
            return True
    return False
