"""One pass per sentence: a head the pruned search leaves without a complete phrase
is redone exactly, then with glue rules the decoder makes up, instead of decoding the whole
sentence three times; and the pruned search's beam."""

from __future__ import annotations

import random

import numpy as np
import pytest
from toy import enumerate_parses, random_projective

from pad_engine.decoding import decoder
from pad_engine.decoding.parser import Parser, chart_inputs
from pad_engine.decoding.tables import keep_within
from pad_engine.trees.lextree import induced_heads, to_line

TAGS = ["DT", "NN", "NN", "VBD", "VBD", "IN", "JJ", "RB"]


def _uncovered(model, count: int, seed: int = 4):
    """Random sentences the model's grammar cannot derive (no learned tree at all)."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        n = rng.randint(2, 7)
        heads = random_projective(n, rng)
        tags = [rng.choice(TAGS) for _ in range(n)]
        if not enumerate_parses(model, tags, heads):
            found.append(([f"w{len(found)}_{i}" for i in range(n)], tags, heads))
    return found


def test_a_sentence_outside_the_grammar_gets_glue_only_where_needed(random_model):
    """One escalating pass derives it: glue rules (ids past the learned ones) beside learned
    ones, a tree consistent with the d-parse and its tags, reported as "glue"."""
    parser = Parser(random_model)
    g = random_model.packed()
    learned = g.binary.shape[0] + g.unary.shape[0]
    for forms, tags, heads in _uncovered(random_model, 40):
        enc = parser.encode_checked(forms, tags, heads)
        for mode in (decoder.PRUNED, decoder.EXACT):
            _score, kinds, _syms, rules, _cells, _words, level = decoder.decode(
                chart_inputs(random_model, enc, mode, escalate=True))
            assert level == decoder.GLUE
            assert kinds.shape[0] > 0
            assert (rules >= learned).any()
            assert (rules[kinds > 0] < learned).any()
        parse = parser.parse(forms, tags, heads)
        assert parse.how == "glue"
        assert induced_heads(parse.tree, len(forms)) == heads
        assert [p.label for p in parse.tree.preterminals()] == tags


def test_without_escalation_an_uncovered_sentence_has_no_derivation(random_model):
    parser = Parser(random_model)
    for forms, tags, heads in _uncovered(random_model, 10, seed=9):
        enc = parser.encode_checked(forms, tags, heads)
        for mode in (decoder.PRUNED, decoder.EXACT):
            *_, level = decoder.decode(chart_inputs(random_model, enc, mode))
            assert level == -1
        *_, level = decoder.decode(chart_inputs(random_model, enc, decoder.GLUE))
        assert level == decoder.GLUE


def test_kbest_lists_of_uncovered_sentences_are_distinct_consistent_trees(random_model):
    parser = Parser(random_model)
    for forms, tags, heads in _uncovered(random_model, 20, seed=5):
        cands = parser.kbest(forms, tags, heads, 8)
        lines = [to_line(c.tree, forms) for c in cands]
        assert len(set(lines)) == len(lines) >= 1
        assert all(c.how == "glue" for c in cands)
        assert [c.score for c in cands] == sorted((c.score for c in cands), reverse=True)
        for c in cands:
            assert induced_heads(c.tree, len(forms)) == heads


@pytest.mark.parametrize("complete", [False, True])
def test_the_beam_keeps_what_scores_near_the_best(complete):
    """A cell's final items (symbol, first entry, entries, layer) with their best scores:
    those more than the beam below the best are dropped, in order; in a complete cell only
    phrases and tags count (an intermediate symbol cannot be attached by a parent)."""
    real = np.array([True, True, False, True])
    finals = np.array([[0, 0, 1, 0], [1, 1, 1, 0], [2, 2, 1, 0], [3, 3, 1, 0]], np.int32)
    ps = np.array([1.0, -3.5, 9.0, -5.0])
    kept = keep_within(finals, 0, 4, ps, 5.0, real, complete, decoder.NO_CAP, 0.0)
    if complete:  # best phrase 1.0: keeps 0 and 1, drops the intermediate and symbol 3
        assert finals[:kept, 0].tolist() == [0, 1]
    else:  # best 9.0 (the intermediate): keeps only what is within 5 of it
        assert finals[:kept, 0].tolist() == [2]


@pytest.mark.parametrize("complete", [False, True])
def test_the_cap_keeps_the_items_of_the_best_scores(complete):
    """With a cap, a cell keeps, in order, beyond ``margin`` below its best only its items of
    the ``cap`` best distinct scores within the beam (items that tie keep together); in a
    complete cell only phrases and tags are ranked and kept."""
    real = np.array([True, True, False, True, True, True])
    ps = np.array([4.0, 2.0, 9.0, 4.0, 3.0, -20.0])

    def kept(cap: int, margin: float) -> list[int]:
        finals = np.array([[s, s, 1, 0] for s in range(6)], np.int32)
        return finals[:keep_within(finals, 0, 6, ps, 15.0, real, complete, cap, margin), 0
                      ].tolist()

    if complete:  # phrases 4.0 (twice) and 3.0 are the two best scores; -20 is off the beam
        assert kept(2, 0.0) == [0, 3, 4]
        assert kept(1, 0.0) == kept(1, 0.5) == [0, 3]
        assert kept(1, 2.0) == [0, 1, 3, 4]  # all within 2 of the best phrase
    else:  # 9.0 and 4.0 (twice)
        assert kept(2, 0.0) == [0, 2, 3]
        assert kept(1, 0.0) == [2]
        assert kept(1, 5.0) == [0, 2, 3]
    assert kept(6, 0.0) == ([0, 1, 3, 4] if complete else [0, 1, 2, 3, 4])


def test_a_grammar_without_rules_falls_back_to_the_flat_projection():
    """No learned rule and no phrase for glue to build: every path gives the flat tree."""
    from pad_engine.decoding.model import Model

    parser = Parser(Model())
    forms, tags, heads = ["a", "b", "c"], ["DT", "NN", "VBD"], [2, 3, 0]
    assert parser.parse(forms, tags, heads).how == "fallback"
    cands = parser.kbest(forms, tags, heads, 5)
    assert [c.how for c in cands] == ["fallback"]
    assert parser.parse_line(forms, tags, heads) == (
        to_line(parser.parse(forms, tags, heads).tree, forms), "fallback")


def test_a_head_that_only_builds_top_is_escalated():
    """A grammar with TOP over several phrases (FarPaHC joins trees into one sentence: TOP ->
    S FRAG) builds TOP inside a sentence too. A head whose complete cell has only TOP is not
    done (its parent cannot attach TOP), so it escalates to glue rather than leave its parent
    with nothing to attach and the sentence flat (as 12 of 95 FarPaHC held-out
    sentences were)."""
    from nltk import Tree
    from toy import TREES, toy_heads

    from pad_engine.learning.train import example_from_lextree, train
    from pad_engine.trees.lextree import from_penn

    examples = []
    for line in [*TREES, "(TOP (S (VP (VBD ran))) (FRAG (UH oh)))"]:
        t = Tree.fromstring(line)
        examples.append(example_from_lextree(from_penn(t, toy_heads(t)), t.leaves()))
    model = train(examples, epochs=0, bits=14, backoff=False)
    model.weights = np.random.default_rng(7).normal(0, 1, model.weights.shape).astype(
        np.float32)
    parser = Parser(model)
    # "oh" depends on "ran" (only TOP -> S FRAG attaches it), "ran" on "in"
    forms, tags, heads = ["in", "ran", "oh"], ["IN", "VBD", "UH"], [0, 1, 2]
    for prune in (True, False):
        parse = parser.parse(forms, tags, heads, prune=prune)
        assert parse.how == "glue"
        assert induced_heads(parse.tree, 3) == heads
        assert parser.parse_line(forms, tags, heads, prune=prune) == (
            to_line(parse.tree, forms), "glue")
        cands = parser.kbest(forms, tags, heads, 3, prune=prune)
        assert cands
        assert all(c.how == "glue" for c in cands)


def test_glue_builds_a_phrase_over_a_tag_whose_projection_is_top():
    """A tag that projects TOP in training (or in a model file) would give glue only TOP over
    it, which nothing attaches: glue builds the grammar's common phrase instead."""
    from toy import toy_examples

    from pad_engine.learning.train import train

    model = train(toy_examples(), epochs=0, bits=14, backoff=False)
    model.projections = {tag: "TOP" for tag in model.grammar.tags}
    model.invalidate()
    parser = Parser(model)
    for forms, tags, heads in _uncovered(model, 10, seed=3):
        parse = parser.parse(forms, tags, heads)
        assert parse.how == "glue"
        assert induced_heads(parse.tree, len(forms)) == heads


