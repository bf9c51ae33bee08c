"""``pad learning-curve --compare-continued``: Retrain's two ways (continuing from a model, from
scratch) side by side, on a tiny folder laid out as GUM is (const/*.ptb paired with
dep/*.conllu, every 10th document held out)."""

from __future__ import annotations

from pathlib import Path

import pytest
from toy import TREES, toy_examples

from pad_engine.cli import main
from pad_engine.io.conll import format_conllx


@pytest.fixture
def paired_folder(tmp_path) -> Path:
    """Ten documents of the toy treebank: c-parses in const/, labeled d-parses in dep/."""
    root = tmp_path / "paired"
    (root / "const").mkdir(parents=True)
    (root / "dep").mkdir()
    conll = "".join(format_conllx(ex.forms, ex.tags, ex.heads, ["dep"] * len(ex.forms)) + "\n"
                    for ex in toy_examples())
    for k in range(10):
        (root / "const" / f"doc{k}.ptb").write_text("\n\n".join(TREES) + "\n", encoding="utf-8")
        (root / "dep" / f"doc{k}.conllu").write_text(conll, encoding="utf-8")
    return root


def test_compare_continued_prints_both_ways_and_the_base(paired_folder, toy_model_path,
                                                         capsys):
    assert main(["learning-curve", "--compare-continued", "--treebank", str(paired_folder),
                 "--model", str(toy_model_path), "--sizes", "2", "9"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"# {len(TREES)} of {len(TREES)} test sentences (every 10th document")
    assert out[1].startswith("# toy.padmodel itself: F1 ")
    assert out[2] == "# SIZE\tCONTINUED F1\tSCRATCH F1"
    rows = [line.split("\t") for line in out[3:]]
    assert [int(size) for size, _, _ in rows] == [2, 9]
    assert all(0.0 <= float(f1) <= 100.0 for row in rows for f1 in row[1:])
    # continued from the toy model, which knows the test trees: 2 trees take nothing away;
    # from scratch, 2 trees are not enough
    assert out[1].endswith("F1 100.00")
    assert float(rows[0][1]) == 100.0 > float(rows[0][2])


def test_compare_continued_bad_input(paired_folder, capsys):
    assert main(["learning-curve", "--treebank", str(paired_folder), "--model", "x"]) == 1
    assert "not the Penn Treebank sample" in capsys.readouterr().err
    assert main(["learning-curve", "--compare-continued", "--treebank", str(paired_folder),
                 "--labels"]) == 1
    assert "--labels is for Penn trees" in capsys.readouterr().err
    assert main(["learning-curve", "--compare-continued", "--treebank", str(paired_folder),
                 "--sizes", "64"]) == 1
    assert "only 63 sentences" in capsys.readouterr().err
