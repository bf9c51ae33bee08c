"""A model that reads the rule-based projection of each d-parse: the labels and
spans it is given, the grammar widened by the projections of uncorrected sentences, its
file round trip, and what it gains with few trees on the PTB sample."""

from __future__ import annotations

import dataclasses

import pytest
from toy import toy_examples

from pad_engine.decoding.features import span_label, stable_key
from pad_engine.decoding.model import Model
from pad_engine.decoding.parser import Parser, encode
from pad_engine.decoding.projection import project
from pad_engine.decoding.rulebased import phrase_labels, projection_features
from pad_engine.learning import retrain as retraining
from pad_engine.learning.train import add_projection_rules, train
from pad_engine.trees.lextree import to_line

FORMS = "the man saw a dog".split()
TAGS = "DT NN VBD DT NN".split()
HEADS = [2, 3, 0, 5, 3]


def test_labels_and_spans_are_the_projections():
    assert to_line(project(FORMS, TAGS, HEADS), FORMS) == \
        "(TOP (S (NP (DT the) (NN man)) (VP (VBD saw) (NP (DT a) (NN dog)))))"
    labels, spans = projection_features(FORMS, TAGS, HEADS)
    assert labels == ["NP+*", "S+NP", "ROOT", "NP+*", "VP+NP"]
    want = {(0, 1): "NP ", (0, 4): "S ", (2, 4): "VP ", (3, 4): "NP "}
    for i in range(5):
        for j in range(i, 5):
            chain = want.get((i, j))
            assert span_label(spans, i, j, 5) == (stable_key(chain) if chain else 0)


def test_a_unary_chain_is_one_span_value_listed_from_the_top():
    assert to_line(project(["ran"], ["VBD"], [0]), ["ran"]) == "(TOP (S (VP (VBD ran))))"
    labels, spans = projection_features(["ran"], ["VBD"], [0])
    assert labels == ["ROOT"]
    assert span_label(spans, 0, 0, 1) == stable_key("S VP ")


def test_heads_that_are_no_projective_tree_give_nothing():
    labels, spans = projection_features(FORMS, TAGS, [3, 4, 0, 2, 3])  # crossing arcs
    assert labels == ["_"] * 5
    assert not any(span_label(spans, i, j, 5) for i in range(5) for j in range(i, 5))


def test_a_long_sentence_costs_memory_in_proportion_to_its_length():
    n = 5_000  # a chain of words (the chart allows far longer): no n x n table of spans
    forms, tags = [f"w{i}" for i in range(n)], ["NN"] * n
    heads = [i + 2 for i in range(n - 1)] + [0]
    labels, spans = projection_features(forms, tags, heads)
    assert len(labels) == n
    assert spans.nbytes < 64 * n
    assert span_label(spans, 0, n - 1, n) != 0  # the whole sentence is a phrase


def test_projections_of_uncorrected_sentences_widen_the_grammar():
    examples = toy_examples()
    model = train(examples[:1], epochs=0, bits=12)
    before = len(model.grammar.binary) + len(model.grammar.unary)
    added = add_projection_rules(model.grammar, examples[1:])
    assert added > 0
    assert len(model.grammar.binary) + len(model.grammar.unary) == before + added
    for ex in examples[1:]:  # each projection's phrases are now symbols of the grammar
        assert phrase_labels(project(ex.forms, ex.tags, ex.heads)) <= set(model.grammar.symbols)


