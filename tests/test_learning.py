"""The low-resource loop, engine side: retrain on corrected trees, cross-validation, the
learning curve."""

from __future__ import annotations

import pytest
from nltk import Tree
from toy import TREES, toy_examples

from pad_engine.cli import main
from pad_engine.decoding.grammar import UNKNOWN_TAG, Grammar
from pad_engine.decoding.parser import Parser
from pad_engine.learning.retrain import (
    CrossValidation,
    Plan,
    cross_validate,
    evaluate,
    learning_curve,
    retrain,
)
from pad_engine.learning.train import Cancelled, add_backoff_rules, example_from_lextree
from pad_engine.trees.lextree import LexNode, from_penn, induced_heads, to_line


@pytest.fixture(scope="module")
def ptb30(ptb_dir):
    """The first 30 sentences of the Penn Treebank sample (Collins heads)."""
    from pad_engine.learning.bench import load_split

    return load_split(ptb_dir, range(1, 4), "collins")[:30]


def reproduces(model, examples) -> int:
    """How many examples the model decodes back to their own tree."""
    parser = Parser(model)
    return sum(to_line(parser.parse(ex.forms, ex.tags, ex.heads).tree, ex.forms)
               == to_line(ex.lex, ex.forms) for ex in examples)


def test_retrain_from_scratch_learns_the_trees(ptb30):
    model = retrain(ptb30)
    assert model.training["from"] == "scratch"
    assert model.training["sentences"] == len(ptb30)
    assert (model.weights != 0).any()
    assert evaluate(model, ptb30).f1 > 98.0  # its own training trees
    assert reproduces(model, ptb30) >= len(ptb30) - 3


def test_retrain_from_a_base_model_keeps_it_and_leaves_it_untouched(ptb30):
    old, new = ptb30[:15], ptb30[15:]
    base = retrain(old)
    rules, weights = list(base.grammar.binary), base.weights.copy()
    model = retrain(new, base)
    assert model.training["from"] == "continued from a model"
    assert model.grammar.binary[: len(rules)] == rules  # rule ids stable, base rules kept
    assert len(model.grammar.binary) > len(rules)  # the new trees' rules added
    assert base.grammar.binary == rules
    assert (base.weights == weights).all()
    # +4.5 (+10.6 with every rule): a rule only one of the new trees shows stays out of a
    # continued back-off grammar (adaptation._support), so those brackets are not rebuilt
    assert evaluate(model, new).f1 > evaluate(base, new).f1 + 3.0
    assert evaluate(model, old).f1 > 95.0  # what the base model knew is not lost


def test_retrain_adds_no_backoff_rules_to_a_base_model_trained_without_them(ptb30):
    from pad_engine.learning.train import train

    base = train(ptb30[:15], epochs=2)  # like the bundled model: no back-off rules
    model = retrain(ptb30[15:], base)
    assert not model.training["backoff"]
    assert len(model.grammar.binary) == len(train(ptb30, epochs=1).grammar.binary)
    assert retrain(ptb30[15:], retrain(ptb30[:15])).training["backoff"]


def _odd_heads(tree: Tree) -> LexNode:
    """Lexicalize with heads no head table would pick: every phrase headed by its first child
    (determiners head noun phrases, subjects head clauses)."""
    positions = {pos: 0 for pos in tree.treepositions() if not isinstance(tree[pos], str)
                 and not isinstance(tree[pos][0], str)}
    return from_penn(tree, positions)


