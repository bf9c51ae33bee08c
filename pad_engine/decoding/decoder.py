"""The constrained lexicalized CKY decoder of paper §3 (Figure 3, right), in Numba: one chart
for the best derivation and for the k best.

Because the d-parse is fixed, an item headed by word h is determined by how many of h's left
dependents (nearest first) and right dependents it has absorbed: a *cell* (h, a, b). A cell
holds items (a symbol with its derivations, best first) in ``U + 1`` layers: layer 0 comes from
the attachment of the next left or right dependent (or the preterminal when a = b = 0); layer
l applies one unary rule to layer l - 1, which bounds unary chains without cycles. A parent
uses a cell's *final* item of a symbol: its derivations over all layers. Heads are processed
dependents first, cells of a head in (a, b) order, so every premise is final when it is used.

1-best and k-best share all of it (cell walk, transitions and pruning, rule scores, unary
layers, storage, backtrace); only the step that turns an item's candidates into its list of
derivations differs: keep the best (K = 1), or enumerate the K best lazily
(:mod:`pad_engine.decoding.kbest`). Items are stored for the symbols a cell has, not for
every cell x layer x symbol, so memory follows what a sentence builds (the tables:
:mod:`pad_engine.decoding.tables`); callers bound the number of cells before decoding
(``parser.MAX_CHART``), and a k-best chart stops before its entries pass a budget
(:data:`KBEST_ENTRIES`), to be decoded again with fewer per item.

Each head is decoded in a mode (``PRUNED``, ``EXACT``, ``GLUE``) and, with ``escalate``, moves
to the next when its complete cell comes out without a phrase (:func:`_chart`): one pass per
sentence, glue rules made up from the symbols' keys only where the learned ones cannot build
(which heads are redone how: :mod:`pad_engine.decoding.escalation`).

What a decode reads and returns are the records of :mod:`pad_engine.decoding.records`.

The same routine does loss-augmented decoding for training (``loss_weight`` > 0 adds the
Hamming cost of each production against the gold derivation) and the oracle (``cell_cost``).
"""

from __future__ import annotations

import numpy as np

from pad_engine.decoding.escalation import exact_builds, pruned_below
from pad_engine.decoding.features import (
    binary_context,
    binary_context_array,
    binary_indices,
    binary_rule_keys,
    binary_score,
    score_cache,
    unary_context,
    unary_context_array,
    unary_indices,
    unary_rule_key,
    unary_score,
)
from pad_engine.decoding.kbest import (
    E_NX,
    E_NY,
    E_RULE,
    E_SAME,
    E_SYM,
    E_X,
    E_Y,
    KEY,
    Work,
    combine,
    finish_cell,
    keep_best,
)
from pad_engine.decoding.records import (
    EXACT,
    GLUE,
    OVER_BUDGET,
    PRUNED,
    Chart,
    Derivation,
    Derivations,
)
from pad_engine.decoding.tables import (
    built_fraction,
    compact,
    entry_room,
    find,
    grow,
    grow_rows,
    keep_within,
)
from pad_engine.jit import leaf, njit
from pad_engine.trees.binarize import HEAD_LEFT, HEAD_RIGHT, LEAF, UNARY
from pad_engine.trees.structure import cell_span, sentence_structure

GLUE_PENALTY = 100.0
NO_CAP = 1 << 30  # more items than any cell has: pruned mode keeps every item its beam does
NO_GOLD = np.zeros(1, np.int64)
NO_CELL_COST = np.zeros((0, 0))
# The k-best chart's budget: at most this many entries (derivations of items, 20 bytes each:
# a float64 score and three int32; distinct k-best, the app's, 24: and a key), so a k-best
# decode holds at most 40 MB of them, 48 MB distinct (60 and 72 MB while the arrays grow to
# it: they double, from 1024, up to exactly this). A sentence whose
# chart for K derivations per item would need more stops (level OVER_BUDGET) before
# allocating past it, and ``parser.Parser.kbest`` decodes it again with fewer; only very
# long flat sentences need that. 1-best has no budget.
KBEST_ENTRIES = 1024 << 11


@leaf(cache=True)
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