def test_a_long_file_has_a_spread_of_its_sentences_projected(monkeypatch):
    import pad_engine.learning.train as training

    examples = toy_examples()
    seen = []
    monkeypatch.setattr(training, "POOL_LIMIT", 3)
    monkeypatch.setattr(training, "projected_tree", lambda forms, *rest: seen.append(forms)
                        or project(forms, *rest))
    model = train(examples[:1], epochs=0, bits=12)
    add_projection_rules(model.grammar, examples)
    assert seen == [examples[i * len(examples) // 3].forms for i in range(3)]


def test_a_treebank_with_other_labels_gets_no_projection_rules():
    examples = toy_examples()
    model = train(examples[:1], epochs=0, bits=12)
    for i, label in enumerate(model.grammar.symbols):  # lower-case every phrase label
        if label.isupper() and label not in ("TOP",) and label not in model.grammar.tags:
            model.grammar.symbols[i] = label.lower()
    model.grammar.__post_init__()
    assert add_projection_rules(model.grammar, examples[1:]) == 0


def test_a_warm_start_trains_on_the_files_projections_first():
    examples = toy_examples()
    seen = []
    options = {"labels": "projection", "pool": examples, "bits": 12, "epochs": 2,
               "backoff": True}  # the back-off rules give the projections' trees rivals
    model = train(examples[:2], warm_start=3, progress=seen.append, **options)
    assert model.training["warm_start"] == 3
    assert [(p.epoch, p.total) for p in seen] == [(0, 3), (1, 2), (2, 2)]
    assert [p.share for p in seen] == [3 / 7, 5 / 7, 1.0]  # of every step, warm ones too
    assert seen[0].errors > 0  # the warm-start pass learned something
    cold = train(examples[:2], **options)
    assert "warm_start" not in cold.training
    assert (model.weights != cold.weights).any()
    again = train(examples[:2], warm_start=3, **options)
    assert (model.weights == again.weights).all()  # deterministic


def test_no_warm_start_from_projections_with_other_labels(monkeypatch):
    import pad_engine.learning.train as training

    monkeypatch.setattr(training, "KNOWN_SHARE", 1.01)  # no projection's labels fit
    examples = toy_examples()
    model = train(examples[:2], labels="projection", pool=examples, warm_start=3, bits=12)
    assert "warm_start" not in model.training


def test_a_few_trees_that_have_not_shown_every_label_still_get_the_projections():
    examples = toy_examples()
    one = examples[1]  # "I ate fish": S, NP and VP only, no PP or ADVP yet
    model = train([one], epochs=0, bits=12)
    assert add_projection_rules(model.grammar, examples) == 0  # judged by the grammar alone
    assert add_projection_rules(model.grammar, examples, [one.lex]) > 0
    warm = train([one], labels="projection", pool=examples, warm_start=3, bits=12, epochs=1)
    assert warm.training["warm_start"] == 3


def test_retrain_from_scratch_reads_the_projection_and_round_trips(tmp_path):
    examples = toy_examples()
    model = retraining.retrain(examples[:4], pool=examples)
    assert model.dep_labels == "projection"
    assert model.label_set == []  # its labels are made, never read from the input
    path = tmp_path / "p.padmodel"
    model.save(path)
    loaded = Model.load(path)
    assert loaded.dep_labels == "projection"
    ex = examples[5]
    assert encode(loaded, ex.forms, ex.tags, ex.heads).spans.shape[1] > 1
    a = Parser(model).parse(ex.forms, ex.tags, ex.heads, prune=False)
    b = Parser(loaded).parse(ex.forms, ex.tags, ex.heads, prune=False)
    assert (a.score, to_line(a.tree, ex.forms)) == (b.score, to_line(b.tree, ex.forms))
    from pad_engine.decoding.engine import Engine
    from pad_engine.trees.deptree import DepSentence

    unlabeled = [DepSentence(ex.forms, ex.tags, ex.heads, ["_"] * len(ex.forms))]
    assert Engine(loaded).label_warning(unlabeled) is None


def test_a_model_that_reads_labels_or_continues_keeps_its_way(toy_model):
    examples = toy_examples()
    labeled = retraining.retrain(examples[:3], labels="deprel")
    assert labeled.dep_labels == "deprel"
    assert retraining.retrain(examples[:3], labeled, pool=examples).dep_labels == "deprel"
    # a label-free model continued reads the projection (adaptation's default, "projection")
    assert retraining.retrain(examples[:3], toy_model, pool=examples).dep_labels == "projection"


@pytest.mark.slow
def test_the_projection_lifts_f1_with_few_trees(ptb_dir, monkeypatch):
    """50 PTB sample trees, the whole train split's d-parses as the file: reading the
    projection gains several points (README: 89.6 -> 94.2 on the whole test split)."""
    from pad_engine.learning.bench import TEST_FILES, TRAIN_FILES, load_split

    train_split = load_split(ptb_dir, TRAIN_FILES, "collins")
    test = load_split(ptb_dir, TEST_FILES, "collins")[::4]
    with_it = retraining.curve_point(train_split, test, 50)
    monkeypatch.setattr(retraining, "SETTINGS",
                        dataclasses.replace(retraining.SETTINGS, projection=False))
    without = retraining.curve_point(train_split, test, 50)
    assert with_it.f1 > without.f1 + 2.0
    assert with_it.hows.get("glue", 0) < without.hows.get("glue", 0)


@pytest.mark.slow
def test_a_warm_start_from_the_projections_lifts_f1_with_few_trees(ptb_dir, monkeypatch):
    """50 PTB sample trees: one pass over 1,000 of the file's projections first gains over
    starting from zero (README: 94.15 -> 95.52 on the whole test split)."""
    from pad_engine.learning.bench import TEST_FILES, TRAIN_FILES, load_split

    train_split = load_split(ptb_dir, TRAIN_FILES, "collins")
    test = load_split(ptb_dir, TEST_FILES, "collins")[::4]
    warm = retraining.curve_point(train_split, test, 50)
    monkeypatch.setattr(retraining, "SETTINGS",
                        dataclasses.replace(retraining.SETTINGS, warm_start=0))
    cold = retraining.curve_point(train_split, test, 50)
    assert warm.f1 > cold.f1 + 0.5
