"""Deep and wide trees through every command and the app's project: each walker is
iterative, or training refuses the tree at its documented limit with one line."""

from __future__ import annotations

import pytest

from pad_engine.cli import main
from pad_engine.decoding.engine import Engine
from pad_engine.io.conll import format_conllx, read_conll
from pad_engine.io.penn import normalize, parse_penn, read_penn, tree_to_line
from pad_engine.trees.binarize import MAX_TRAINING_DEPTH, binarize, debinarize
from pad_engine.trees.headrules import HeadRules, dependencies, head_children, lexicalize
from pad_engine.trees.lextree import LexNode, from_penn, induced_heads, penn_words, to_line
from pad_gui.controllers.project_rows import tree_from_json, tree_to_json
from pad_gui.store import ProjectStore

DEPTH = 500
CHAIN = 800


def right_branching(n: int) -> str:
    """A Penn tree nesting ``n`` phrases deep, one word per level."""
    return ("( " + "".join(f"(S (NN w{i}) " for i in range(n - 1)) + f"(NN w{n - 1})"
            + ")" * (n - 1) + ")\n")


def unary_chain(n: int) -> str:
    return "(S " * n + "(NN x)" + ")" * n + "\n"


def wide(n: int) -> str:
    return "(S " + " ".join(f"(NN w{i})" for i in range(n)) + ")\n"


SMALL = "(S (NP (DT the) (NN dog)) (VP (VBZ barks)))\n(S (NP (NNS dogs)) (VP (VBD ran)))\n"


def chain_conll(n: int, leftward: bool = False) -> str:
    """An ``n``-word sentence where each word depends on its neighbour."""
    heads = [i + 2 if i < n - 1 else 0 for i in range(n)] if leftward else list(range(n))
    return format_conllx([f"w{i}" for i in range(n)], ["NN"] * n, heads, []) + "\n"


@pytest.fixture(scope="module")
def deep_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("deep")
    files = {"right": right_branching(DEPTH), "unary": unary_chain(DEPTH)}
    for name, text in files.items():
        (folder / f"{name}.mrg").write_text(text)
    return folder


@pytest.mark.parametrize("name", ["right", "unary"])
def test_deps_and_oracle_take_a_500_deep_tree(deep_files, name, capsys):
    mrg, conll = deep_files / f"{name}.mrg", deep_files / f"{name}.conll"
    assert main(["deps", str(mrg), str(conll)]) == 0
    words = len(read_conll(conll).sentences[0].forms)
    assert words == (DEPTH if name == "right" else 1)
    labeled = deep_files / f"{name}.phrase.conll"
    assert main(["deps", str(mrg), str(labeled), "--labels", "phrase"]) == 0
    out = deep_files / f"{name}.oracle.mrg"
    assert main(["oracle", str(mrg), str(conll), "-o", str(out)]) == 0
    tree = read_penn(out).trees[0]
    assert penn_words(tree) == read_conll(conll).sentences[0].forms
    assert main(["eval", str(mrg), str(out)]) == 0
    capsys.readouterr()


def test_walkers_round_trip_a_deep_tree():
    tree = parse_penn(right_branching(DEPTH)).trees[0]
    norm = normalize(tree)
    assert tree_to_line(norm) == tree_to_line(tree)
    assert penn_words(norm) == [f"w{i}" for i in range(DEPTH)]
    rules = HeadRules.load("collins")
    lex = from_penn(norm, head_children(norm, rules))
    back = debinarize(binarize(lex))
    forms = penn_words(norm)
    assert to_line(back, forms) == to_line(lex, forms) == tree_to_line(norm)
    linear = lexicalize(norm, rules)
    assert to_line(linear, forms) == to_line(lex, forms)
    assert induced_heads(linear, DEPTH) == induced_heads(lex, DEPTH)
    assert len(dependencies(norm, rules)[2]) == DEPTH


def test_train_skips_a_tree_too_deep_or_wide_with_one_line(deep_files, tmp_path, capsys):
    src = tmp_path / "trees.mrg"
    src.write_text(wide(1000) + SMALL + right_branching(MAX_TRAINING_DEPTH + 10) + "(S ")
    model = tmp_path / "m.padmodel"
    assert main(["train", str(src), "-o", str(model), "--epochs", "1", "--bits", "16"]) == 0
    err = capsys.readouterr().err
    skipped = [line for line in err.splitlines() if "skipped" in line]
    assert len(skipped) == 3
    assert "trees.mrg:5: unbalanced brackets" in skipped[0]
    assert "trees.mrg:1: tree too deep to train on: up to 1002 levels" in skipped[1]
    assert "trees.mrg:4: tree too deep" in skipped[2]
    assert "2 trees, model written" in err
    src.write_text(wide(1000))
    assert main(["train", str(src), "-o", str(model)]) == 1
    assert "no trees to train on" in capsys.readouterr().err


