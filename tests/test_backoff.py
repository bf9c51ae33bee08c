"""The back-off grammar of a model trained on few trees: every chain the binarization can
build from a head child seen heading a phrase may attach every modifier seen in it."""

from __future__ import annotations

from toy import toy_examples

from pad_engine.decoding.grammar import LEFT_ATTACH, RIGHT_ATTACH
from pad_engine.learning.train import add_backoff_rules, train


def _rules(grammar) -> set[tuple[str, str, str, int]]:
    name = grammar.symbols
    return {(name[a], name[h], name[m], d) for a, h, m, d in grammar.binary}


def test_every_chain_of_a_seen_head_child_attaches_every_seen_modifier():
    # the toy trees attach PP to an NP headed by NP, and DT/JJ on the left of NN-headed NPs;
    # never a PP straight to an NN-headed NP, on either side
    grammar = train(toy_examples(), epochs=0, bits=12).grammar
    seen = _rules(grammar)
    assert ("@NP>", "NN", "PP", RIGHT_ATTACH) not in seen
    assert ("NP", "NN", "PP", LEFT_ATTACH) not in seen
    added = add_backoff_rules(grammar)
    rules = _rules(grammar)
    assert added > 0
    assert seen < rules
    for rule in [("@NP>", "NN", "PP", RIGHT_ATTACH), ("NP", "NN", "PP", RIGHT_ATTACH),
                 ("NP", "NN", "PP", LEFT_ATTACH), ("@NP<", "@NP>", "DT", LEFT_ATTACH),
                 ("NP", "@NP<", "JJ", LEFT_ATTACH)]:
        assert rule in rules, rule
    # never a right attachment above a left one: each Penn tree keeps one derivation
    assert not any(a == "NP" and h == "@NP<" and d == RIGHT_ATTACH for a, h, _, d in rules)
    assert not any(a == "@NP>" and d == LEFT_ATTACH for a, _, _, d in rules)
