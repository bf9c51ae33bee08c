"""EVALB (COLLINS.prm) reproduction: the reference outputs in shared/evalb, digit for digit and
space for space, EVALB's rules on small trees, dependency attachment scores and ``pad eval``.

The reference outputs are compared whole and exactly: EVALB's header has nothing
machine-specific. (Only a 0/0 F-measure is, printed as glibc on x86-64 prints it: ``-nan``.)
"""

from __future__ import annotations

import pytest

from pad_engine.cli import main
from pad_engine.errors import InputError
from pad_engine.learning import evalb

FIXTURES = [
    ("gold.mrg", "test_identical.mrg", "expected_identical.txt"),
    ("gold.mrg", "test_flat.mrg", "expected_flat.txt"),
    ("gold.mrg", "test_perturbed.mrg", "expected_perturbed.txt"),
    ("gold_first60.mrg", "test_errors.mrg", "expected_errors.txt"),
]


# --- reference outputs ------------------------------------------------------------------------


@pytest.mark.parametrize(("gold", "test", "expected"), FIXTURES, ids=[f[2] for f in FIXTURES])
def test_reference_output_reproduced_exactly(evalb_dir, gold, test, expected):
    report = evalb.score(evalb.read_trees(evalb_dir / gold), evalb.read_trees(evalb_dir / test))
    assert evalb.format_report(report) == (evalb_dir / expected).read_text()


def test_report_fields(evalb_dir):
    gold = evalb.read_trees(evalb_dir / "gold.mrg")
    test = evalb.read_trees(evalb_dir / "test_perturbed.mrg")
    report = evalb.score(gold, test)
    assert len(report.rows) == 518
    assert (report.overall.matched, report.overall.gold_brackets) == (7983, 9572)
    assert report.within_cutoff.sentences == 490
    assert f"{evalb.bracket_f1(report):.2f}" == "85.43"
    first = report.rows[0]
    assert (first.length, first.words, first.matched, first.status) == (33, 29, 20, 0)


def test_error_sentences(evalb_dir):
    report = evalb.score(
        evalb.read_trees(evalb_dir / "gold_first60.mrg"),
        evalb.read_trees(evalb_dir / "test_errors.mrg"),
    )
    errors = [(r.sent_id, r.length, r.error) for r in report.rows if r.status == 1]
    # (VP ) is a leaf with an empty word, as in EVALB, so sentence 18 differs by a word.
    assert errors == [(18, 19, "Words unmatch (expected|)"), (41, 48, "Length unmatch (44|43)")]
    assert report.overall.valid_sentences == 58
    assert report.within_cutoff.error_sentences == 1  # sentence 41 has 48 words


# --- EVALB's rules on small trees -------------------------------------------------------------


def _row(gold: str, test: str) -> evalb.SentenceResult:
    return evalb.score([gold], [test]).rows[0]


def test_punctuation_and_traces_leave_brackets_but_len_keeps_punctuation():
    gold = "(TOP (S (NP-SBJ (DT The) (NN cat)) (VP (VBD sat) (NP (-NONE- *T*))) (. .)))"
    test = "(TOP (S (NP (DT The) (NN cat)) (VP (VBD sat)) (. .)))"
    row = _row(gold, test)
    # Len. drops -NONE- only; Words drops punctuation too. The empty NP and TOP do not count,
    # NP-SBJ is NP, and the VP spans "sat" alone once "." is gone.
    assert (row.length, row.words, row.correct_tags) == (4, 3, 3)
    assert (row.matched, row.gold_brackets, row.test_brackets, row.crossing) == (3, 3, 3, 0)


def test_labels_cut_at_dash_or_equals_and_advp_equals_prt():
    row = _row(
        "(S (NP=2 (PRP He)) (VP (VBD gave) (PRT (RP up))))",
        "(S (NP (PRP He)) (VP-X (VBD gave) (ADVP (RB up))))",
    )
    assert (row.matched, row.gold_brackets, row.test_brackets) == (4, 4, 4)
    assert row.correct_tags == 2  # RP vs RB is a tag error; tags are compared uncut


def test_brackets_match_as_a_multiset():
    row = _row("(S (NP (NP (DT a) (NN b))))", "(S (NP (DT a) (NN b)))")
    assert (row.matched, row.gold_brackets, row.test_brackets) == (2, 3, 2)
    assert (row.recall, row.precision) == (pytest.approx(200 / 3), 100.0)


def test_crossing_counts_test_brackets_that_cross_a_gold_bracket():
    gold = "(S (A (X a) (X b)) (B (X c) (X d)))"
    test = "(S (C (X a) (D (X b) (X c))) (X d))"
    row = _row(gold, test)
    assert (row.matched, row.crossing) == (1, 2)  # C crosses B, D crosses both: each counts once


