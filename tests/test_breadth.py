"""Real-world breadth: treebanks whose d-parses have several roots."""

from __future__ import annotations

import pytest

from pad_engine.api import (
    DepSentence,
    RuleBasedEngine,
    induced_heads,
    read_conll,
    resource_path,
)
from pad_engine.cli import main
from pad_engine.trees.deptree import single_root, tree_problem
from pad_engine.trees.projectivize import Lift, describe_lifts, projectivize

# word 1 "(" and word 5 "." hang from 0 beside the main root 3, as in CoNLL 2007 Basque
SEVERAL = [0, 3, 0, 3, 0]


def test_extra_roots_go_under_the_root_that_dominates_most():
    heads, main, extra = single_root(SEVERAL)
    assert (heads, main, extra) == ([3, 3, 0, 3, 3], 3, [1, 5])
    assert tree_problem(SEVERAL) is not None
    assert tree_problem(SEVERAL, several_roots=True) is None
    # ties go to the leftmost root; a single root is left alone
    assert single_root([0, 0]) == ([0, 1], 1, [2])
    assert single_root([2, 0, 2]) == ([2, 0, 2], 2, [])


def test_projectivize_reports_re_rooting_like_a_lift():
    heads, lifts = projectivize(SEVERAL)
    assert heads == [3, 3, 0, 3, 3]
    assert lifts == [Lift(1, 0, 3), Lift(5, 0, 3)]
    assert describe_lifts(lifts) == "several roots, re-rooted 1: 0 -> 3, 5: 0 -> 3"
    # re-rooting and lifting together: 4 -> 2 crosses 3's arc once 3 hangs from 1
    heads, lifts = projectivize([0, 1, 0, 2])
    assert tree_problem(heads) is None
    assert Lift(3, 0, 1) in lifts


def test_a_file_with_several_roots_reads_and_converts(tmp_path):
    rows = ["1\t(\t(\tPUNCT\tPUNCT\t_\t0\tPUNC\t_\t_",
            "2\tgizon\tgizon\tIZE\tIZE\t_\t3\tncsubj\t_\t_",
            "3\tdator\tetorri\tADI\tADI\t_\t0\tROOT\t_\t_",
            "4\tgaur\tgaur\tADB\tADB\t_\t3\tncmod\t_\t_",
            "5\t.\t.\tPUNCT\tPUNCT\t_\t0\tPUNC\t_\t_"]
    path = tmp_path / "eus.conll"
    path.write_text("\n".join(rows) + "\n\n", encoding="utf-8")
    result = read_conll(path, on_error="skip")
    assert not result.skipped
    assert result.sentences[0].heads == SEVERAL
    best = RuleBasedEngine().best(result.sentences[0])
    assert induced_heads(best.tree, 5) == [3, 3, 0, 3, 3]
    out = tmp_path / "eus.mrg"
    assert main(["convert", str(path), "-o", str(out), "--rules"]) == 0
    assert out.read_text().startswith("(TOP")


def test_no_conll2007_sentence_is_refused_for_its_roots(conll2007_dir, tmp_path, capsys):
    files = sorted(conll2007_dir.glob("*.t*"))
    several = 0
    for path in files:
        result = read_conll(path, on_error="skip")
        assert not [e for e in result.skipped if "root" in str(e)], path
        several += sum(s.heads.count(0) > 1 for s in result.sentences)
    assert several > 1000  # Basque alone has over a thousand such sentences
    eus = conll2007_dir / "eus.test"
    assert main(["convert", str(eus), "-o", str(tmp_path / "eus.mrg")]) == 0
    err = capsys.readouterr().err
    assert "several roots, re-rooted" in err
    assert "not a tree" not in err


@pytest.mark.parametrize("heads", [[0, 0, 0], [2, 0, 0, 3], [0, 1, 0, 3, 0]])
def test_re_rooted_trees_decode_consistently(heads):
    sent = DepSentence([f"w{i}" for i in range(len(heads))], ["NN"] * len(heads), heads)
    fixed, _ = projectivize(heads)
    assert induced_heads(RuleBasedEngine().best(sent).tree, len(heads)) == fixed


def test_delete_label_scores_root_rooted_gold_like_top(tmp_path, capsys):
    gold = tmp_path / "gold.mrg"
    test = tmp_path / "test.mrg"
    gold.write_text("(ROOT (S (NP (DT The) (NN cat)) (VP (VBD sat)) (. .)))\n")
    test.write_text("(TOP (S (NP (DT The) (NN cat)) (VP (VBD sat)) (. .)))\n")
    assert main(["eval", str(gold), str(test)]) == 0
    default = capsys.readouterr().out
    assert "Bracketing Recall         =  75.00" in default  # ROOT counts as a missed bracket
    assert main(["eval", str(gold), str(test), "--delete-label", "ROOT"]) == 0
    deleted = capsys.readouterr().out
    assert "Bracketing Recall         = 100.00" in deleted
    assert "Bracketing Precision      = 100.00" in deleted