@leaf(cache=True)
def _transition(st, g, rows, alpha, prune, c, h, a, b, side):
    """The attachment that builds cell c = (h, a, b) of a sentence of structure ``st``:
    side 0 attaches h's a-th left dependent to cell (h, a-1, b), side 1 its b-th right
    dependent to (h, a, b-1). Returns (source cell, dependent m, split k, rule direction);
    source is -1 when there is no such attachment or pruning 2 (grammar ``g``, tag rows
    ``rows``) rules that side out. Taking the records measured no slower than their arrays."""
    nl, nr, lptr, rptr, ldeps, rdeps, lo, hi = (st.nl, st.nr, st.lptr, st.rptr, st.ldeps,
                                                st.rdeps, st.lo, st.hi)
    if side == 0:
        if a == 0:
            return -1, 0, 0, 0
        src, m, sa, sb = c - nr[h] - 1, ldeps[lptr[h] + a - 1], a - 1, b
        k, direction = hi[m], 1
    else:
        if b == 0:
            return -1, 0, 0, 0
        src, m, sa, sb = c - 1, rdeps[rptr[h] + b - 1], a, b - 1
        k, direction = lo[m] - 1, 0
    if prune and sa < nl[h] and sb < nr[h]:
        mode = _side_mode(rows[h], rows[ldeps[lptr[h] + sa]], rows[rdeps[rptr[h] + sb]],
                          g.nrows, g.side_keys, g.side_p, g.side_n, alpha)
        if (mode == 1 and side == 1) or (mode == 2 and side == 0):
            return -1, 0, 0, 0
    return src, m, k, direction


@njit(cache=True, inline="always")
def rule_parts(r, binary, nu, nsym, glue_parent):
    """(A, H, M, direction) of binary rule ``r``: a learned rule, or a glue rule, whose id
    past the learned and unary ones encodes (H, M, direction) (:func:`glue_rule_id`)."""
    nb = binary.shape[0]
    if r < nb:
        return binary[r, 0], binary[r, 1], binary[r, 2], binary[r, 3]
    x = r - nb - nu - nsym
    y = x // 2 // nsym
    return glue_parent[y], y, x // 2 % nsym, x % 2


@njit(cache=True, inline="always")
def glue_rule_id(nb, nu, nsym, y, z, direction):
    """The id of the glue rule that attaches complete symbol Z to head side Y."""
    return nb + nu + nsym + (y * nsym + z) * 2 + direction


@njit(cache=True, inline="always")
def unary_child(r, unary, nb):
    """B of unary rule ``r`` (A -> B): learned, or glue TOP -> B (id nb + nu + B)."""
    u = r - nb
    if u < unary.shape[0]:
        return unary[u, 1]
    return u - unary.shape[0]


