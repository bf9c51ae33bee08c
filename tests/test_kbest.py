"""k-best decoding against brute-force enumeration of Y(x, d) under a random model."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest
from toy import derivation_score, enumerate_parses, random_projective, random_sentence

from pad_engine.decoding.parser import Parser
from pad_engine.trees.binarize import debinarize
from pad_engine.trees.lextree import induced_heads, to_line


@pytest.mark.parametrize("which", ["random_model", "random_backoff_model",
                                   "random_labeled_model", "random_projection_model"])
def test_kbest_lists_match_brute_force(which, request):
    random_model = request.getfixturevalue(which)
    rng = random.Random(11)
    parser = Parser(random_model)
    compared = 0
    for trial in range(1200):
        n = rng.randint(1, 7)
        heads = random_projective(n, rng)
        tags = [rng.choice(["DT", "NN", "NN", "VBD", "VBD", "IN", "JJ"]) for _ in range(n)]
        forms = [f"v{trial}_{i}" for i in range(n)]
        rels = [rng.choice(["nsubj", "obj", "det", "_"]) for _ in range(n)]
        trees = enumerate_parses(random_model, tags, heads)
        if not trees:
            continue
        scored = sorted(
            ((derivation_score(random_model, forms, tags, heads, t, rels),
              to_line(debinarize(t), forms)) for t in trees),
            key=lambda x: -x[0],
        )
        for k in (1, 3, 10, 50):
            got = parser.kbest(forms, tags, heads, k, prune=False, rels=rels)
            assert len(got) == min(k, len(scored))
            lines = [to_line(p.tree, forms) for p in got]
            assert len(set(lines)) == len(lines)
            for p, (want_score, _) in zip(got, scored):
                assert p.score == pytest.approx(want_score, rel=1e-4, abs=1e-3)
            by_line = dict((line, s) for s, line in scored)
            for p, line in zip(got, lines):
                assert by_line[line] == pytest.approx(p.score, rel=1e-4, abs=1e-3)
        compared += 1
    assert compared >= 40, compared


def test_first_candidate_is_the_one_best(random_model):
    rng = random.Random(2)
    parser = Parser(random_model)
    for _ in range(100):
        forms, tags, heads = random_sentence(rng, ["DT", "NN", "VBD", "IN"], 10)
        for prune in (True, False):
            best = parser.parse(forms, tags, heads, prune=prune)
            cands = parser.kbest(forms, tags, heads, 5, prune=prune)
            assert cands[0].score == pytest.approx(best.score, rel=1e-6)
            for c in cands:
                assert induced_heads(c.tree, len(forms)) == heads


def test_shared_subtrees_give_the_same_trees(random_backoff_model):
    """k-best trees share the phrases their derivations share (refs); written out they are
    the trees built one by one."""
    from pad_engine.decoding import decoder
    from pad_engine.decoding.parser import chart_inputs

    parser = Parser(random_backoff_model)
    rng = random.Random(21)
    for _ in range(150):
        forms, tags, heads = random_sentence(rng, ["DT", "NN", "VBD", "IN", "JJ"], 10, "s")
        got = [to_line(p.tree, forms) for p in parser.kbest(forms, tags, heads, 10, prune=False)]
        enc = parser.encode_checked(forms, tags, heads, k=10)
        _scores, offsets, kinds, syms, _, _, words, _, _, _, _ = decoder.decode_kbest(
            chart_inputs(random_backoff_model, enc, decoder.EXACT, escalate=True), 10)
        alone = [to_line(parser.tree(kinds[a:b], syms[a:b], words[a:b], tags), forms)
                 for a, b in itertools.pairwise(offsets)]
        assert got == alone


def test_pruned_lists_keep_every_derivation_within_the_window(random_backoff_model):
    """Pruned k-best keeps only an item's derivations within ``within`` of its best: every
    derivation of the sentence within that window of the best survives, in order (a
    derivation that close uses only parts that close to their items' best)."""
    from pad_engine.decoding import decoder
    from pad_engine.decoding.parser import chart_inputs

    parser = Parser(random_backoff_model)
    rng = random.Random(22)
    checked = 0
    for _ in range(300):
        n = rng.randint(2, 9)
        heads = random_projective(n, rng)
        tags = [rng.choice(["DT", "NN", "VBD", "IN", "JJ"]) for _ in range(n)]
        enc = parser.encode_checked([f"t{i}" for i in range(n)], tags, heads, k=30)
        full, cut = (decoder.decode_kbest(chart_inputs(
            random_backoff_model, enc, decoder.PRUNED, escalate=True, within=w), 30)[0]
            for w in (np.inf, 2.0))
        if len(full) == 0:
            continue
        window = full[full >= full[0] - 2.0]
        assert cut[:len(window)] == pytest.approx(window, rel=1e-6, abs=1e-6)
        checked += len(full) > len(window)
    assert checked >= 20, checked  # the window cut something in many sentences


def _flat(n: int) -> tuple[list[str], list[str], list[int]]:
    """A flat d-parse of n words: word n // 2 heads every other one."""
    h = n // 2
    tags = ["DT", "NN", "IN", "JJ"] * (n // 4 + 1)
    tags = tags[:n]
    tags[h - 1] = "VBD"
    return [f"f{i}" for i in range(n)], tags, [0 if i == h else h for i in range(1, n + 1)]


def test_kbest_over_its_budget_is_cut_and_says_so(random_backoff_model):
    """A k-best chart that would pass its budget of entries stops before allocating past it
    and the sentence is decoded with fewer derivations per item: fewer than k trees, the
    best one the 1-best tree, each consistent with the d-parse, and they say how many."""
    from pad_engine.decoding import decoder
    from pad_engine.decoding.parser import chart_inputs

    parser = Parser(random_backoff_model)
    forms, tags, heads = _flat(40)
    best = parser.parse(forms, tags, heads, prune=False)
    full = parser.kbest(forms, tags, heads, 10, prune=False)
    assert len(full) == 10
    assert all(p.cut_to == 0 for p in full)
    assert full[0].score == pytest.approx(best.score)
    enc = parser.encode_checked(forms, tags, heads, k=10)
    inputs = chart_inputs(random_backoff_model, enc, decoder.EXACT, escalate=True)
    *_, level, _, _, reach = decoder.decode_kbest(inputs, 10, 4096)
    assert level == decoder.OVER_BUDGET
    assert 0 < reach < 1
    for budget in (4096, 12_000):
        cut = parser.kbest(forms, tags, heads, 10, prune=False, budget=budget)
        assert 1 <= len(cut) < 10
        assert {p.cut_to for p in cut} == {cut[0].cut_to}
        assert 1 <= cut[0].cut_to < 10
        assert len(cut) <= cut[0].cut_to
        assert to_line(cut[0].tree, forms) == to_line(best.tree, forms)
        assert cut[0].score == pytest.approx(best.score)
        for p in cut:
            assert induced_heads(p.tree, len(forms)) == heads
        assert [p.score for p in cut] == sorted((p.score for p in cut), reverse=True)
    # an ample budget changes nothing
    again = parser.kbest(forms, tags, heads, 10, prune=False, budget=1 << 30)
    assert [to_line(p.tree, forms) for p in again] == [to_line(p.tree, forms) for p in full]


def test_convert_report_counts_cut_kbest_lists(random_backoff_model):
    """``pad convert --kbest`` reports each sentence whose list the budget cut."""
    from pad_engine.batch.files import ConvertReport, convert_items
    from pad_engine.decoding.engine import Engine
    from pad_engine.decoding.parser import kbest_cut_note
    from pad_engine.trees.deptree import DepSentence

    engine = Engine(random_backoff_model)
    engine.parser.kbest_budget = 4096
    forms, tags, heads = _flat(40)
    short = DepSentence(forms[:3], ["DT", "NN", "VBD"], [2, 3, 0], path="in.conll", line=1)
    long = DepSentence(forms, tags, heads, path="in.conll", line=6)
    report = ConvertReport()
    blocks = list(convert_items(engine, [short, long], report, kbest=10))
    assert report.converted == 2
    assert len(report.cut) == 1
    assert report.cut[0][:2] == ("in.conll", 6)
    cut_to = report.cut[0][2]
    assert 1 <= cut_to < 10
    assert 1 <= blocks[1].count("\n") - 1 <= cut_to
    assert kbest_cut_note(cut_to, 10).startswith(f"k-best cut to {cut_to} tree")


def test_kbest_entry_arrays_never_grow_past_the_budget():
    """The entry arrays double as they grow, but for K > 1 never past the budget: capped at
    it when the need fits, left as they are (and refused) when it does not; 1-best grows."""
    from pad_engine.decoding.tables import entry_room

    ps, pe = np.zeros(1024), np.zeros((1024, 3), np.int32)
    ps[:] = np.arange(1024)
    grown, _, ok = entry_room(ps, pe, 1000, 100, 10, 1500)
    assert ok
    assert grown.shape[0] == 1500
    assert (grown[:1000] == ps[:1000]).all()
    same, _, ok = entry_room(ps, pe, 1000, 600, 10, 1500)
    assert not ok
    assert same.shape[0] == 1024
    assert entry_room(ps, pe, 1000, 600, 1, 1500)[0].shape[0] == 2048


# Trees with unary chains of one label (NP over NP, VP over VP, S over S), added to the toy
# treebank so that its grammar has the rules that make a plain k-best list repeat bracketings.
CHAINS = [
    "(TOP (S (NP (NP (NN fish))) (VP (VP (VBD ran)))))",
    "(TOP (S (S (VP (VBD ran) (NP (NP (DT the) (NN dog)))))))",
]


@pytest.fixture(scope="module")
def chain_model():
    """The toy treebank and :data:`CHAINS`, with random weights."""
    from nltk import Tree
    from toy import toy_examples, toy_heads

    from pad_engine.learning.train import example_from_lextree, train
    from pad_engine.trees.lextree import from_penn

    extra = [example_from_lextree(from_penn(t, toy_heads(t)), t.leaves())
             for t in map(Tree.fromstring, CHAINS)]
    model = train(toy_examples() + extra, epochs=0, bits=14)
    model.weights = np.random.default_rng(3).normal(0, 1, model.weights.shape).astype(
        np.float32)
    return model


def _collapsed(node) -> str:
    """A tree's Penn line with unary chains of one label written once: the trees that
    distinct k-best tells apart (``trees.compare.merged_brackets`` also merges chains whose
    labels differ only in order)."""
    while node.word < 0 and len(node.children) == 1 and node.children[0].label == node.label:
        node = node.children[0]
    if node.word >= 0:
        return f"({node.label} {node.word})"
    return f"({node.label} " + " ".join(_collapsed(c) for c in node.children) + ")"


def test_distinct_kbest_is_the_best_tree_of_each_of_the_k_best_bracketings(chain_model):
    """Against brute force: distinct k-best gives, best first, the best-scoring tree of each
    of the k best classes of trees that differ only in unary chains of one label, where the
    plain k-best list repeats classes."""
    parser = Parser(chain_model)
    rng = random.Random(5)
    compared = repeated = 0
    for trial in range(600):
        forms, tags, heads = random_sentence(
            rng, ["DT", "NN", "NN", "VBD", "VBD", "IN", "PRP"], 6, f"c{trial}_")
        trees = enumerate_parses(chain_model, tags, heads)
        if not trees:
            continue
        best: dict[str, float] = {}
        for t in trees:
            key = _collapsed(debinarize(t))
            score = derivation_score(chain_model, forms, tags, heads, t)
            best[key] = max(best.get(key, -np.inf), score)
        want = sorted(best.values(), reverse=True)
        for k in (1, 3, 10):
            got = parser.kbest(forms, tags, heads, k, prune=False, distinct=True)
            keys = [_collapsed(p.tree) for p in got]
            assert len(set(keys)) == len(keys) == min(k, len(want))
            assert [p.score for p in got] == pytest.approx(want[:k], rel=1e-4, abs=1e-3)
            for p, key in zip(got, keys):
                assert best[key] == pytest.approx(p.score, rel=1e-4, abs=1e-3)
                assert induced_heads(p.tree, len(forms)) == heads
        plain = parser.kbest(forms, tags, heads, 10, prune=False)
        repeated += len({_collapsed(p.tree) for p in plain}) < len(plain)
        compared += 1
    assert compared >= 40, compared
    assert repeated >= 10, repeated  # without distinct, lists repeat bracketings


def test_pruned_distinct_kbest_starts_with_the_best_tree(chain_model):
    """Pruned or not, the first distinct tree is the 1-best tree, and the rest differ from
    it and from each other in their merged brackets."""
    from pad_engine.trees.compare import merged_brackets

    parser = Parser(chain_model)
    rng = random.Random(8)
    for trial in range(150):
        forms, tags, heads = random_sentence(rng, ["DT", "NN", "VBD", "IN", "PRP"], 9,
                                             f"p{trial}_")
        for prune in (True, False):
            best = parser.parse(forms, tags, heads, prune=prune)
            got = parser.kbest(forms, tags, heads, 8, prune=prune, distinct=True)
            assert to_line(got[0].tree, forms) == to_line(best.tree, forms)
            assert got[0].score == pytest.approx(best.score, rel=1e-6)
            keys = [merged_brackets(p.tree) for p in got]
            assert len(set(keys)) == len(keys)