def test_outer_unlabeled_bracket_is_a_bracket_as_in_evalb():
    assert _row("( (S (NN a) (NN b)))", "( (S (NN a) (NN b)))").gold_brackets == 2
    row = _row("( (S (NN a) (NN b)))", "(TOP (S (NN a) (NN b)))")
    assert (row.matched, row.gold_brackets, row.test_brackets) == (1, 2, 1)


def test_skip_and_all_error_summary_prints_like_evalb():
    report = evalb.score(["(S (NN a) (. .))", "(S (NN a))"], ["", "(S (NN b))"])
    assert [(r.status, r.length) for r in report.rows] == [(2, 2), (1, 1)]
    text = evalb.format_report(report)
    lines = text.splitlines()
    skipped = "   1    2    2    0.00   0.00     0      0    0      0      0     0     0.00"
    assert lines[3] == skipped
    assert lines[6] == "      0     0     0.00"  # no bracket totals without brackets
    assert "Bracketing FMeasure       =   -nan" in lines
    assert "Number of Valid sentence  =      0" in lines
    assert evalb.bracket_f1(report) == 0.0


def test_twelfth_error_sentence_stops_like_evalb():
    gold = ["(S (NN a) (NN b))"] * 12
    ok = evalb.score(gold[:11], ["(S (NN a))"] * 11)
    assert ok.overall.error_sentences == 11
    with pytest.raises(InputError, match=r"sentence 12: Length unmatch.*gives up") as info:
        evalb.score(gold, ["(S (NN a))"] * 12)
    assert "the test tree lacks the gold tree's word 2 'b'" in info.value.problem
    assert "(the first, sentence 1: the test tree lacks" in info.value.problem


# Parser output: the tagger gave punctuation another tag than gold, so each side deletes
# other words. The words are the same: both sides delete by the gold tree's tags.
GOLD_PUNCT = "(S (NP (NN a)) (, ,) (VP (VBD b) (NP (NN c))) (. .))"
TEST_PUNCT = "(S (NP (NN a) (NN ,)) (VP (VBD b) (NP (NN c))) (: .))"


def test_punctuation_tagged_otherwise_is_deleted_by_gold_tags():
    report = evalb.score([GOLD_PUNCT], [TEST_PUNCT])
    row = report.rows[0]
    assert (row.status, row.error) == (0, None)
    assert (row.words, row.correct_tags) == (3, 3)
    # NP (0,1) matches once the test's "," is deleted with the gold tree's tags; S, VP and
    # the inner NP match too.
    assert (row.matched, row.gold_brackets, row.test_brackets) == (4, 4, 4)
    assert (report.realigned_words, report.realigned_sentences) == (1, 1)


def test_same_deleted_words_are_scored_as_evalb_does():
    report = evalb.score([GOLD_PUNCT], [GOLD_PUNCT.replace("(. .)", "(: .)")])
    assert report.rows[0].status == 0
    assert (report.realigned_words, report.realigned_sentences) == (0, 0)


@pytest.mark.parametrize(
    ("test", "difference"),
    [
        ("(S (NN a) (NN x) (NN b))", "the test tree has a word the gold tree lacks: word 2 'x'"),
        ("(S (NN a))", "the test tree lacks the gold tree's word 2 'b'"),
        ("(S (NN a) (NN c))", "word 2 is 'c' in the test tree but 'b' in the gold tree"),
        ("(S (NN x) (NN y) (NN z))",
         "the test tree has 3 words, the gold tree 2; they part at word 1 ('x' in test, 'a' in "
         "gold)"),
    ],
)
def test_error_sentence_says_which_side_differs_and_how(test, difference):
    row = evalb.score(["(S (NN a) (NN b))"], [test]).rows[0]
    assert (row.status, row.difference) == (1, difference)


@pytest.mark.parametrize(
    ("tree", "problem"),
    [
        ("(S (NN a)", "1 '\\(' never closed"),
        ("(S (NN a)))", "'\\)' at character 11 closes nothing"),
        ("(S (NN a b))", "word 'a' at character 8 is not in a \\(TAG word\\) leaf"),
    ],
)
def test_malformed_tree_is_an_input_error(tree, problem):
    with pytest.raises(InputError, match=f"test tree 2: .*{problem}"):
        evalb.score(["(S (NN a))", "(S (NN a))"], ["(S (NN a))", tree])


def test_different_tree_counts_is_an_input_error():
    with pytest.raises(InputError, match="2 gold trees but 1 test trees"):
        evalb.score(["(S (NN a))", "(S (NN a))"], ["(S (NN a))"])


# --- reading files ----------------------------------------------------------------------------


