"""Decoding and averaged online training of the arc model (perceptron or passive-aggressive
steps): arc scores (pruned by the tag-pair filter), Eisner's decoder with sibling and stop
parts, cost-augmented training decodes."""

from __future__ import annotations

import numpy as np

from pad_engine.jit import njit
from pad_engine.parsing.arcs import (
    A_TAG,
    MAX_ARC_FEATURES,
    MAX_SIB_FEATURES,
    MAX_STOP_FEATURES,
    arc_features,
    arc_scores,
    between_base,
    class_counts,
    outermost,
    sibling_features,
    sibling_score,
    siblings,
    stop_features,
    summed,
)
from pad_engine.parsing.eisner import eisner2
from pad_engine.parsing.features import mix, slot


@njit(cache=True, nogil=True)
def parse_arrays(arr, weights, mask, table):
    """The best projective tree of one sentence's arrays."""
    return eisner2(arc_scores(arr, weights, mask, table), arr, weights, mask)


@njit(cache=True, nogil=True)
def _move(keys, k, sign, weights, total, mask, step):
    for j in range(k):
        q = slot(keys[j], mask)
        weights[q] += sign
        total[q] += sign * step


@njit(cache=True, nogil=True)
def _move_arc(h, m, arr, counts, sign, weights, total, mask, step, feats):
    _move(feats, arc_features(h, m, arr, counts, feats), sign, weights, total, mask, step)
    base = between_base(h, m, arr)
    a, b = (h, m) if h < m else (m, h)
    for i in range(a + 1, b):
        q = slot(mix(base, arr[A_TAG, i]), mask)
        weights[q] += sign
        total[q] += sign * step


@njit(cache=True, nogil=True)
def train_epoch(arrays, starts, heads, order, weights, total, mask, step, cost, table,
                clip=0.0):
    """One pass: decode each sentence with ``cost`` added to every wrong arc, and where it
    errs move the weights toward its gold parts; returns (wrong arcs, new step). With
    ``clip`` > 0 the move is passive-aggressive (PA-I): just enough to score the gold tree
    above the prediction by its cost, at most ``clip``; else a perceptron step of 1."""
    feats = np.empty(MAX_ARC_FEATURES, np.int64)
    sfeats = np.empty(MAX_SIB_FEATURES, np.int64)
    tfeats = np.empty(MAX_STOP_FEATURES, np.int64)
    wrong = 0
    for s in order:
        a, b = starts[s], starts[s + 1]
        arr = arrays[:, a:b]
        gold = heads[a - s:b - s - 1]
        counts = class_counts(arr)
        scores = arc_scores(arr, weights, mask, table)
        for m in range(1, b - a):
            for h in range(b - a):
                if h != gold[m - 1] and scores[h, m] > -1e29:
                    scores[h, m] += cost
        pred = eisner2(scores, arr, weights, mask)
        gsib, psib = siblings(gold), siblings(pred)
        glast, plast = outermost(gold), outermost(pred)
        tau = 1.0
        if clip > 0.0:
            loss, norm = 0.0, 0.0
            for m in range(1, b - a):
                g, p = gold[m - 1], pred[m - 1]
                if g != p:
                    loss += scores[p, m] - scores[g, m]
                    norm += 2.0 * (MAX_ARC_FEATURES + abs(g - m) + abs(p - m))
                if g != p or gsib[m - 1] != psib[m - 1]:
                    loss += (sibling_score(p, psib[m - 1], m, arr, weights, mask, sfeats)
                             - sibling_score(g, gsib[m - 1], m, arr, weights, mask, sfeats))
                    norm += 2.0 * MAX_SIB_FEATURES
            for h in range(b - a):
                for d in range(2):
                    if glast[h, d] != plast[h, d]:
                        loss += (summed(tfeats, stop_features(h, plast[h, d], d + 1, arr,
                                                              tfeats), weights, mask)
                                 - summed(tfeats, stop_features(h, glast[h, d], d + 1, arr,
                                                                tfeats), weights, mask))
                        norm += 2.0 * MAX_STOP_FEATURES
            tau = min(clip, max(loss, 0.0) / norm) if norm > 0.0 else 0.0
        for m in range(1, b - a):
            g, p = gold[m - 1], pred[m - 1]
            if g != p:
                wrong += 1
                _move_arc(g, m, arr, counts, tau, weights, total, mask, step, feats)
                _move_arc(p, m, arr, counts, -tau, weights, total, mask, step, feats)
            if g != p or gsib[m - 1] != psib[m - 1]:
                _move(sfeats, sibling_features(g, gsib[m - 1], m, arr, sfeats), tau, weights,
                      total, mask, step)
                _move(sfeats, sibling_features(p, psib[m - 1], m, arr, sfeats), -tau, weights,
                      total, mask, step)
        for h in range(b - a):
            for d in range(2):
                if glast[h, d] != plast[h, d]:
                    _move(tfeats, stop_features(h, glast[h, d], d + 1, arr, tfeats), tau,
                          weights, total, mask, step)
                    _move(tfeats, stop_features(h, plast[h, d], d + 1, arr, tfeats), -tau,
                          weights, total, mask, step)
        step += 1.0
    return wrong, step