@njit(cache=True, nogil=True)
def _chart(inp, K, budget, distinct):
    """Fill the chart with up to K derivations per item, for K > 1 in at most ``budget``
    entries (:data:`KBEST_ENTRIES`); with ``distinct``, K classes of derivations that differ
    in more than unary chains of one label (:mod:`pad_engine.decoding.kbest`).

    Heads are decoded in the record's mode (pruned: pruning 1 and 2, and a cell's items
    scoring more than ``beam`` below its best, or more than ``cap_margin`` below it and
    below its ``partial_cap`` best scores (a head's complete cell: ``complete_cap``), are
    dropped); with ``escalate``, a head whose complete cell comes out without a phrase or
    tag (at the root: without TOP; TOP elsewhere is no phrase, nothing attaches it) is
    decoded again without pruning; if that fails too and pruning decoded some of its
    subtree, the subtree is decoded again exactly first (the items the head needed may be
    ones pruning dropped below it), then the head; only then with glue rules: every symbol Y
    attaching any complete phrase or tag Z on either side to build Y's phrase
    (``glue_parent``), and TOP over any of them at the root, each paying GLUE_PENALTY. No
    derivation can do without such an item of every head, so a sentence the learned rules
    cover is decoded as without glue, in one pass; a head glues only where exact decoding of
    its subtree would; and one they cannot cover costs one pass plus its failing heads
    again, instead of three passes. With a grammar that has a phrase, glue derives every
    projective d-parse. Redoing the failing head's subtree exactly at once (at the pruned
    failure) gained no F1 and cost time; before glue, it leaves a model without back-off
    fewer sentences to glue, and better trees. It is done only where a walk over the symbols
    alone says exact rules build the head's item (:func:`escalation.exact_builds`): redoing
    every subtree before glue slowed the sentences that need exact or glue; with the walk,
    it does not.

    Returns the filled :class:`records.Chart`.

    The record's fields are read once, here: in this kernel every read of a record field, and
    every record made, counts references (atomic increments and decrements), which per cell
    and rule would cost more than the work itself. So the walks over rules stay in this loop,
    and the helpers it calls per rule, layer or cell are leaves (:func:`pad_engine.jit.leaf`),
    which count none.
    """
    s, g = inp.sentence, inp.grammar
    heads, rows, words, tags, labels = s.heads, s.rows, s.words, s.tags, s.rel_ids
    spans = s.spans
    binary, unary, ptr, ids, tag_sym = g.binary, g.unary, g.ptr, g.ids, g.tag_sym
    run_ptr, run_sym, run_start = g.run_ptr, g.run_sym, g.run_start
    rule_key, unary_key, parent_key = g.rule_key, g.unary_key, g.parent_key
    sym_key, glue_parent, learned, top_over, real = (g.sym_key, g.glue_parent, g.learned,
                                                     g.top_over, g.real)
    nsym, nrows, top, nb, nu = g.nsym, g.nrows, g.top, g.binary.shape[0], g.unary.shape[0]
    weights, scale, mask, alpha = inp.weights, inp.scale, inp.mask, inp.alpha
    mode, escalate, beam, within = inp.mode, inp.escalate, inp.beam, inp.within
    partial_cap, complete_cap, cap_margin = inp.partial_cap, inp.complete_cap, inp.cap_margin
    gold_bin, gold_un, cell_cost, loss_weight = inp.gold_bin, inp.gold_un, inp.cell_cost, \
        inp.loss_weight
    st = sentence_structure(heads)
    ok, root, nl, nr, lptr, rptr, ldeps, rdeps = (st.ok, st.root, st.nl, st.nr, st.lptr,
                                                  st.rptr, st.ldeps, st.rdeps)
    order, lo, hi, cbase = st.order, st.lo, st.hi, st.cbase
    n = heads.shape[0]
    L = g.max_unary + 1
    ncell = cbase[n] if ok else 0
    lay = np.zeros((ncell * L, 2), np.int64)
    fin = np.zeros((ncell, 2), np.int64)
    items = np.empty((1024, 3), np.int32)
    finals = np.empty((1024, 4), np.int32)
    ps = np.empty(1024)
    pe = np.empty((1024, 4 if distinct else 3), np.int32)  # distinct: and a key
    comp = np.full(n * nsym if ok else 0, -1, np.int64)
    ui = uf = ue = 0
    E = np.empty((256, 7), np.int64)
    es = np.empty(256)
    hs = np.empty(0)
    hx = np.empty((0, 3), np.int64)
    slot = np.full(nsym, -1, np.int64)
    cslot = np.full(nsym, -1, np.int64)
    by_sym = np.empty(256, np.int64)  # combine's work arrays: edges by symbol, group starts
    start = np.empty(nsym + 1, np.int64)
    layer_item = np.full((L, nsym), -1, np.int64)
    ctx = binary_context_array(labels, spans)
    uctx = unary_context_array(spans)
    cache, stamp = score_cache(nsym, weights)
    use_cells = cell_cost.shape[0] == ncell and cell_cost.shape[1] == nsym
    level_used = mode if ok else -1
    start_mode = np.full(n, mode, np.int64)  # the mode each head starts in
    level_of = np.zeros(n, np.int64)  # the mode each head ended in
    marks = np.zeros((n, 3), np.int64)  # storage in use (ui, uf, ue) before order[t]
    t = 0
    while t < (n if ok else 0):
        h = order[t]
        level = start_mode[h]
        marks[t, 0], marks[t, 1], marks[t, 2] = ui, uf, ue
        ui0, uf0, ue0 = ui, uf, ue
        hc = cbase[h] + nl[h] * (nr[h] + 1) + nr[h]  # h's complete cell
        redo = False
        while True:
            row = rows[h] if level == PRUNED else nrows - 1
            prune, glue = level == PRUNED, level == GLUE
            for a in range(nl[h] + 1):
                for b in range(nr[h] + 1):
                    c = cbase[h] + a * (nr[h] + 1) + b
                    i, j = cell_span(h, a, b, lptr, rptr, ldeps, rdeps, lo, hi)
                    top_ok = c == hc and h == root
                    cell_beam = beam if prune and not top_ok else np.inf  # TOP is never cut
                    lay[c * L:(c + 1) * L] = 0
                    for layer in range(L):
                        if layer == 0 and a == 0 and b == 0:  # the preterminal
                            if ui + 1 > items.shape[0]:
                                items = grow_rows(items, ui, 1)
                            if ue + 1 > ps.shape[0]:
                                ps, pe, fits = entry_room(ps, pe, ue, 1, K, budget)
                                if not fits:
                                    return Chart(st, lay, fin, items, finals, ps, pe, comp,
                                                 OVER_BUDGET, built_fraction(order, t, nl, nr, c,
                                                                             cbase, ncell))
                            items[ui, 0], items[ui, 1], items[ui, 2] = tag_sym[rows[h]], ue, 1
                            ps[ue], pe[ue, 0], pe[ue, 1], pe[ue, 2] = 0.0, -1, 0, 0
                            if distinct:
                                pe[ue, KEY] = ue
                            lay[c * L, 0], lay[c * L, 1] = ui, 1
                            ui += 1
                            ue += 1
                            continue
                        # the edges into this layer: at most ``bound``
                        first, below = lay[c * L + layer - 1, 0], lay[c * L + layer - 1, 1]
                        bound = 0
                        if layer > 0:
                            for q in range(first, first + below):
                                key = (row * 3 + 2) * nsym + items[q, 0]
                                bound += ptr[key + 1] - ptr[key]
                            if glue and top_ok:
                                bound += below
                        else:
                            for side in range(2):
                                if (side == 0 and a == 0) or (side == 1 and b == 0):
                                    continue
                                src = c - nr[h] - 1 if side == 0 else c - 1
                                for q in range(fin[src, 0], fin[src, 0] + fin[src, 1]):
                                    key = (row * 3 + 1 - side) * nsym + finals[q, 0]
                                    bound += ptr[key + 1] - ptr[key]
                                if glue:
                                    m = ldeps[lptr[h] + a - 1] if side == 0 else rdeps[
                                        rptr[h] + b - 1]
                                    mc = cbase[m] + nl[m] * (nr[m] + 1) + nr[m]
                                    bound += fin[src, 1] * fin[mc, 1]
                        if bound == 0:
                            break
                        # room for the edges, and for an item per symbol with K entries each
                        new = min(bound, nsym)
                        if bound > E.shape[0]:
                            E, es, by_sym = (grow_rows(E, 0, bound), grow(es, 0, bound),
                                            grow(by_sym, 0, bound))
                        if ui + new > items.shape[0]:
                            items = grow_rows(items, ui, new)
                        if ue + K * new > ps.shape[0]:
                            ps, pe, fits = entry_room(ps, pe, ue, K * new, K, budget)
                            if not fits:
                                return Chart(st, lay, fin, items, finals, ps, pe, comp,
                                             OVER_BUDGET, built_fraction(order, t, nl, nr, c,
                                                                         cbase, ncell))
                        if K > 1 and hs.shape[0] < bound + 4 * K:
                            hs, hx = np.empty(2 * bound + 4 * K), np.empty(
                                (2 * bound + 4 * K, 3), np.int64)
                        ne = 0
                        if layer == 0:  # attach the next left (side 0) or right (1) dependent
                            for side in range(2):
                                src, m, k, direction = _transition(st, g, rows, alpha, prune,
                                                                   c, h, a, b, side)
                                if src < 0:
                                    continue
                                binary_context(i, k, j, h, m, words, tags, labels, spans, ctx)
                                tid = 2 * c + side
                                gold = (gold_bin[tid] if loss_weight > 0 and not use_cells
                                        else -2)
                                mc = cbase[m] + nl[m] * (nr[m] + 1) + nr[m]
                                for q in range(fin[src, 0], fin[src, 0] + fin[src, 1]):
                                    Y = finals[q, 0]
                                    key = (row * 3 + direction) * nsym + Y
                                    for u in range(run_ptr[key], run_ptr[key + 1]):
                                        mq = comp[m * nsym + run_sym[u]]
                                        if mq < 0:
                                            continue
                                        for e in range(run_start[u], run_start[u + 1]):
                                            r = ids[e]
                                            A = binary[r, 0]
                                            sc = binary_score(ctx, A, rule_key[r, 0],
                                                              rule_key[r, 1], rule_key[r, 2],
                                                              parent_key, weights, scale, mask,
                                                              cache, stamp, tid)
                                            if use_cells:
                                                sc += cell_cost[c, A]
                                            elif loss_weight > 0:
                                                sc += loss_weight * (-1.0 if r == gold else 1.0)
                                            E[ne, E_SYM], E[ne, E_RULE] = A, r
                                            E[ne, E_X], E[ne, E_NX] = finals[q, 1], finals[q, 2]
                                            E[ne, E_Y], E[ne, E_NY] = finals[mq, 1], finals[mq, 2]
                                            es[ne] = sc
                                            ne += 1
                                    A = glue_parent[Y]
                                    if not glue or A < 0:
                                        continue
                                    for mq in range(fin[mc, 0], fin[mc, 0] + fin[mc, 1]):
                                        Z = finals[mq, 0]
                                        rule = ((A * nsym + Y) * nsym + Z) * 2 + direction
                                        pos = np.searchsorted(learned, rule)
                                        if not real[Z] or (pos < learned.shape[0]
                                                           and learned[pos] == rule):
                                            continue  # a learned rule does it unpenalized
                                        kr, kh, km = binary_rule_keys(sym_key, A, Y, Z,
                                                                      direction)
                                        sc = binary_score(ctx, A, kr, kh, km, parent_key,
                                                          weights, scale, mask, cache, stamp,
                                                          tid)
                                        sc -= GLUE_PENALTY
                                        if use_cells:
                                            sc += cell_cost[c, A]
                                        elif loss_weight > 0:
                                            sc += loss_weight
                                        E[ne, E_SYM] = A
                                        E[ne, E_RULE] = glue_rule_id(nb, nu, nsym, Y, Z,
                                                                     direction)
                                        E[ne, E_X], E[ne, E_NX] = finals[q, 1], finals[q, 2]
                                        E[ne, E_Y], E[ne, E_NY] = finals[mq, 1], finals[mq, 2]
                                        es[ne] = sc
                                        ne += 1
                        else:  # one unary rule over the layer below; TOP only over the root
                            if layer == 1:
                                unary_context(i, j, h, words, tags, labels, spans, uctx)
                            gold = (gold_un[c * L + layer] if loss_weight > 0 and not use_cells
                                    else -2)
                            for q in range(first, first + below):
                                B = items[q, 0]
                                key = (row * 3 + 2) * nsym + B
                                for e in range(ptr[key], ptr[key + 1]):
                                    r = ids[e]
                                    A = unary[r - nb, 0]
                                    if A == top and not top_ok:
                                        continue
                                    sc = unary_score(uctx, unary_key[r - nb], weights, scale, mask)
                                    if use_cells:  # X over X cannot match a gold bracket twice
                                        sc += cell_cost[c, A] if A != B else -1.0
                                    elif loss_weight > 0:
                                        sc += loss_weight * (-1.0 if r == gold else 1.0)
                                    E[ne, E_SYM], E[ne, E_RULE] = A, r
                                    E[ne, E_X], E[ne, E_NX] = items[q, 1], items[q, 2]
                                    E[ne, E_Y], E[ne, E_NY], E[ne, E_SAME] = -1, 1, A == B
                                    es[ne] = sc
                                    ne += 1
                                if glue and top_ok and real[B] and not top_over[B]:
                                    sc = unary_score(uctx, unary_rule_key(sym_key, top, B),
                                                     weights, scale, mask) - GLUE_PENALTY
                                    if use_cells:
                                        sc += cell_cost[c, top]
                                    elif loss_weight > 0:
                                        sc += loss_weight
                                    E[ne, E_SYM], E[ne, E_RULE] = top, nb + nu + B
                                    E[ne, E_X], E[ne, E_NX] = items[q, 1], items[q, 2]
                                    E[ne, E_Y], E[ne, E_NY], E[ne, E_SAME] = -1, 1, top == B
                                    es[ne] = sc
                                    ne += 1
                        if K == 1:  # each symbol's best edge: no work record per layer
                            count = used = keep_best(E, es, ne, ps, pe, items, ui, ue, slot)
                        else:
                            count, used = combine(
                                Work(E, es, hs, hx, by_sym, start, cslot, layer_item), ne, K,
                                ps, pe, items, ui, ue, slot, within if prune else np.inf,
                                distinct)
                        if cell_beam < np.inf:
                            count = keep_within(items, ui, count, ps, cell_beam, real, c == hc,
                                                NO_CAP, 0.0)
                            used = compact(items, ui, count, ps, pe, ue)
                        lay[c * L + layer, 0], lay[c * L + layer, 1] = ui, count
                        ui += count
                        ue += used
                        if count == 0:
                            break
                    bound = 0
                    for layer in range(L):
                        bound += lay[c * L + layer, 1]
                    if bound > E.shape[0]:
                        E, es, by_sym = (grow_rows(E, 0, bound), grow(es, 0, bound),
                                        grow(by_sym, 0, bound))
                    if uf + 2 * bound > finals.shape[0]:
                        finals = grow_rows(finals, uf, 2 * bound)
                    if ue + K * bound > ps.shape[0]:
                        ps, pe, fits = entry_room(ps, pe, ue, K * bound, K, budget)
                        if not fits:
                            return Chart(st, lay, fin, items, finals, ps, pe, comp, OVER_BUDGET,
                                         built_fraction(order, t, nl, nr, c, cbase, ncell))
                    if K > 1 and hs.shape[0] < bound + 4 * K:
                        hs, hx = np.empty(2 * bound + 4 * K), np.empty((2 * bound + 4 * K, 3),
                                                                     np.int64)
                    work = Work(E, es, hs, hx, by_sym, start, cslot, layer_item)
                    nf, used = finish_cell(c, K, lay, items, finals, uf, ps, pe, ue, slot, work,
                                           within if prune else np.inf, cell_beam, real,
                                           c == hc, distinct)
                    if cell_beam < np.inf:
                        nf = keep_within(finals, uf, nf, ps, cell_beam, real, c == hc,
                                         complete_cap if c == hc else partial_cap, cap_margin)
                        used = compact(finals, uf, nf, ps, pe, ue)
                    fin[c, 0], fin[c, 1] = uf, nf
                    uf += nf
                    ue += used
                    if c == hc:  # the complete items a parent may attach
                        for f in range(uf - nf, uf):
                            comp[h * nsym + finals[f, 0]] = f
            # the root needs TOP; any other head's parent can only attach a phrase or a tag,
            # never an intermediate nor TOP (a grammar with TOP -> X Y builds TOP anywhere)
            done = h == root and comp[h * nsym + top] >= 0
            for f in range(fin[hc, 0], fin[hc, 0] + fin[hc, 1]):
                done = done or (h != root and real[finals[f, 0]])
            if done or not escalate or level == GLUE:
                break
            for f in range(fin[hc, 0], fin[hc, 0] + fin[hc, 1]):
                comp[h * nsym + finals[f, 0]] = -1
            # h's subtree is order[t0..t] (dependents first, a subtree's words contiguous)
            t0 = t - (hi[h] - lo[h])
            if (level == EXACT and pruned_below(order, start_mode, t0, t)
                    and exact_builds(st, g, rows, t0, t)):
                for u in range(t0, t):  # before glue: the subtree exactly, then h again
                    m = order[u]
                    mc = cbase[m] + nl[m] * (nr[m] + 1) + nr[m]
                    for f in range(fin[mc, 0], fin[mc, 0] + fin[mc, 1]):
                        comp[m * nsym + finals[f, 0]] = -1
                    start_mode[m] = EXACT
                start_mode[h] = EXACT
                ui, uf, ue = marks[t0, 0], marks[t0, 1], marks[t0, 2]
                t = t0
                redo = True
                break
            ui, uf, ue = ui0, uf0, ue0
            level += 1
        if redo:
            continue
        if not done:  # no derivation can do without this head's complete item
            level_used = -1
            break
        level_of[h] = level
        t += 1
    if level_used >= 0 and n > 0:
        level_used = level_of.max()
    return Chart(st, lay, fin, items, finals, ps, pe, comp, level_used, 1.0)