def test_glue_only_where_exact_decoding_needs_it():
    """"dog can" is an S only by S -> NP VP*, whose head side pruning allows to VBD, not MD:
    pruned, "can" builds only NP (NP -> NN MD*), which "that" cannot attach. Exact rules
    alone at "that" cannot either; before glue, the head's subtree is decoded again exactly,
    so the pruned pass finds the exact tree instead of gluing (FarPaHC held-out, no back-off:
    35 of 95 sentences glued, of which 7 need it; F1 73.91 -> 74.41)."""
    from nltk import Tree
    from toy import toy_heads

    from pad_engine.learning.train import example_from_lextree, train
    from pad_engine.trees.lextree import from_penn

    examples = []
    for line in ["(TOP (S (NP (NN dog)) (VP (VBD ran))))", "(TOP (S (VP (MD can))))",
                 "(TOP (SBAR (IN that) (S (VP (VBD ran)))))", "(TOP (NP (NN dog) (MD can)))"]:
        t = Tree.fromstring(line)
        examples.append(example_from_lextree(from_penn(t, toy_heads(t)), t.leaves()))
    model = train(examples, epochs=0, bits=14, backoff=False)
    parser = Parser(model)
    forms, tags, heads = ["that", "dog", "can"], ["IN", "NN", "MD"], [0, 3, 1]
    exact = parser.parse(forms, tags, heads, prune=False)
    assert exact.how == "exact"
    pruned = parser.parse(forms, tags, heads)
    assert (pruned.how, to_line(pruned.tree, forms)) == ("exact", to_line(exact.tree, forms))
    assert "(S (NP (NN dog)) (VP (MD can)))" in to_line(pruned.tree, forms)
    assert next(c.how for c in parser.kbest(forms, tags, heads, 3)) == "exact"


