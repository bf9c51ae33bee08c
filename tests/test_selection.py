"""The next sentence worth correcting: margins, the least-sure order, simulated annotation."""

from __future__ import annotations

import math

import pytest
from toy import toy_examples

from pad_engine.learning import selection
from pad_engine.learning.selection import least_sure, margins, simulate


def test_margins_are_per_word_score_gaps_of_the_two_best_trees(toy_model):
    from pad_engine.decoding.parser import Parser

    examples = toy_examples()
    got = margins(toy_model, examples)
    parser = Parser(toy_model)
    for ex, m in zip(examples, got):
        best = parser.kbest(ex.forms, ex.tags, ex.heads, 2, rels=ex.rels)
        if len(best) < 2:
            assert m == math.inf
        else:
            assert m == pytest.approx((best[0].score - best[1].score) / len(ex.forms))
            assert m >= 0


def test_least_sure_puts_short_sentences_first_then_by_margin(toy_model, monkeypatch):
    examples = toy_examples()
    m = margins(toy_model, examples)
    order = least_sure(toy_model, examples, len(examples))
    assert sorted(order) == list(range(len(examples)))
    keys = [(len(examples[i].forms) > selection.SHORT, m[i], i) for i in order]
    assert keys == sorted(keys)
    monkeypatch.setattr(selection, "SHORT", 0)  # every sentence is "long": margin alone
    assert [m[i] for i in least_sure(toy_model, examples, 3)] == sorted(m)[:3]


def test_simulated_annotation_counts_sentences_and_words(toy_model):
    examples = toy_examples()
    pool, test = examples[:-2], examples[-2:]
    runs = {order: simulate(pool, test, [2, 4], order) for order in selection.ORDERS}
    for steps in runs.values():
        assert [s.sentences for s in steps] == [2, 4]
        assert all(0 <= s.f1 <= 100 for s in steps)
    seq = runs["sequential"]
    assert seq[1].words == sum(len(ex.forms) for ex in pool[:4])
    with pytest.raises(ValueError, match="order must be one of"):
        simulate(pool, test, [2], "random")
