"""``pad learning-curve --adapt``: per group (genre), the first half corrected and the second
half scored, on a tiny folder laid out as GUM is (const/*.ptb paired with dep/*.conllu)."""

from __future__ import annotations

from pathlib import Path

import pytest
from toy import TREES, toy_examples

from pad_engine.cli import main
from pad_engine.io.conll import format_conllx
from pad_engine.learning.adapt_bench import group_name
from pad_engine.learning.adaptation import DEFAULT


@pytest.fixture
def genre_folder(tmp_path) -> Path:
    """Two genres of two documents each (the toy treebank), plus a file without a genre."""
    root = tmp_path / "paired"
    (root / "const").mkdir(parents=True)
    (root / "dep").mkdir()
    conll = "".join(format_conllx(ex.forms, ex.tags, ex.heads, ["dep"] * len(ex.forms)) + "\n"
                    for ex in toy_examples())
    for stem in ("GUM_news_a", "GUM_news_b", "GUM_whow_a", "GUM_whow_b", "loose"):
        (root / "const" / f"{stem}.ptb").write_text("\n\n".join(TREES) + "\n", encoding="utf-8")
        (root / "dep" / f"{stem}.conllu").write_text(conll, encoding="utf-8")
    return root


def test_group_names():
    assert group_name("GUM_news_xyz") == "news"
    assert group_name("loose") == "loose"
    assert group_name("a_") == "a_"


def test_adapt_prints_each_size_method_and_group(genre_folder, toy_model_path, capsys):
    assert main(["learning-curve", "--adapt", "--treebank", str(genre_folder), "--model",
                 str(toy_model_path), "--sizes", "2", "--methods", "continued", "guarded",
                 "scratch", "--groups", "news", "whow"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1] == "# groups: news (7 correctable, 7 scored), whow (7 correctable, 7 scored)"
    rows = {line.split("\t")[1]: line.split("\t") for line in out[3:]}
    assert set(rows) >= {f"Retrain default ({DEFAULT.name})", "continued", "guarded", "scratch",
                         "model alone", "projection alone", "  news", "  whow"}
    # the toy model knows these trees: corrections of trees it builds take nothing away
    assert rows["model alone"][2] == "100.00"
    assert rows[f"Retrain default ({DEFAULT.name})"][2] == "100.00"
    assert rows["guarded"][2] == "100.00"


def test_adapt_without_model_continues_the_bundled_one(genre_folder, capsys):
    # --model omitted: the bundled model that fits the d-parses, picked from the pairs
    assert main(["learning-curve", "--adapt", "--treebank", str(genre_folder), "--sizes", "2",
                 "--methods", "none", "--groups", "news"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# english-")
    assert "model alone" in out


def test_adapt_bad_input(genre_folder, capsys):
    assert main(["learning-curve", "--groups", "news"]) == 1
    assert "--groups need --adapt" in capsys.readouterr().err
    assert main(["learning-curve", "--adapt", "--treebank", str(genre_folder), "--groups",
                 "court"]) == 1
    assert "no group court" in capsys.readouterr().err
    assert main(["learning-curve", "--adapt", "--treebank", str(genre_folder), "--methods",
                 "nope"]) == 1
    assert "no adaptation method 'nope'" in capsys.readouterr().err