@njit(cache=True, nogil=True)
def decode_kbest(inp, K, budget=KBEST_ENTRIES, distinct=False):
    """Up to K best derivations, best first, in a chart of at most ``budget`` entries
    (K > 1): :class:`records.Derivations`, read off the chart top down. Its level is
    OVER_BUDGET (no derivation) when K derivations per item would pass the budget. With
    ``distinct``, the best of each of the K best classes of derivations that differ in more
    than unary chains of one label (:mod:`pad_engine.decoding.kbest`)."""
    chart = _chart(inp, K, budget, distinct)
    st, lay, fin, items, finals = chart.st, chart.lay, chart.fin, chart.items, chart.finals
    ps, pe, comp, level, reach = chart.ps, chart.pe, chart.comp, chart.level, chart.reach
    root, nl, nr, lptr, rptr, ldeps, rdeps, cbase = (st.root, st.nl, st.nr, st.lptr, st.rptr,
                                                     st.ldeps, st.rdeps, st.cbase)
    g = inp.grammar
    nsym, L, nb, binary, unary = g.nsym, g.max_unary + 1, g.binary.shape[0], g.binary, g.unary
    nu, glue_parent = unary.shape[0], g.glue_parent
    e0 = np.zeros(0, np.int64)
    n = inp.sentence.heads.shape[0]
    rf = comp[root * nsym + g.top] if level >= 0 else -1
    if rf < 0:
        return Derivations(np.zeros(0), np.zeros(1, np.int64), e0, e0, e0, e0, e0,
                           min(level, -1), e0, e0, reach)
    nk = finals[rf, 2]
    per = 2 * n * L + 4  # a binary or leaf node under at most U unary nodes
    kinds = np.zeros(nk * per, np.int64)
    syms = np.zeros(nk * per, np.int64)
    rules = np.full(nk * per, -1, np.int64)
    cells = np.zeros(nk * per, np.int64)
    wout = np.full(nk * per, -1, np.int64)
    refs = np.zeros(nk * per, np.int64)  # the entry a node's derivation is: same, same subtree
    offsets = np.zeros(nk + 1, np.int64)
    scores = np.zeros(nk)
    # stack of references to a derivation of a final item: (cell, final item, rank)
    st_c = np.zeros(per, np.int64)
    st_f = np.zeros(per, np.int64)
    st_r = np.zeros(per, np.int64)
    rc = cbase[root] + nl[root] * (nr[root] + 1) + nr[root]
    out = 0
    for kk in range(nk):
        scores[kk] = ps[finals[rf, 1] + kk]
        st_c[0], st_f[0], st_r[0] = rc, rf, kk
        sp = 1
        while sp > 0:
            sp -= 1
            c, f, rank = st_c[sp], st_f[sp], st_r[sp]
            A = finals[f, 0]
            layer = finals[f, 3]
            ent = finals[f, 1] + rank
            if layer < 0:  # a merged list: the entry names the layer and the rank there
                layer = pe[ent, 0]
                q = find(items, lay[c * L + layer, 0], lay[c * L + layer, 1], A)
                ent = items[q, 1] + pe[ent, 1]
            while layer > 0:  # the unary chain, top down
                r = pe[ent, 0]
                kinds[out], syms[out], rules[out], cells[out] = UNARY, A, r, c
                refs[out] = ent
                out += 1
                A = unary_child(r, unary, nb)
                layer -= 1
                q = find(items, lay[c * L + layer, 0], lay[c * L + layer, 1], A)
                ent = items[q, 1] + pe[ent, 1]
            r = pe[ent, 0]
            h = np.searchsorted(cbase, c, side="right") - 1
            syms[out], rules[out], cells[out], refs[out] = A, r, c, ent
            if r < 0:
                kinds[out], wout[out] = LEAF, h
                out += 1
                continue
            a, b = (c - cbase[h]) // (nr[h] + 1), (c - cbase[h]) % (nr[h] + 1)
            _, H, M, direction = rule_parts(r, binary, nu, nsym, glue_parent)
            if direction == 0:  # head left: a right dependent attached
                kinds[out], src, m = HEAD_LEFT, c - 1, rdeps[rptr[h] + b - 1]
            else:
                kinds[out], src, m = HEAD_RIGHT, c - nr[h] - 1, ldeps[lptr[h] + a - 1]
            out += 1
            hf = find(finals, fin[src, 0], fin[src, 1], H)
            mcell = cbase[m] + nl[m] * (nr[m] + 1) + nr[m]
            mf = comp[m * nsym + M]
            # push the right child first so that the left one is emitted next (pre-order)
            if direction == 0:
                st_c[sp], st_f[sp], st_r[sp] = mcell, mf, pe[ent, 2]
                st_c[sp + 1], st_f[sp + 1], st_r[sp + 1] = src, hf, pe[ent, 1]
            else:
                st_c[sp], st_f[sp], st_r[sp] = src, hf, pe[ent, 1]
                st_c[sp + 1], st_f[sp + 1], st_r[sp + 1] = mcell, mf, pe[ent, 2]
            sp += 2
        offsets[kk + 1] = out
    ends = np.empty(out, np.int64)
    for q in range(out - 1, -1, -1):  # the end of each node's pre-order slice
        if kinds[q] == LEAF:
            ends[q] = q + 1
        elif kinds[q] == UNARY:
            ends[q] = ends[q + 1]
        else:
            ends[q] = ends[ends[q + 1]]
    return Derivations(scores, offsets, kinds[:out], syms[:out], rules[:out], cells[:out],
                       wout[:out], level, refs[:out], ends, reach)


