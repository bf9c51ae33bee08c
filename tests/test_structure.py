"""The projectivity check in plain Python (what a first start uses before anything is
compiled) and the compiled one the decoder uses give the same answers."""

from __future__ import annotations

import random

import numpy as np

from pad_engine.trees import structure
from pad_engine.trees.structure import is_projective_tree, projective_tree, sentence_structure


def test_the_plain_and_the_compiled_check_agree(monkeypatch):
    rng = random.Random(7)
    heads = [np.array([rng.randint(-1, n - 1) for _ in range(n)], np.int64)
             for n in (rng.randint(1, 9) for _ in range(20000))]
    for h in heads[::10]:  # out of range, and two roots
        h[rng.randrange(h.shape[0])] = rng.choice([-2, h.shape[0], h.shape[0] + 3])
    compiled = [bool(sentence_structure(h).ok) for h in heads]
    assert 1000 < sum(compiled) < len(heads) - 1000
    projective_tree(heads[0])  # loaded: the compiled check answers
    assert [is_projective_tree(h) for h in heads] == compiled
    monkeypatch.setattr(structure, "projective_tree", lambda h: None)  # not loaded yet
    assert [is_projective_tree(h) for h in heads] == compiled
    assert [is_projective_tree(h.tolist()) for h in heads] == compiled
    assert not is_projective_tree([])
