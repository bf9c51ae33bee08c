"""The decoder against brute force: enumerate Y(x, d) on short sentences under a random model."""

from __future__ import annotations

import random

import pytest
from toy import (
    derivation_score,
    enumerate_parses,
    random_projective,
    random_sentence,
    toy_examples,
)

from pad_engine.decoding.parser import Parser
from pad_engine.trees.binarize import HEAD_RIGHT, binarize, debinarize
from pad_engine.trees.lextree import LexNode, induced_heads, to_line


@pytest.mark.parametrize("which", ["random_model", "random_backoff_model",
                                   "random_labeled_model", "random_projection_model"])
def test_decoder_matches_brute_force(which, request):
    random_model = request.getfixturevalue(which)
    rng = random.Random(3)
    tags_pool = ["DT", "NN", "NN", "VBD", "VBD", "IN", "JJ"]
    parser = Parser(random_model)
    compared = 0
    for trial in range(600):
        n = rng.randint(1, 6)
        heads = random_projective(n, rng)
        tags = [rng.choice(tags_pool) for _ in range(n)]
        rels = [rng.choice(["nsubj", "obj", "det", "_"]) for _ in range(n)]
        forms = [f"w{trial}_{i}" for i in range(n)]
        trees = enumerate_parses(random_model, tags, heads)
        result = parser.parse(forms, tags, heads, prune=False, rels=rels)
        if not trees:
            assert result.how == "glue"
            continue
        scores = [derivation_score(random_model, forms, tags, heads, t, rels) for t in trees]
        best = max(scores)
        assert result.how == "exact"
        assert result.score == pytest.approx(best, rel=1e-4, abs=1e-3)
        winner = debinarize(trees[scores.index(best)])
        assert to_line(result.tree, forms) == to_line(winner, forms)
        # the debinarized trees are all distinct Penn trees (no spurious ambiguity)
        lines = {to_line(debinarize(t), forms) for t in trees}
        assert len(lines) == len(trees)
        compared += 1
    assert compared >= 40, compared


def test_output_is_consistent_with_input(random_model):
    rng = random.Random(5)
    parser = Parser(random_model)
    for _ in range(200):
        forms, tags, heads = random_sentence(rng, ["DT", "NN", "VBD", "IN", "XX"], 12)
        for prune in (True, False):
            result = parser.parse(forms, tags, heads, prune=prune)
            assert induced_heads(result.tree, len(forms)) == heads
            assert [p.label for p in result.tree.preterminals()] == tags
            assert result.tree.label == "TOP"


def test_binarize_roundtrip_on_toy_trees():
    for ex in toy_examples():
        assert to_line(debinarize(binarize(ex.lex)), ex.forms) == to_line(ex.lex, ex.forms)


def test_flat_node_binarizes_right_first_then_left():
    leaves = [LexNode(t, [], 0, i) for i, t in enumerate(["DT", "JJ", "NN", "PP", "SBAR"])]
    node = LexNode("NP", leaves, 2, -1)
    b = binarize(node)
    # top attaches the outermost left dependent; the right ones are attached first, inside
    assert b.kind == HEAD_RIGHT
    assert b.label == "NP"
    assert b.left.label == "DT"
    assert b.right.label == "@NP<"
    assert b.right.right.label == "@NP>"
    assert b.right.right.left.label == "@NP>"
    assert b.right.right.right.label == "SBAR"
    assert induced_heads(debinarize(b), 5) == [3, 3, 0, 3, 3]


def test_bundled_model_is_consistent_on_every_ptb_test_sentence(ptb_dir):
    """The conversion's invariant on wsj_0160-0199 (518 sentences), pruned and exact: the tree
    induces exactly the input d-parse, keeps the words and tags, and reads back as Penn.
    Exact decoding never needs glue here (the model's grammar derives every test sentence);
    pruned decoding may glue a head whose dependent pruning left without the phrase it needs,
    rather than redoing the subtree (2 sentences today)."""
    from nltk import Tree

    from pad_engine.decoding.model import Model, default_model_path
    from pad_engine.learning.bench import TEST_FILES, load_split

    test = load_split(ptb_dir, TEST_FILES, "collins")
    assert len(test) == 518
    parser = Parser(Model.load(default_model_path()))
    glued = 0
    for ex in test:
        n = len(ex.forms)
        for prune in (True, False):
            parse = parser.parse(ex.forms, ex.tags, ex.heads, prune=prune)
            assert parse.how in (("pruned", "exact", "glue") if prune else ("exact",))
            glued += parse.how == "glue"
            assert induced_heads(parse.tree, n) == ex.heads
            leaves = parse.tree.preterminals()
            assert [p.word for p in leaves] == list(range(n))
            assert [p.label for p in leaves] == ex.tags
            tree = Tree.fromstring(to_line(parse.tree, ex.forms))
            assert tree.label() == "TOP"
            assert tree.leaves() == ex.forms
            assert not any(t.label().startswith("@") for t in tree.subtrees())
    assert glued <= 5


@pytest.mark.parametrize("which", ["random_model", "random_backoff_model"])
def test_penn_line_from_the_derivation_is_the_trees_line(which, request):
    """Conversion writes the line straight from the decoder's arrays (no tree objects): the
    same text as building the tree and writing it, with glue, unary chains, escaping."""
    model = request.getfixturevalue(which)
    parser = Parser(model)
    rng = random.Random(12)
    for trial in range(300):
        n = rng.randint(1, 12)
        heads = random_projective(n, rng)
        tags = [rng.choice(["DT", "NN", "VBD", "IN", "JJ", "XX", "-LRB-"]) for _ in range(n)]
        forms = [rng.choice(["a", "(", "b c", "x)y", f"w{trial}"]) for _ in range(n)]
        for prune in (True, False):
            line, how = parser.parse_line(forms, tags, heads, prune=prune)
            parse = parser.parse(forms, tags, heads, prune=prune)
            assert (line, how) == (to_line(parse.tree, forms), parse.how)