def test_pad_train_uses_the_retrain_settings_by_default(tmp_path):
    from pad_engine.api import Model
    from pad_engine.learning.retrain import SETTINGS

    trees = tmp_path / "t.mrg"
    trees.write_text("(S (NP (DT The) (NN cat)) (VP (VBD sat)) (. .))\n"
                     "(S (NP (PRP It)) (VP (VBD ran) (ADVP (RB away))) (. .))\n")
    assert main(["train", str(trees), "-o", str(tmp_path / "d.padmodel"), "--epochs", "1"]) == 0
    assert main(["train", str(trees), "-o", str(tmp_path / "n.padmodel"), "--epochs", "1",
                 "--no-backoff"]) == 0
    default, plain = Model.load(tmp_path / "d.padmodel"), Model.load(tmp_path / "n.padmodel")
    assert default.training["backoff"] is SETTINGS.backoff is True
    assert plain.training["backoff"] is False
    assert len(default.grammar.binary) > len(plain.grammar.binary)


def test_oracle_takes_ud_pairs_with_brackets_and_non_projective_arcs(gum_dir, tmp_path, capsys):
    """GUM_academic_art has words with brackets ("(" in the d-parse, -LRB- in the tree) and
    non-projective sentences; pad oracle pairs them as pad train --deps does, with the
    bundled UD model's grammar, and so scores far above the bound of a grammar read off PTB
    trees alone (the PTB model's fast twin; the default PTB model's back-off grammar builds
    nearly any bracketing)."""
    name = "GUM_academic_art"
    gold, deps = gum_dir / "const" / f"{name}.ptb", gum_dir / "dep" / f"{name}.conllu"
    scores = {}
    for model in (None, "english-ptb-collins-fast"):
        out = tmp_path / f"{model}.mrg"
        extra = ["--model", str(resource_path("models", f"{model}.padmodel"))] if model else []
        assert main(["oracle", str(gold), str(deps), "-o", str(out), *extra]) == 0
        err = capsys.readouterr().err
        assert "skipped" not in err
        lines = out.read_text().splitlines()
        assert len(lines) == 28
        assert all(line.startswith("(TOP") for line in lines)
        assert main(["eval", str(gold), str(out), "--delete-label", "ROOT"]) == 0
        report = capsys.readouterr().out
        scores[model] = float(report.split("Bracketing FMeasure       =")[1].split()[0])
    assert scores[None] > scores["english-ptb-collins-fast"] + 15


def test_oracle_skips_one_bad_pair_and_keeps_the_rest(tmp_path, capsys):
    gold = tmp_path / "gold.mrg"
    deps = tmp_path / "deps.conll"
    gold.write_text("(S (NP (NN Cats)) (VP (VBP sleep)))\n(S (NP (NN Dogs)) (VP (VBP bark)))\n"
                    "(S (NP (NN Birds)) (VP (VBP sing)))\n")
    rows = [["1\tCats\t_\tNN\tNN\t_\t2\tSBJ\t_\t_", "2\tsleep\t_\tVBP\tVBP\t_\t0\tROOT\t_\t_"],
            ["1\tDogs\t_\tNN\tNN\t_\t2\tSBJ\t_\t_", "2\tbark\t_\tVBP\tVBP\t_\t0\tROOT\t_\t_",
             "3\textra\t_\tNN\tNN\t_\t2\tOBJ\t_\t_"],
            ["1\tBirds\t_\tNN\tNN\t_\t2\tSBJ\t_\t_", "2\tsing\t_\tVBP\tVBP\t_\t0\tROOT\t_\t_"]]
    deps.write_text("\n\n".join("\n".join(r) for r in rows) + "\n\n")
    out = tmp_path / "out.mrg"
    assert main(["oracle", str(gold), str(deps), "-o", str(out)]) == 0
    lines = out.read_text().split("\n")[:3]
    assert lines[0].startswith("(TOP")
    assert lines[1] == ""
    assert lines[2].startswith("(TOP")
    assert "deps.conll:4: 3 words but 2 in the paired tree" in capsys.readouterr().err


PSD = """
( (IP-MAT (CODE VS:I_1J)
          (PP (P Í-í)
              (NP (ADJ-D fyrstu$-fyrstur) (D-D $ni-hin)))
          (BEDI var-vera)
          (NP-SBJ-1 *exp*)
          (CP-REL (WNP-2 0) (C sum-sum) (IP-SUB (NP-SBJ *T*-2) (VBPI er-vera)))
          (. ,-,))
  (ID TEST,.1))

( (IP-MAT (NP-SBJ (PRO-N hann-hann)) (VBDI kom-koma) (. .-.))
  (ID TEST,.2))
"""


