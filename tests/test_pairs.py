"""Training from paired d-parses and c-parses (GUM): targets consistent with the d-parses."""

from __future__ import annotations

import pytest

from pad_engine.cli import main
from pad_engine.decoding.model import Model
from pad_engine.errors import InputError
from pad_engine.learning.pairs import examples_from_pairs, guided_lextree, read_pairs
from pad_engine.trees.lextree import induced_heads


def gum_files(gum_dir, count: int) -> tuple[list[str], list[str]]:
    deps = sorted((gum_dir / "dep").glob("*.conllu"))[:count]
    return [str(gum_dir / "const" / f"{d.stem}.ptb") for d in deps], [str(d) for d in deps]


def test_every_target_induces_its_lifted_ud_dparse(gum_dir):
    trees, deps = gum_files(gum_dir, 2)
    per_file, problems = read_pairs(trees, deps)
    assert problems == []
    pairs = [p for ps in per_file for p in ps]
    made = examples_from_pairs(pairs)
    assert not made.skipped  # glue rules give a consistent tree whatever the grammar lacks
    assert made.exact + made.oracle == len(pairs) == len(made.examples)
    assert made.exact > 0
    assert made.oracle > 0
    for pair, ex in zip(pairs, made.examples):
        assert ex.heads == pair.heads
        assert ex.forms == pair.forms
        assert ex.tags == pair.tags
        assert induced_heads(ex.lex, len(ex.forms)) == pair.heads


def test_guided_heads_follow_the_dparse():
    from nltk import Tree

    from pad_engine.learning.pairs import Pair

    # UD: the noun heads its preposition; the Collins table would make "in" head the PP
    tree = Tree.fromstring(
        "(TOP (S (NP (NNS cats)) (VP (VBP sleep) (PP (IN in) (NP (NNS boxes))))))")
    pair = Pair(["cats", "sleep", "in", "boxes"], ["NNS", "VBP", "IN", "NNS"], [2, 0, 4, 2],
                tree, "x:1")
    assert induced_heads(guided_lextree(pair), 4) == [2, 0, 4, 2]


def test_pairs_must_line_up(gum_dir, tmp_path):
    trees, deps = gum_files(gum_dir, 2)
    with pytest.raises(InputError, match="one CoNLL file per tree file"):
        read_pairs(trees, deps[:1])
    with pytest.raises(InputError, match=r"sentences but .* trees"):
        read_pairs(trees[:1], deps[1:])


def test_train_with_deps_and_hold_out(gum_dir, tmp_path, capsys):
    trees, deps = gum_files(gum_dir, 3)
    out = tmp_path / "ud.padmodel"
    assert main(["train", *trees, "--deps", *deps, "--hold-out", "3", "--epochs", "1",
                 "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "replaced by the closest consistent tree" in err
    assert "held-out" in err
    held = Model.load(out).training["held_out"]
    assert held["sentences"] > 0
    assert 0 < held["f1"] <= 100
    # the bound for any converter is a bound: no less than the model or its grammar reach
    assert held["bound_f1"] >= max(held["f1"], held["grammar_oracle_f1"]) > 50
    assert "no converter that keeps the d-parses scores more" in err
    assert main(["train", *trees, "--hold-out", "3", "-o", str(out)]) == 1
    assert "--hold-out needs --deps" in capsys.readouterr().err


def test_train_backoff_widens_the_grammar(ptb_dir, tmp_path):
    files = [str(ptb_dir / "wsj_0001.mrg"), str(ptb_dir / "wsj_0002.mrg")]
    plain, wide = tmp_path / "plain.padmodel", tmp_path / "wide.padmodel"
    assert main(["train", *files, "--epochs", "1", "--no-backoff", "-o", str(plain)]) == 0
    assert main(["train", *files, "--epochs", "1", "--backoff", "-o", str(wide)]) == 0
    a, b = Model.load(plain), Model.load(wide)
    assert b.training["backoff"]
    assert not a.training["backoff"]
    assert len(b.grammar.binary) > len(a.grammar.binary)


def test_train_bits_sets_the_weight_table_size(ptb_dir, tmp_path, capsys):
    files = [str(ptb_dir / "wsj_0001.mrg")]
    out = tmp_path / "small.padmodel"
    assert main(["train", *files, "--epochs", "1", "--bits", "16", "-o", str(out)]) == 0
    assert Model.load(out).weights.shape == (1 << 16,)
    assert main(["train", *files, "--bits", "30", "-o", str(out)]) == 1
    assert "--bits must be between 16 and 24, got 30" in capsys.readouterr().err


def test_train_on_an_empty_file_names_it(tmp_path, capsys):
    empty = tmp_path / "empty.mrg"
    empty.write_text("\n", encoding="utf-8")
    assert main(["train", str(empty), "-o", str(tmp_path / "m.padmodel")]) == 1
    assert "empty.mrg: no trees to train on" in capsys.readouterr().err