def test_training_from_lexicalized_trees_needs_no_head_table(monkeypatch):
    from pad_engine.trees import headrules

    def no_table(*_args, **_kwargs):
        raise AssertionError("a head table was consulted")

    monkeypatch.setattr(headrules.HeadRules, "load", no_table)
    monkeypatch.setattr(headrules, "head_children", no_table)
    trees = [Tree.fromstring(s) for s in TREES]
    examples = [example_from_lextree(_odd_heads(t), t.leaves()) for t in trees]
    # the first tree: "the" heads "the man", the subject NP heads the clause
    assert examples[0].heads[:3] == [0, 1, 1]
    model = retrain(examples)
    parser = Parser(model)
    for ex in examples:
        parse = parser.parse(ex.forms, ex.tags, ex.heads)
        assert induced_heads(parse.tree, len(ex.forms)) == ex.heads  # consistent
        assert to_line(parse.tree, ex.forms) == to_line(ex.lex, ex.forms)


def test_cancel_raises_cancelled():
    calls = []

    def cancel() -> bool:
        calls.append(1)
        return len(calls) > 3

    with pytest.raises(Cancelled):
        retrain(toy_examples(), cancel=cancel)
    with pytest.raises(Cancelled):
        cross_validate(toy_examples(), 3, cancel=lambda: True)


def test_cross_validate_folds():
    examples = toy_examples()
    seen = []
    cv = cross_validate(examples, 3, progress=lambda done, total: seen.append((done, total)))
    assert isinstance(cv, CrossValidation)
    assert len(cv.folds) == 3
    assert seen == [(1, 3), (2, 3), (3, 3)]
    assert cv.sentences == len(examples)
    assert cv.seconds > 0
    assert all(0.0 <= f <= 100.0 for f in cv.folds)
    assert 0.0 < cv.f1 <= 100.0
    assert min(cv.folds) <= cv.f1 <= max(cv.folds)
    assert len(cross_validate(examples, 20).folds) == len(examples)  # one sentence per fold
    with pytest.raises(ValueError, match="at least 2 trees, got 1"):
        cross_validate(examples[:1])
    with pytest.raises(ValueError, match="at least 2 trees, got 0"):
        cross_validate([])


def test_folds_on_threads_give_what_one_at_a_time_gives(monkeypatch):
    import threading

    import pad_engine.learning.folds as folds
    import pad_engine.learning.retrain as retrain_module

    examples = toy_examples()
    runs, threads = {}, {}
    for jobs in (1, 3):
        monkeypatch.setattr(folds, "default_jobs", lambda jobs=jobs: jobs)
        seen: set[int] = set()
        scored = retrain_module._score

        def recording(*args, seen=seen, scored=scored):
            seen.add(threading.get_ident())
            return scored(*args)

        monkeypatch.setattr(retrain_module, "_score", recording)
        cv = retrain_module.compare(examples, 3, Plan(), retrain(examples))
        runs[jobs] = (cv.new.f1, cv.new.folds, cv.current.f1, cv.current.folds)
        threads[jobs] = len(seen)
    assert runs[1] == runs[3]  # pooled in fold order whichever fold finished first
    assert threads[1] == 1
    assert threads[3] > 1


def test_cross_validate_from_a_base_model():
    examples = toy_examples()
    base = retrain(examples)
    cv = cross_validate(examples, 2, base)
    assert cv.f1 > 90.0  # the base model has seen every tree


def test_learning_curve_on_the_toy_treebank():
    examples = toy_examples()
    curve = learning_curve(examples, examples, [2, 7])
    assert [size for size, _ in curve] == [2, 7]
    assert curve[1][1] == 100.0  # trained on all of them, tested on the same
    with pytest.raises(ValueError, match="training size 8 exceeds"):
        learning_curve(examples, examples, [8])


def test_backoff_rules_recombine_head_sides_and_modifiers():
    from pad_engine.trees.binarize import binarize

    g = Grammar()
    for s in ("(NP (DT the) (NN dog))", "(NP (JJ big) (NNS dogs))"):
        t = Tree.fromstring(s)
        g.observe(binarize(from_penn(t, {(): 1})), [tag for _, tag in t.pos()])
    sym = g.symbol
    seen = set(g.binary)
    assert (sym("NP"), sym("NN"), sym("JJ"), 1) not in seen
    assert add_backoff_rules(g) > 0
    rules = set(g.binary)
    assert seen <= rules
    assert (sym("NP"), sym("NN"), sym("JJ"), 1) in rules  # JJ was seen modifying an NP
    assert (sym("NP"), sym("NNS"), sym("DT"), 1) in rules
    assert (sym("NP"), sym("NN"), sym(UNKNOWN_TAG), 1) in rules  # a tag never seen
    assert not any(m == sym("NN") for _, _, m, _ in rules)  # NN never modified anything