def test_penn_helsinki_trees_read_as_penn_trees(tmp_path):
    from pad_engine.io.penn import normalize, read_penn, tree_to_line

    path = tmp_path / "test.psd"
    path.write_text(PSD, encoding="utf-8")
    result = read_penn(path)
    assert result.ids == ["TEST,.1", "TEST,.2"]
    lines = [tree_to_line(normalize(t)) for t in result.trees]
    assert lines == [
        "(TOP (IP (PP (P Í) (NP (ADJ-D fyrstuni))) (BEDI var) (CP (C sum) (IP (VBPI er)))"
        " (. ,)))",
        "(TOP (IP (NP (PRO-N hann)) (VBDI kom) (. .)))"]


def test_a_psd_file_pairs_with_conll_sentences_by_their_ids(tmp_path):
    from pad_engine.learning.pairs import read_pairs

    psd = tmp_path / "t.psd"
    psd.write_text(PSD, encoding="utf-8")
    conll = tmp_path / "t.conllu"
    words = [("Í", "P", 2), ("fyrstuni", "ADJ-D", 3), ("var", "BEDI", 0), ("sum", "C", 5),
             ("er", "VBPI", 3), (",", ".", 3), ("hann", "PRO-N", 8), ("kom", "VBDI", 3),
             (".", ".", 8)]
    rows = [f"{i}\t{w}\t_\tX\t{t}\t_\t{h}\tdep\t_\t_" for i, (w, t, h) in enumerate(words, 1)]
    conll.write_text("# sent_id = a\n# X_IDs = TEST,.1 ; TEST,.2\n" + "\n".join(rows)
                     + "\n\n# sent_id = b\n# X_ID = TEST,.3\n1\tx\t_\tX\tN\t_\t0\troot\t_\t_\n\n",
                     encoding="utf-8")
    (pairs,), problems = read_pairs([str(psd)], [str(conll)])
    assert len(pairs) == 1
    assert pairs[0].forms == [w for w, _, _ in words]
    assert [str(p) for p in problems] == [f"{conll}:13: no tree TEST,.3 in {psd} for this "
                                          "sentence"]