def test_pad_convert_says_how_many_sentences_are_flat_and_why(tmp_path, capsys):
    """The one grammar glue cannot use, one without phrases (trained on "(TOP (NN dog))"):
    its sentences are flat, and pad convert says how many and why."""
    from nltk import Tree
    from toy import toy_heads

    from pad_engine.cli import main
    from pad_engine.decoding.parser import FALLBACK_WHY
    from pad_engine.learning.train import example_from_lextree, train
    from pad_engine.trees.lextree import from_penn

    t = Tree.fromstring("(TOP (NN dog))")
    model = train([example_from_lextree(from_penn(t, toy_heads(t)), t.leaves())], epochs=0,
                  bits=12, backoff=False)
    model.save(tmp_path / "m.padmodel")
    conll = tmp_path / "in.conll"
    conll.write_text("1\tCats\t_\tNN\tNN\t_\t2\t_\t_\t_\n2\tsleep\t_\tVBP\tVBP\t_\t0\t_\t_\t_\n\n"
                     "1\tdog\t_\tNN\tNN\t_\t0\t_\t_\t_\n\n")
    out = tmp_path / "out.mrg"
    assert main(["convert", str(conll), "-o", str(out), "--model",
                 str(tmp_path / "m.padmodel")]) == 0
    assert out.read_text().splitlines() == ["(TOP (X (NN Cats) (VBP sleep)))", "(TOP (NN dog))"]
    assert (f"2 of 2 sentences converted (1 by the flat fallback: {FALLBACK_WHY})"
            in capsys.readouterr().err)
    # pad train --hold-out counts them too
    from pad_engine.learning.pairs import Pair, score_pairs

    pair = Pair(["Cats", "sleep"], ["NN", "VBP"], [2, 0],
                Tree.fromstring("(TOP (S (NP (NN Cats)) (VP (VBP sleep))))"), "test")
    assert score_pairs(model, [pair]).flat == 1


def test_no_sentence_is_flat_under_random_grammars():
    """Random small grammars, a third of their trees two phrases under one TOP, with random
    weights, and random d-parses: glue derives every projective d-parse of a grammar that
    has a phrase, so no sentence comes out flat, pruned or exact, 1-best or k-best; and the
    pruned pass glues only where the exact one does."""
    from toy import RANDOM_TAGS, random_treebank

    from pad_engine.learning.train import train

    rng = random.Random(11)
    glued = 0
    for _ in range(30):
        model = train(random_treebank(rng, 6, joined=0.3), epochs=0, bits=12, backoff=False)
        model.weights = np.random.default_rng(rng.randrange(1000)).normal(
            0, 1, model.weights.shape).astype(np.float32)
        parser = Parser(model)
        for _ in range(20):
            n = rng.randint(1, 8)
            heads = random_projective(n, rng)
            tags = [rng.choice([*RANDOM_TAGS, "JJ"]) for _ in range(n)]
            forms = [f"w{i}" for i in range(n)]
            for prune in (True, False):
                parse = parser.parse(forms, tags, heads, prune=prune)
                assert parse.how != "fallback", (tags, heads)
                assert induced_heads(parse.tree, n) == heads
                assert parser.kbest(forms, tags, heads, 3, prune=prune)[0].how != "fallback"
            enc = parser.encode_checked(forms, tags, heads)
            pruned, exact = (decoder.decode(chart_inputs(model, enc, mode, escalate=True))[-1]
                             for mode in (decoder.PRUNED, decoder.EXACT))
            assert pruned != decoder.GLUE or exact == decoder.GLUE
            glued += exact == decoder.GLUE
    assert glued > 50
