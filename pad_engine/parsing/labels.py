"""Dependency labels (DEPREL) for a parsed tree: a multi-class averaged perceptron over
hashed features of each arc (head, dependent, their neighbours, direction, length, the
head's own head), one label per arc given the tree, as the UD PAD model reads them."""

from __future__ import annotations

import numpy as np

from pad_engine.jit import njit
from pad_engine.parsing.features import BOS, EOS, best_class, mix, move_classes

MAX_LABEL_FEATURES = 24


@njit(cache=True, nogil=True)
def label_features(m, heads, arr, out):
    """Feature keys of word m's arc in the tree ``heads`` (heads[m - 1] = head of m)."""
    n = arr.shape[1] - 1
    h = heads[m - 1]
    g = heads[h - 1] if h > 0 else 0
    hw, ht = arr[0, h], arr[1, h]
    mw, mt = arr[0, m], arr[1, m]
    gt = arr[1, g] if h > 0 else BOS
    ml = arr[1, m - 1] if m >= 2 else BOS
    mr = arr[1, m + 1] if m < n else EOS
    d = 1 if h < m else 2
    dist = abs(h - m)
    dist = dist if dist < 6 else 6 + (dist > 10)
    # the dependent's nearest children on each side, by tag
    lc, rc = BOS, EOS
    for c in range(m - 1, 0, -1):
        if heads[c - 1] == m:
            lc = arr[1, c]
            break
    for c in range(m + 1, n + 1):
        if heads[c - 1] == m:
            rc = arr[1, c]
            break
    out[0] = mix(1, 0)
    out[1] = mix(2, mt)
    out[2] = mix(3, mw)
    out[3] = mix(mix(4, mw), mt)
    out[4] = mix(mix(5, ht), d)
    out[5] = mix(mix(6, hw), d)
    out[6] = mix(mix(mix(7, ht), mt), d)
    out[7] = mix(mix(mix(8, hw), mt), d)
    out[8] = mix(mix(mix(9, ht), mw), d)
    out[9] = mix(mix(mix(10, mt), d), dist)
    out[10] = mix(mix(mix(mix(11, ht), mt), d), dist)
    out[11] = mix(mix(mix(12, mt), ml), mr)
    out[12] = mix(mix(mix(13, ht), mt), gt)
    out[13] = mix(mix(mix(14, mt), lc), rc)
    out[14] = mix(mix(mix(15, mt), lc), d)
    out[15] = mix(mix(mix(16, mt), rc), d)
    out[16] = mix(mix(mix(mix(17, ht), mt), lc), rc)
    out[17] = mix(mix(18, h == 0), mt)
    out[18] = mix(mix(mix(19, mw), hw), d)
    return 19


@njit(cache=True, nogil=True)
def predict_labels(heads, arr, weights, mask, nlabels):
    """The best label index of each word's arc."""
    n = heads.shape[0]
    feats = np.empty(MAX_LABEL_FEATURES, np.int64)
    scores = np.empty(nlabels, np.float64)
    out = np.empty(n, np.int64)
    for m in range(1, n + 1):
        out[m - 1] = _best(m, heads, arr, weights, mask, feats, scores)[0]
    return out


@njit(cache=True, nogil=True)
def _best(m, heads, arr, weights, mask, feats, scores):
    k = label_features(m, heads, arr, feats)
    return best_class(feats, k, weights, mask, scores), k


@njit(cache=True, nogil=True)
def label_epoch(arrays, starts, heads, labels, order, weights, total, mask, nlabels, step):
    """One perceptron pass over the gold arcs of the sentences in ``order``; returns
    (errors, new step)."""
    feats = np.empty(MAX_LABEL_FEATURES, np.int64)
    scores = np.empty(nlabels, np.float64)
    errors = 0
    for s in order:
        a, b = starts[s], starts[s + 1]
        arr = arrays[:, a:b]
        sent_heads = heads[a - s:b - s - 1]
        gold = labels[a - s:b - s - 1]
        for m in range(1, b - a):
            p, k = _best(m, sent_heads, arr, weights, mask, feats, scores)
            g = gold[m - 1]
            if p != g:
                errors += 1
                move_classes(feats, k, weights, total, mask, g, p, step)
            step += 1.0
    return errors, step