def test_train_takes_a_wide_tree_within_the_limit(tmp_path, capsys):
    src = tmp_path / "wide.mrg"
    src.write_text(wide(MAX_TRAINING_DEPTH - 10) + SMALL)
    model = tmp_path / "m.padmodel"
    assert main(["train", str(src), "-o", str(model), "--epochs", "1", "--bits", "16"]) == 0
    assert "3 trees, model written" in capsys.readouterr().err


def test_paired_training_skips_a_deep_pair_with_one_line(tmp_path, capsys):
    small_trees, small_deps = tmp_path / "s.mrg", tmp_path / "s.conll"
    small_trees.write_text(SMALL)
    assert main(["deps", str(small_trees), str(small_deps)]) == 0
    trees, deps = tmp_path / "t.mrg", tmp_path / "d.conll"
    trees.write_text(right_branching(CHAIN) + SMALL)
    deps.write_text(chain_conll(CHAIN) + small_deps.read_text())
    model = tmp_path / "m.padmodel"
    assert main(["train", str(trees), "--deps", str(deps), "-o", str(model), "--epochs", "1",
                 "--bits", "16"]) == 0
    err = capsys.readouterr().err
    skipped = [line for line in err.splitlines() if "skipped" in line]
    assert len(skipped) == 1
    assert "d.conll:1: its paired c-parse: tree too deep" in skipped[0]
    assert "2 trees, model written" in err


@pytest.mark.parametrize("leftward", [False, True])
def test_an_800_word_chain_converts_every_way_and_is_stored(tmp_path, leftward, capsys):
    src = tmp_path / "chain.conll"
    src.write_text(chain_conll(CHAIN, leftward))
    forms = [f"w{i}" for i in range(CHAIN)]
    for options in ([], ["--rules"], ["--kbest", "2"], ["--no-prune"]):
        out = tmp_path / "out.mrg"
        assert main(["convert", str(src), "-o", str(out), *options]) == 0
        line = out.read_text().splitlines()[0].split("\t")[-1]
        assert penn_words(parse_penn(line).trees[0]) == forms
    assert main(["convert-dir", str(tmp_path), str(tmp_path / "dir"), "--jobs", "1"]) == 0
    assert (tmp_path / "dir" / "chain.mrg").read_text().count("(NN w") == CHAIN
    capsys.readouterr()
    sent = read_conll(src).sentences[0]
    tree = Engine.load().best(sent).tree
    store = ProjectStore(tmp_path / "p.padproject")
    words = " ".join(forms)
    store.save_view("k", 0, words, 0, sent.heads, tree, tree, to_line(tree, forms))
    store.save_status("k", 0, words, "corrected", tree, to_line(tree, forms))
    store.close()
    again = ProjectStore(tmp_path / "p.padproject")
    saved = again.load(["k"], [words], [CHAIN])[0]
    again.close()
    assert saved.status == "corrected"
    assert to_line(saved.tree, forms) == to_line(saved.kept, forms) == to_line(tree, forms)


def test_project_trees_are_flat_and_old_nested_rows_still_read():
    deep = LexNode("NN", [], 0, CHAIN - 1)
    for w in range(CHAIN - 2, -1, -1):
        deep = LexNode("NP", [LexNode("NN", [], 0, w), deep], 1, -1)
    stored = tree_to_json(deep)
    assert all(not isinstance(x, list) for node in stored for x in node)
    forms = [str(i) for i in range(CHAIN)]
    assert to_line(tree_from_json(stored, CHAIN), forms) == to_line(deep, forms)
    old = ["TOP", 0, [["S", 1, [["NP", 0, [["PRP", 0]]], ["VBD", 1]]]]]
    assert to_line(tree_from_json(old), ["She", "left"]) == "(TOP (S (NP (PRP She)) (VBD left)))"
    with pytest.raises(ValueError, match="cut short"):
        tree_from_json([["S", 0, 2], ["NN", 0]])
