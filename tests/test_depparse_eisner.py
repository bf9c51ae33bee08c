"""Eisner's decoder with sibling and stop parts against brute force: every single-rooted projective
tree of short sentences enumerated, the decoder's tree must score the maximum under random
weights, with and without arcs pruned by the tag-pair filter."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from pad_engine.parsing.arcs import (
    FILTER_BITS,
    MAX_SIB_FEATURES,
    MAX_STOP_FEATURES,
    NEG,
    arc_scores,
    outermost,
    sibling_score,
    siblings,
    stop_features,
)
from pad_engine.parsing.eisner import eisner2
from pad_engine.parsing.features import slot
from pad_engine.trees.deptree import is_projective, tree_problem

MASK = (1 << 12) - 1


def projective_trees(n: int) -> list[tuple[int, ...]]:
    """All single-rooted projective trees over n words."""
    return [heads for heads in itertools.product(range(n + 1), repeat=n)
            if tree_problem(list(heads)) is None and is_projective(list(heads))]


def tree_score(scores, arr, weights, heads) -> float:
    """Arc, sibling and stop scores of a tree (NEG if it uses a pruned arc); the root has
    no left side."""
    heads = np.asarray(heads, np.int64)
    if any(scores[h, m] <= NEG / 2 for m, h in enumerate(heads, 1)):
        return NEG
    sib = siblings(heads)
    feats = np.empty(MAX_SIB_FEATURES, np.int64)
    total = sum(scores[h, m] + sibling_score(h, sib[m - 1], m, arr, weights, MASK, feats)
                for m, h in enumerate(heads, 1))
    last = outermost(heads)
    sfeats = np.empty(MAX_STOP_FEATURES, np.int64)
    for h in range(len(heads) + 1):
        for d in (1, 2) if h else (1,):
            k = stop_features(h, last[h, d - 1], d, arr, sfeats)
            total += sum(weights[slot(key, MASK)] for key in sfeats[:k])
    return float(total)


def random_sentence(n: int, rng) -> np.ndarray:
    arr = rng.integers(16, 24, (6, n + 1)).astype(np.int64)  # few atoms: shared features
    arr[3] = rng.integers(0, 4, n + 1)
    arr[:, 0] = 3
    arr[3, 0] = 0
    return arr


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6])
@pytest.mark.parametrize("pruned", [False, True])
def test_the_decoder_finds_the_best_projective_tree(n, pruned):
    trees = projective_trees(n)
    rng = np.random.default_rng(n + 10 * pruned)
    for _ in range(20 if n < 6 else 6):
        arr = random_sentence(n, rng)
        weights = rng.normal(0, 1, MASK + 1)
        table = (rng.integers(0, 3, 1 << FILTER_BITS) if pruned
                 else np.full(1 << FILTER_BITS, 99)).astype(np.int64)
        scores = arc_scores(arr, weights, MASK, table)
        best = max(tree_score(scores, arr, weights, t) for t in trees)
        heads = eisner2(scores, arr, weights, MASK)
        assert tuple(heads) in set(trees)
        assert tree_score(scores, arr, weights, heads) == pytest.approx(best)


def test_siblings_are_the_nearest_inner_dependents():
    # words 1, 2 and 4 hang from 3 (1 and 2 on its left, 4 on its right); 5 from 4
    heads = np.array([3, 3, 0, 3, 4], np.int64)
    assert siblings(heads).tolist() == [2, 3, 0, 3, 4]


def test_outermost_dependents_on_each_side():
    # words 1, 2 and 4 hang from 3; 5 from 4: 3's outermost are 4 (right) and 1 (left)
    last = outermost(np.array([3, 3, 0, 3, 4], np.int64))
    assert last.tolist() == [[3, 0], [1, 1], [2, 2], [4, 1], [5, 4], [5, 5]]


def test_one_root_even_when_the_root_prefers_many():
    arr = random_sentence(4, np.random.default_rng(0))
    weights = np.zeros(MASK + 1)
    scores = np.zeros((5, 5))
    scores[0, 1:] = 10.0  # every word would rather hang from the root
    heads = eisner2(scores, arr, weights, MASK)
    assert list(heads).count(0) == 1


def test_the_count_of_projective_trees_is_right():
    # single-rooted projective trees over n words: 1, 2, 7, 30, 143 (OEIS A006013)
    assert [len(projective_trees(n)) for n in range(1, 6)] == [1, 2, 7, 30, 143]
