"""Penn-tree reading, normalization and writing: real treebanks, layouts, every bad-input kind."""

from __future__ import annotations

import io

import pytest
from nltk import Tree

from pad_engine.cli import main
from pad_engine.errors import InputError
from pad_engine.io.penn import (
    normalize,
    parse_penn,
    read_penn,
    strip_label,
    tree_to_line,
    write_penn,
)


@pytest.fixture(scope="module")
def ptb_trees(ptb_dir):
    trees = []
    for path in sorted(ptb_dir.glob("wsj_*.mrg")):
        trees.extend(read_penn(path).trees)
    return trees


def test_ptb_sample_reads_and_normalizes(ptb_trees):
    assert len(ptb_trees) == 3914
    assert all(t.label() == "TOP" and len(t) == 1 for t in ptb_trees)
    assert sum(len(t.leaves()) for t in ptb_trees) == 94084 + 6592
    norm = [normalize(t) for t in ptb_trees]
    assert sum(len(t.leaves()) for t in norm) == 94084
    for tree in norm:
        assert tree.label() == "TOP"
        for sub in tree.subtrees():
            assert sub.label() != "-NONE-"
            assert len(sub) > 0
            label = sub.label()
            if not label.startswith("-"):
                assert "-" not in label, label
                assert "=" not in label, label


def test_ptb_round_trip(ptb_trees):
    for trees in (ptb_trees, [normalize(t) for t in ptb_trees]):
        text = "\n".join(tree_to_line(t) for t in trees)
        again = parse_penn(text)
        assert again.trees == trees
        assert again.lines == list(range(1, len(trees) + 1))


@pytest.mark.slow
def test_gum_tree_counts_match_the_dependency_files(gum_dir):
    files = sorted((gum_dir / "const").glob("*.ptb"))
    assert len(files) == 177
    for path in files:
        result = read_penn(path)
        conllu = (gum_dir / "dep" / path.name).with_suffix(".conllu")
        blocks = conllu.read_text(encoding="utf-8").replace("\r\n", "\n").split("\n\n")
        sentences = sum(1 for b in blocks if any(
            line and not line.startswith("#") for line in b.split("\n")))
        assert len(result.trees) == sentences, path.name
        assert all(t.label() == "TOP" and len(t) == 1 for t in result.trees)


def test_layouts_and_wrappers():
    text = """
( (S (NP (NNP Ann))
     (VP (VBZ runs)) ) )
(ROOT (S (NP (PRP I)) (VP (VBD ran))))  (TOP (NP (NN dog)))
(S (NP (NN cat)))
( (ROOT (NP (NN x))) )
( (NP (NN a)) (. .) )
(NN word)
"""
    result = parse_penn(text)
    assert result.lines == [2, 4, 4, 5, 6, 7, 8]
    assert [tree_to_line(t) for t in result.trees] == [
        "(TOP (S (NP (NNP Ann)) (VP (VBZ runs))))",
        "(TOP (S (NP (PRP I)) (VP (VBD ran))))",
        "(TOP (NP (NN dog)))",
        "(TOP (S (NP (NN cat))))",
        "(TOP (NP (NN x)))",
        "(TOP (NP (NN a)) (. .))",
        "(TOP (NN word))",
    ]
    assert result.skipped == []


@pytest.mark.parametrize(("text", "line", "message"), [
    ("(S (NP (NN a)))\n(S (NP (NN b))))\n", 2, "unbalanced brackets: ')' without a matching '('"),
    ("(S (NP (NN a))\n", 1, "unbalanced brackets: 1 '(' not closed"),
    ("(S (NN a))\n()\n", 2, "empty tree '()'"),
    ("(S (NP ) (NN a))\n", 1, "empty constituent (NP)"),
    ("(S (NP (DT the)\n dog))\n", 1, "word 'dog' has no preterminal of its own"),
    ("(ROOT dog)\n", 1, "word 'dog' has no preterminal of its own"),
    ("(S (NN a))\nhello there\n(S (NN b))\n", 2, "text outside brackets: 'hello'"),
    ("(S ((NN a)))\n", 1, "constituent without a label"),
    ("(S (NN a))\n(S (NN a\x00b))\n", 2, "control character U+0000 at column 9"),
    ("(S\n (NN " + "a" * 10_001 + "))\n", 2, "word of 10,001 characters: longer than the "
     "10,000 a word may have"),
])
def test_bad_input_names_file_line_and_problem(text, line, message):
    with pytest.raises(InputError) as info:
        parse_penn(text, "bad.mrg")
    assert info.value.line == line
    assert str(info.value).startswith(f"bad.mrg:{line}: {message}")