@pytest.mark.slow
def test_farpahc_trains_with_its_ud_pair(farpahc_dir, tmp_path, capsys):
    out = tmp_path / "fo.padmodel"
    assert main(["train", str(farpahc_dir / "1936.ntjohn.rel-bib.psd"), "--deps",
                 str(farpahc_dir / "fo_farpahc-ud-train.conllu"), "--epochs", "1",
                 "--no-backoff", "--hold-out", "10", "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert err.count("skipped") == 65  # UD splits words the .psd joins with $: each named
    # one file pair: every 10th of its 955 sentence pairs is held out and scored
    assert "pad train: held-out 95 sentences: F1 " in err
    assert "pad train: 860 trees" in err


def test_hold_out_sets_aside_files_or_with_fewer_files_sentences():
    from pad_engine.learning.pairs import hold_out

    files = [[f"{f}.{i}" for i in range(4)] for f in "abc"]
    assert hold_out(files, 3) == ([*files[0], *files[1]], files[2])
    assert hold_out(files, 0) == ([p for ps in files for p in ps], [])
    kept, held = hold_out(files[:1], 3)  # one file: every 3rd sentence
    assert held == ["a.2"]
    assert kept == ["a.0", "a.1", "a.3"]


def test_headrules_with_deps_is_refused_not_ignored(tmp_path, capsys):
    trees, deps = tmp_path / "t.mrg", tmp_path / "d.conll"
    trees.write_text("(S (NP (DT The) (NN cat)) (VP (VBD sat)))\n")
    deps.write_text(_conll([("The", "DT", 2), ("cat", "NN", 3), ("sat", "VBD", 0)]))
    assert main(["train", str(trees), "--deps", str(deps), "--headrules", "icepahc",
                 "-o", str(tmp_path / "m.padmodel")]) == 1
    assert "--headrules has no effect with --deps" in capsys.readouterr().err


def _conll(rows: list[tuple[str, str, int]]) -> str:
    return "\n".join(f"{i}\t{w}\t_\t{t}\t{t}\t_\t{h}\tdep\t_\t_"
                     for i, (w, t, h) in enumerate(rows, 1)) + "\n\n"


SPANISH = [("Iñigo", "NNP", 2), ("llegó", "VBD", 0), ("aquí", "RB", 2), (".", ".", 2)]
RUSSIAN = [("Мальчик", "NN", 2), ("читает", "VBZ", 0), ("интересную", "JJ", 5),
           ("старую", "JJ", 5), ("книгу", "NN", 2), (".", ".", 2)]


def test_a_latin_1_file_is_read_with_a_warning_naming_the_encoding(tmp_path):
    path = tmp_path / "es.conll"
    path.write_bytes(_conll(SPANISH).encode("latin-1") * 3)
    result = read_conll(path, on_error="skip")
    assert not result.skipped
    assert len(result.sentences) == 3
    assert result.sentences[0].forms[:3] == ["Iñigo", "llegó", "aquí"]
    assert result.note == f"{path}: 9 lines are not UTF-8: read as cp1252 (give --encoding " \
        "if that is wrong)"
    told = read_conll(path, encoding="latin-1")
    assert told.note is None
    assert told.sentences[0].forms[0] == "Iñigo"


def test_lines_in_another_encoding_among_utf8_lines_are_each_read_right(tmp_path):
    """CoNLL 2007 Basque: mostly UTF-8, a few Latin-1 lines."""
    path = tmp_path / "mixed.conll"
    path.write_bytes(_conll(SPANISH).encode("utf-8") + _conll(SPANISH).encode("cp1252"))
    result = read_conll(path)
    assert [s.forms[0] for s in result.sentences] == ["Iñigo", "Iñigo"]
    assert "3 lines are not UTF-8: read as cp1252" in result.note


def test_a_cyrillic_file_is_detected_as_such(tmp_path):
    path = tmp_path / "ru.conll"
    path.write_bytes(_conll(RUSSIAN).encode("cp1251") * 4)
    result = read_conll(path)
    assert result.sentences[0].forms[:2] == ["Мальчик", "читает"]
    assert "read as cp1251" in result.note


def test_every_reading_command_takes_encoding(tmp_path, capsys):
    conll = tmp_path / "es.conll"
    conll.write_bytes(_conll(SPANISH).encode("latin-1"))
    out = tmp_path / "es.mrg"
    assert main(["convert", str(conll), "-o", str(out), "--rules"]) == 0
    assert "3 lines are not UTF-8: read as cp1252" in capsys.readouterr().err
    assert "Iñigo" in out.read_text(encoding="utf-8")
    assert main(["convert", str(conll), "-o", str(out), "--rules", "--encoding", "latin-1"]) == 0
    assert "not UTF-8" not in capsys.readouterr().err
    assert main(["convert", str(conll), "--encoding", "klingon"]) == 1
    assert "unknown encoding 'klingon'" in capsys.readouterr().err
    penn = tmp_path / "es.mrg1"
    penn.write_bytes("(S (NP (NNP Iñigo)) (VP (VBD llegó)))\n".encode("latin-1"))
    assert main(["deps", str(penn), str(tmp_path / "d.conll"), "--encoding", "latin-1"]) == 0
    assert "Iñigo" in (tmp_path / "d.conll").read_text(encoding="utf-8")
    assert main(["eval", str(penn), str(penn)]) == 0
    assert "lines are not UTF-8: read as cp1252" in capsys.readouterr().err
    helps = {c: _help(c, capsys) for c in ("convert", "train", "oracle", "eval", "deps")}
    assert all("--encoding" in text for text in helps.values()), helps


def _help(command: str, capsys) -> str:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    return capsys.readouterr().out


def test_an_undecodable_line_costs_only_its_sentence(tmp_path, capsys):
    conll = tmp_path / "two.conll"
    conll.write_bytes(_conll(SPANISH).encode("utf-8") + _conll(
        [("Prices", "NNS", 2), ("rose", "VBD", 0)]).encode("ascii"))
    result = read_conll(conll, encoding="ascii", on_error="skip")
    assert [s.forms for s in result.sentences] == [["Prices", "rose"]]
    assert "line is not valid ascii" in str(result.skipped[0])


def test_convert_dir_reads_a_latin_1_folder(tmp_path, capsys):
    src = tmp_path / "in"
    src.mkdir()
    (src / "es.conll").write_bytes(_conll(SPANISH).encode("latin-1"))
    out = tmp_path / "out"
    assert main(["convert-dir", str(src), str(out), "--jobs", "1"]) == 0
    err = capsys.readouterr().err
    assert "3 lines are not UTF-8: read as cp1252" in err
    assert "Iñigo" in (out / "es.mrg").read_text(encoding="utf-8")
    out2 = tmp_path / "out2"
    assert main(["convert-dir", str(src), str(out2), "--jobs", "1", "--encoding", "latin-1"]) == 0
    assert "not UTF-8" not in capsys.readouterr().err
    assert "Iñigo" in (out2 / "es.mrg").read_text(encoding="utf-8")
    assert main(["convert-dir", str(src), str(out2), "--encoding", "nope"]) == 1