def decode(inp) -> Derivation:
    """The best derivation (:class:`records.Derivation`; a chart without a budget). Plain
    Python over :func:`decode_kbest`: a compiled entry of its own would compile and optimize
    the chart a second time (31 s of CPU on a first start, besides k-best's 43 s)."""
    d = decode_kbest(inp, 1, KBEST_ENTRIES, False)  # every argument given: one compile
    score = float(d.scores[0]) if d.scores.shape[0] else -np.inf
    return Derivation(score, d.kinds, d.syms, d.rules, d.cells, d.words, d.level)


@njit(cache=True)
def cache_probe():
    """Nothing: its compile is nearly free, and whether Numba loaded it from the cache
    (``cache_probe.stats.cache_hits``) says whether this module's kernels were cached for
    its current source, or a first start will compile them (a minute on two busy cores)."""
    return 0


@njit(cache=True, nogil=True)
def derivation_features(inp, kinds, rules, cells, out):
    """Feature indices of every production of a derivation (pre-order node arrays).
    Returns how many were written to ``out``."""
    s, g = inp.sentence, inp.grammar
    st = sentence_structure(s.heads)
    nr, lptr, rptr, ldeps, rdeps, lo, hi, cbase = (st.nr, st.lptr, st.rptr, st.ldeps, st.rdeps,
                                                   st.lo, st.hi, st.cbase)
    ctx = binary_context_array(s.rel_ids, s.spans)
    uctx = unary_context_array(s.spans)
    nb, nu = g.binary.shape[0], g.unary.shape[0]
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
        i, j = cell_span(h, a, b, lptr, rptr, ldeps, rdeps, lo, hi)
        if kind == UNARY:
            unary_context(i, j, h, s.words, s.tags, s.rel_ids, s.spans, uctx)
            key = (g.unary_key[r - nb] if r - nb < nu else
                   unary_rule_key(g.sym_key, g.top, unary_child(r, g.unary, nb)))
            pos = unary_indices(uctx, key, inp.mask, out, pos)
            continue
        if kind == HEAD_LEFT:
            m = rdeps[rptr[h] + b - 1]
            k = lo[m] - 1
        else:
            m = ldeps[lptr[h] + a - 1]
            k = hi[m]
        binary_context(i, k, j, h, m, s.words, s.tags, s.rel_ids, s.spans, ctx)
        A, H, M, direction = rule_parts(r, g.binary, nu, g.nsym, g.glue_parent)
        if r < nb:
            kr, kh, km = g.rule_key[r, 0], g.rule_key[r, 1], g.rule_key[r, 2]
        else:
            kr, kh, km = binary_rule_keys(g.sym_key, A, H, M, direction)
        pos = binary_indices(ctx, kr, g.parent_key[A], kh, km, inp.mask, out, pos)
    return pos