def test_read_trees_one_per_line_keeps_blank_lines_as_sentences(tmp_path):
    path = tmp_path / "t.mrg"
    path.write_text("(S (NN a))\n\n(S (NN b))\n\n\n")
    assert evalb.read_trees(path) == ["(S (NN a))", "", "(S (NN b))"]


def test_read_trees_across_lines(tmp_path):
    path = tmp_path / "t.mrg"
    path.write_text("( (S\n    (NN a)\n    (NN b)))\n\n(S (NN c))\n")
    assert evalb.read_trees(path) == ["( (S (NN a) (NN b)))", "(S (NN c))"]


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        ("(S (NN a))\n(S (NN b)\n(S (NN c))\n", 2, "never closed"),
        ("(S (NN a))\n(S (NN b)))\n", 2, "closes nothing"),
        ("(S (NN a))\n(S (NN b) c)\n", 2, "word 'c'"),
        # two files concatenated, the first without a final newline: two trees on a line
        ("(S (NN a))\n(S (NN b))(S (NN c))\n(S (NN d))\n", 2, "a second tree starts at "
         "character 11"),
        ("(S (NN a)\n)\n( (S (NN b)) ) (S (NN c)\n)\n", 3, "a second tree starts"),
    ],
)
def test_read_trees_names_file_and_line(tmp_path, text, line, problem):
    path = tmp_path / "bad.mrg"
    path.write_text(text)
    with pytest.raises(InputError, match=problem) as info:
        evalb.read_trees(path)
    assert (info.value.path, info.value.line) == (str(path), line)


# --- pad eval ---------------------------------------------------------------------------------


def test_cli_prints_evalb_report(evalb_dir, capsys):
    gold, test = evalb_dir / "gold_first60.mrg", evalb_dir / "test_errors.mrg"
    assert main(["eval", str(gold), str(test)]) == 0
    out, err = capsys.readouterr()
    assert out == (evalb_dir / "expected_errors.txt").read_text()
    assert err.splitlines() == [
        "18 : Words unmatch (expected|): word 10 is '' in the test tree but 'expected' in the "
        "gold tree",
        "41 : Length unmatch (44|43): the test tree lacks the gold tree's word 25 'while'"]


def test_cli_scores_parser_output_whose_punctuation_tags_differ(tmp_path, capsys):
    gold, test = tmp_path / "gold.mrg", tmp_path / "parsed.mrg"
    gold.write_text(f"{GOLD_PUNCT}\n")
    test.write_text(f"{TEST_PUNCT}\n")
    assert main(["eval", str(gold), str(test)]) == 0
    out, err = capsys.readouterr()
    assert "Number of Valid sentence  =      1" in out
    assert "Bracketing FMeasure       = 100.00" in out
    assert "pad eval: 1 words in 1 sentences are punctuation by the tags of one tree only: " \
           "deleted by the gold tree's tags on both sides" in err


def test_an_outer_unlabeled_bracket_on_one_side_only_is_counted_per_side():
    gold = ["( (S (NN a) (VP (VB b))))", "(TOP (S (NN a) (VB b)))", "( (S (NN a) (VB b)))"]
    test = ["(TOP (S (NN a) (VP (VB b))))", "( (S (NN a) (VB b)))", "( (S (NN a) (VB b)))"]
    assert evalb.score(gold, test).lone_roots == {"gold": 1, "test": 1}
    assert not evalb.score(gold, test, [""]).lone_roots


def test_cli_says_what_raw_treebank_gold_costs_and_how_to_score_without_it(tmp_path, capsys):
    # a Penn Treebank .mrg tree against a conversion rooted in TOP: one bracket nothing
    # matches in each sentence, so the note gives the score with it deleted too
    gold, test = tmp_path / "wsj.mrg", tmp_path / "parsed.mrg"
    gold.write_text("( (S\n    (NP-SBJ (-NONE- *) )\n    (VP (VB Go) (ADVP (RB home) ))\n"
                    "    (. .) ))\n")
    test.write_text("(TOP (S (VP (VB Go) (ADVP (RB home))) (. .)))\n")
    assert main(["eval", str(gold), str(test)]) == 0
    out, err = capsys.readouterr()
    assert "Bracketing Recall         =  75.00" in out
    assert "in 1 sentences the gold tree has an outer unlabeled bracket" in err
    assert "(F-measure 85.71); with it deleted on both sides (--delete-label ''), 100.00" in err
    assert main(["eval", str(gold), str(test), "--delete-label", ""]) == 0
    out, err = capsys.readouterr()
    assert "Bracketing FMeasure       = 100.00" in out
    assert "unlabeled" not in err


def test_cli_different_tree_counts(tmp_path, capsys):
    gold, test = tmp_path / "gold.mrg", tmp_path / "test.mrg"
    gold.write_text("(S (NN a))\n(S (NN b))\n")
    test.write_text("(S (NN a))\n")
    assert main(["eval", str(gold), str(test)]) == 1
    err = capsys.readouterr().err
    assert f"{test}: 1 trees here but 2 in {gold}" in err