def test_skip_mode_goes_on_with_the_next_tree():
    text = ("(S (NN a))\n(S (NN b)))\n(S (NP (DT x) y) (Z z w))\n()\nstray\n"
            "(S (NN c)\n(S (NN d))\n(S (NN e))\n")
    result = parse_penn(text, "f.mrg", on_error="skip")
    assert [" ".join(t.leaves()) for t in result.trees] == ["a", "b", "d", "e"]
    assert result.lines == [1, 2, 7, 8]
    assert [str(e) for e in result.skipped] == [
        "f.mrg:2: unbalanced brackets: ')' without a matching '('",
        "f.mrg:3: word 'y' has no preterminal of its own: write it as (TAG y)",
        "f.mrg:4: empty tree '()'",
        "f.mrg:5: text outside brackets: 'stray'",
        "f.mrg:6: unbalanced brackets: 1 '(' not closed by the end of the text "
        "(tree starts here)",
    ]


def test_bad_on_error_value():
    with pytest.raises(ValueError, match="on_error must be"):
        parse_penn("(S (NN a))", on_error="ignore")


def test_normalize_strips_empties_tags_and_indices():
    tree = Tree.fromstring(
        "( (S (NP-SBJ-1 (-NONE- *)) (NP-SBJ=2 (PRP it)) (VP (VBD said) (SBAR (-NONE- 0) "
        "(S (NP-SBJ (-NONE- *T*-1)) (VP (-NONE- *?*)))) (PP-LOC=2 (IN in) (NP (NP (NNP X)))) "
        "(PRN (-LRB- -LRB-) (NP (CD 1)) (-RRB- -RRB-))) (. .)) )")
    assert tree_to_line(normalize(tree)) == (
        "(TOP (S (NP (PRP it)) (VP (VBD said) (PP (IN in) (NP (NP (NNP X)))) "
        "(PRN (-LRB- -LRB-) (NP (CD 1)) (-RRB- -RRB-))) (. .)))")
    kept = normalize(tree, keep_empty=True)
    assert kept.leaves()[:2] == ["*", "it"]
    assert kept[0][0].label() == "NP"
    assert tree_to_line(normalize(Tree.fromstring("(S (NP (NN a)))"))) == "(TOP (S (NP (NN a))))"
    assert normalize(Tree.fromstring("(TOP (S (-NONE- *)))")) == Tree("TOP", [])


def test_strip_label():
    assert [strip_label(x) for x in ["NP-SBJ-1", "PP-LOC=2", "NP=3", "WHNP-12", "S", "PRP$",
                                     "-NONE-", "-LRB-", "-RRB-", "-LCB-", "-RCB-"]] == [
        "NP", "PP", "NP", "WHNP", "S", "PRP$", "-NONE-", "-LRB-", "-RRB-", "-LCB-", "-RCB-"]


def test_tree_to_line_escapes_words_that_would_break_the_bracketing():
    tree = Tree("TOP", [Tree("NP", [Tree("NN", ["friend(s)"]), Tree("NN", ["a b"])])])
    line = tree_to_line(tree)
    assert line == "(TOP (NP (NN friend-LRB-s-RRB-) (NN a_b)))"
    assert parse_penn(line).trees[0].leaves() == ["friend-LRB-s-RRB-", "a_b"]


def test_convert_writes_no_character_a_penn_line_cannot_carry(tmp_path, capsys):
    """Through ``pad convert``: a NUL in a form costs its sentence, named by file and line;
    other control characters, white space and brackets in forms are escaped in the one place
    Penn words are written, so that pad's own reader reads each back as one leaf."""
    forms = ["a\x80b", "c\x85d", "e\x9ff", "g\u2028h", "(i)"]
    rows = [f"{i}\t{form}\t_\tNOUN\tNN\t_\t{0 if i == 1 else 1}\tdep\t_\t_"
            for i, form in enumerate(forms, 1)]
    nul = "1\tbad\x00word\t_\tNOUN\tNN\t_\t0\troot\t_\t_"
    src, out = tmp_path / "odd.conllu", tmp_path / "odd.mrg"
    src.write_text("\n".join(rows) + "\n\n" + nul + "\n\n", encoding="utf-8")
    assert main(["convert", str(src), "-o", str(out), "--rules"]) == 0
    assert (f"skipped {src}:7: FORM of word 1: control character U+0000 at column 6"
            in capsys.readouterr().err)
    text = out.read_text(encoding="utf-8")
    assert text.endswith("\n\n")
    assert text.count("\n") == 2
    assert all(ch.isprintable() for ch in text.replace("\n", ""))
    leaves = parse_penn(text).trees[0].leaves()
    assert leaves == ["a_b", "c_d", "e_f", "g_h", "-LRB-i-RRB-"]


def test_write_penn(tmp_path):
    trees = parse_penn("( (S (NP (NN a)) (VP (VBZ is))) )\n(NP (NN b))").trees
    buf = io.StringIO()
    write_penn(trees, buf)
    expected = "(TOP (S (NP (NN a)) (VP (VBZ is))))\n(TOP (NP (NN b)))\n"
    assert buf.getvalue() == expected
    path = tmp_path / "out.mrg"
    path.write_text("old")
    write_penn(trees, path)
    assert path.read_text() == expected
    assert read_penn(path).trees == trees
    assert [p.name for p in tmp_path.iterdir()] == ["out.mrg"]