def test_a_grammar_admits_new_rules_by_name_and_keeps_the_rules_it_has():
    from pad_engine.trees.binarize import binarize

    def observe(g, s, admit=None):
        t = Tree.fromstring(s)
        g.observe(binarize(from_penn(t, {(): 1})), [tag for _, tag in t.pos()], admit=admit)

    g = Grammar()
    observe(g, "(NP (DT the) (NN dog))")
    asked = []

    def nothing_new(rule):
        asked.append(rule)
        return False

    observe(g, "(NP (DT a) (NN cat))", nothing_new)  # the same rule: kept, not asked about
    observe(g, "(NP (JJ big) (NN cat))", nothing_new)
    assert asked == [("NP", "NN", "JJ", 1)]
    assert g.rule_names() == {("NP", "NN", "DT", 1)}
    assert {r for r, _ in g.binary_tags} == {g.tag_row("NN")}  # no row for a rule left out
    observe(g, "(NP (JJ big) (NN cat))", lambda rule: rule == ("NP", "NN", "JJ", 1))
    assert g.rule_names() == {("NP", "NN", "DT", 1), ("NP", "NN", "JJ", 1)}


def test_backoff_grammar_avoids_glue_on_unseen_combinations():
    from toy import toy_heads

    from pad_engine.learning.train import train

    trees = [Tree.fromstring(s) for s in (
        "(TOP (S (NP (DT the) (JJ big) (NN dog)) (VP (VBD barked))))",
        "(TOP (S (NP (CD two) (NNS dogs)) (VP (VBD ran))))",
    )]
    examples = [example_from_lextree(from_penn(t, toy_heads(t)), t.leaves()) for t in trees]
    forms, tags = ["the", "two", "dogs", "ran"], ["DT", "CD", "NNS", "VBD"]
    heads = [3, 3, 4, 0]  # CD was only seen closing an NP, not inside a longer one
    plain = Parser(train(examples, backoff=False)).parse(forms, tags, heads)
    assert plain.how == "glue"
    parse = Parser(retrain(examples)).parse(forms, tags, heads)
    assert parse.how == "pruned"
    assert to_line(parse.tree, forms) == \
        "(TOP (S (NP (DT the) (CD two) (NNS dogs)) (VP (VBD ran))))"


@pytest.mark.slow
def test_learning_curve_command_writes_rows_and_a_png(ptb_dir, tmp_path, capsys):
    png = tmp_path / "curve.png"
    assert main(["learning-curve", "--treebank", str(ptb_dir), "--sizes", "20", "40",
                 "-o", str(png)]) == 0
    captured = capsys.readouterr()
    rows = [line.split("\t") for line in captured.out.splitlines() if not line.startswith("#")]
    assert [int(n) for n, _ in rows] == [20, 40]
    assert all(60.0 < float(f1) <= 100.0 for _, f1 in rows)
    assert "retrain on 200 sentences" in captured.out
    assert "fallback" not in captured.err  # every test sentence got a model tree
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_learning_curve_command_help_and_bad_input(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["learning-curve", "--help"])
    assert exit_.value.code == 0
    assert "--sizes" in capsys.readouterr().out
    assert main(["learning-curve", "--treebank", str(tmp_path)]) == 1
    err = capsys.readouterr().err.strip()
    assert "not the Penn Treebank sample" in err
    assert len(err.splitlines()) == 1