def test_cli_unbalanced_tree(tmp_path, capsys):
    gold, test = tmp_path / "gold.mrg", tmp_path / "test.mrg"
    gold.write_text("(S (NN a))\n(S (NN b))\n")
    test.write_text("(S (NN a))\n(S (NN b)\n")
    assert main(["eval", str(gold), str(test)]) == 1
    assert f"{test}:2: unbalanced brackets" in capsys.readouterr().err


# --- dependencies -----------------------------------------------------------------------------


def test_attachment_scores():
    gold = [[2, 0, 2, 2], [0]]
    test = [[2, 0, 1, 3], [0]]
    rels_g = [["det", "root", "obj", "punct"], ["root"]]
    rels_t = [["nsubj", "root", "obj", "punct"], ["root"]]
    mask = [[False, False, False, True], [False]]
    scores = evalb.attachment_scores(gold, test, rels_g, rels_t, punct_mask=mask)
    assert scores == {
        "sentences": 2,
        "words": 5,
        "uas": 60.0,
        "las": 40.0,
        "words_no_punct": 4,
        "uas_no_punct": 75.0,
        "las_no_punct": 50.0,
    }
    assert evalb.attachment_scores(gold, test) == {"sentences": 2, "words": 5, "uas": 60.0}


def test_attachment_scores_mismatch():
    with pytest.raises(InputError, match="sentence 2: 1 gold heads but 2 test heads"):
        evalb.attachment_scores([[0], [0]], [[0], [2, 0]])
    with pytest.raises(InputError, match="2 gold sentences but 1 test"):
        evalb.attachment_scores([[0], [0]], [[0]])


def _conll(*sentences: list[tuple[str, int, str]]) -> str:
    return "".join(
        "".join(f"{i}\t{f}\t_\tX\tX\t_\t{h}\t{r}\t_\t_\n" for i, (f, h, r) in enumerate(s, 1))
        + "\n"
        for s in sentences
    )


GOLD_DEPS = [
    [("The", 2, "det"), ("cat", 3, "nsubj"), ("sat", 0, "root"), (".", 3, "punct")],
    [("Yes", 0, "root"), ("!", 1, "punct")],
]


def test_cli_deps(tmp_path, capsys):
    gold, test = tmp_path / "gold.conll", tmp_path / "test.conll"
    gold.write_text(_conll(*GOLD_DEPS))
    test.write_text(
        _conll(
            [("The", 3, "det"), ("cat", 3, "obj"), ("sat", 0, "root"), (".", 2, "punct")],
            [("Yes", 0, "root"), ("!", 1, "punct")],
        )
    )
    assert main(["eval", "--deps", str(gold), str(test)]) == 0
    # 6 words: heads right for cat, sat, Yes, ! (4/6); labels right for sat, Yes, ! (3/6).
    # Without punctuation: The, cat, sat, Yes: heads 3/4, labels 2/4.
    assert capsys.readouterr().out.splitlines() == [
        "Sentences           2",
        "            all words   no punct",
        "Words               6          4",
        "UAS             66.67      75.00",
        "LAS             50.00      50.00",
    ]


def test_cli_deps_token_mismatch_names_files_and_sentence(tmp_path, capsys):
    gold, test = tmp_path / "gold.conll", tmp_path / "test.conll"
    gold.write_text(_conll(*GOLD_DEPS))
    test.write_text(_conll(GOLD_DEPS[0], [("No", 0, "root"), ("!", 1, "punct")]))
    assert main(["eval", "--deps", str(gold), str(test)]) == 1
    err = capsys.readouterr().err
    assert f"{test}:6: sentence 2: word 1 is 'No' here but 'Yes' in {gold} (line 6)" in err
    test.write_text(_conll(GOLD_DEPS[0]))
    assert main(["eval", "--deps", str(gold), str(test)]) == 1
    assert f"{test}: 1 sentences here but 2 in {gold}" in capsys.readouterr().err


def test_bytes_that_are_not_utf8_name_the_file_and_line(tmp_path):
    from pad_engine.errors import InputError
    from pad_engine.learning.evalb import read_trees

    path = tmp_path / "latin1.mrg"
    path.write_bytes(b"(S (NN a))\n(S (NN ni\xf1o))\n")
    with pytest.raises(InputError, match=r"latin1\.mrg:2: undecodable bytes"):
        read_trees(path, "utf-8")
    notes = []
    assert read_trees(path, warn=notes.append)[1] == "(S (NN niño))"
    assert notes == [f"{path}: 1 lines are not UTF-8: read as cp1252 (give --encoding if that "
                     "is wrong)"]
