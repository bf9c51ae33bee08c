"""Labels on a treebank of another language (Dutch Alpino): both sides of every tree read,
and the measured order of the approaches holds (``pad_engine/learning/label_bench.py``)."""

from __future__ import annotations

import pytest
from conftest import SHARED_DATA

from pad_engine.trees.lextree import induced_heads

ALPINO = SHARED_DATA / "nltk-multilingual" / "alpino" / "alpino.xml"


@pytest.fixture(scope="module")
def alpino():
    from pad_engine.learning.label_bench import read_alpino

    if not ALPINO.exists():
        pytest.skip("needs the shared treebank data at shared/data/nltk-multilingual/alpino "
                    "(absent)")
    return read_alpino(str(ALPINO))


def test_every_alpino_tree_becomes_a_consistent_pair(alpino):
    trees, problems = alpino
    assert len(trees) == 7136
    assert not problems
    for t in trees:
        n = len(t.sentence.forms)
        assert [p.word for p in t.tree.preterminals()] == list(range(n))  # contiguous
        assert induced_heads(t.tree, n) == t.sentence.heads
    # the data README counts 3,459 sentences discontinuous beyond punctuation gaps
    assert sum(t.raised > 0 for t in trees) == 3459


def test_a_retrained_model_beats_learned_labels_which_beat_english_ones(alpino):
    from pad_engine.learning.label_bench import label_table

    trees, _ = alpino
    table = label_table(trees[:1300], sizes=(20,), test_size=300, draws=1)
    ptb, ud = table["rules, ptb labels"], table["rules, ud-generic labels"]
    learned, pad = table["learned mapping, 20 trees"], table["PAD model, 20 trees"]
    assert ptb.labeled == ud.labeled == 0.0
    assert ptb.unlabeled == ud.unlabeled
    assert table["rules, alpino-dutch labels"].labeled > 50
    assert pad.labeled > learned.labeled > 50
    assert pad.unlabeled > learned.unlabeled
