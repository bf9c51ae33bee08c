"""Held-out bounds: the best trees consistent with a d-parse, under any grammar and under a
model's grammar, are real bounds (exact on small cases, never below what a model reaches)."""

from __future__ import annotations

from nltk import Tree

from pad_engine.decoding.parser import Parser
from pad_engine.learning.bounds import Sentence, any_oracle
from pad_engine.learning.pairs import Pair, closest_lines, pairs_f1

TAGS = ["NN", "NN", "NN"]


def test_a_consistent_gold_tree_is_reached():
    # b heads a and c: (X (Y a b) c) is consistent (b takes in a, then c)
    s = Sentence(["a", "b", "c"], TAGS, [2, 0, 2], "(TOP (X (Y (NN a) (NN b)) (NN c)))")
    assert any_oracle([s], 50.0) == (100.0, 100.0)


def test_an_inconsistent_bracket_costs_exactly_what_it_must():
    # a -> b -> c: "a b" is no constituent (b's phrase holds c), and b must project a phrase
    # over "b c" that the gold tree lacks: 1 of 2 gold brackets, 1 of 2 built -> F1 50
    s = Sentence(["a", "b", "c"], TAGS, [0, 1, 2], "(TOP (X (Y (NN a) (NN b)) (NN c)))")
    assert any_oracle([s], 10.0) == (50.0, 50.0)


def test_punctuation_only_brackets_are_free_and_unary_chains_count(random_model):
    # the gold has two labels over the same words: the bound builds both
    s = Sentence(["a", "b", ","], ["NN", "NN", ","], [2, 0, 2],
                 "(TOP (S (NP (NN a) (NN b)) (, ,)))")
    real, upper = any_oracle([s], 50.0)
    assert real == upper == 100.0
    # a model's grammar reaches at most what any grammar does
    g = Sentence(["a", "b"], ["NN", "NN"], [2, 0], "(TOP (NP (NN a) (NN b)))")
    pair = Pair(g.forms, g.tags, g.heads, Tree.fromstring(g.gold), "test")
    grammar = pairs_f1([pair], closest_lines(Parser(random_model), [pair]))
    assert 0.0 <= grammar <= any_oracle([g], 50.0)[0]
