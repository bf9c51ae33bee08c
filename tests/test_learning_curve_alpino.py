"""``pad learning-curve --select --alpino``: simulated annotation in both orders on Dutch
Alpino, converted and held out as ``pad bench-labels`` does; bad files stop in one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from pad_engine.cli import main

TREE = """<alpino_ds version="1.2" id="{id}">
  <node begin="0" cat="top" end="4" id="0" rel="top">
    <node begin="0" cat="smain" end="3" id="1" rel="--">
      <node begin="0" cat="np" end="2" id="2" rel="su">
        <node begin="0" end="1" id="3" pos="det" rel="det" root="de" word="De"/>
        <node begin="1" end="2" id="4" pos="noun" rel="hd" root="{noun}" word="{noun}"/>
      </node>
      <node {begin} end="3" id="5" pos="verb" rel="hd" root="{verb}" word="{verb}"/>
    </node>
    <node begin="3" end="4" id="6" pos="punct" rel="--" root="." word="."/>
  </node>
</alpino_ds>
"""
WORDS = [("hond", "blaft"), ("kat", "slaapt"), ("man", "loopt"), ("vrouw", "lacht")]


def _alpino(path: Path, broken: int = -1) -> Path:
    """An Alpino file of four sentences "De NOUN VERB ." (tree ``broken`` lacks a begin)."""
    trees = "".join(TREE.format(id=k, noun=n, verb=v, begin="" if k == broken else 'begin="2"')
                    for k, (n, v) in enumerate(WORDS))
    path.write_text(f'<?xml version="1.0"?>\n<alpino version="1.2">\n{trees}</alpino>\n',
                    encoding="utf-8")
    return path


def _rows(out: str) -> list[tuple[str, int, int, float]]:
    return [(o, int(s), int(w), float(f)) for o, s, w, f in
            (line.split("\t") for line in out.splitlines() if not line.startswith("#"))]


def test_both_orders_on_a_small_alpino_file(tmp_path, capsys):
    bank = _alpino(tmp_path / "alpino.xml")
    assert main(["learning-curve", "--select", "both", "--alpino", str(bank),
                 "--sizes", "1", "2", "--test", "2"]) == 0
    out = capsys.readouterr().out
    header, columns = out.splitlines()[:2]
    assert header.startswith("# 2 test sentences: the last of 4 Dutch Alpino trees")
    assert "punctuation deleted" in header
    assert columns == "# ORDER\tSENTENCES\tWORDS\tF1"
    rows = _rows(out)
    assert [(o, s, w) for o, s, w, _ in rows] == [
        ("sequential", 1, 4), ("sequential", 2, 8), ("uncertain", 1, 4), ("uncertain", 2, 8)]
    assert all(0.0 <= f1 <= 100.0 for *_, f1 in rows)


def test_alpino_trees_that_cannot_be_read_are_skipped_and_counted(tmp_path, capsys):
    bank = _alpino(tmp_path / "alpino.xml", broken=0)
    assert main(["learning-curve", "--select", "sequential", "--alpino", str(bank),
                 "--sizes", "1", "--test", "2"]) == 0
    captured = capsys.readouterr()
    assert "the last of 3 Dutch Alpino trees" in captured.out
    assert "skipped" in captured.err
    assert "tree 1 (0)" in captured.err


@pytest.mark.parametrize(("content", "problem"), [
    (None, "No such file"),
    ("(TOP (S (NN dog)))", "not XML"),
    ('<?xml version="1.0"?><treebank><s/></treebank>', "not Alpino XML"),
])
def test_a_file_that_is_not_alpino_stops_in_one_line_naming_it(tmp_path, capsys, content,
                                                                problem):
    bank = tmp_path / "alpino.xml"
    if content is not None:
        bank.write_text(content, encoding="utf-8")
    assert main(["learning-curve", "--select", "both", "--alpino", str(bank)]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert err.startswith(f"pad learning-curve: {bank}")
    assert problem in err


@pytest.mark.parametrize(("extra", "problem"), [
    ([], "--alpino needs --select"),
    (["--select", "both", "--labels", "-o", "x.png"], "no -o, --labels"),
    (["--select", "both", "--test", "0"], "--test needs --alpino and a positive K"),
    (["--select", "both", "--sizes", "2", "--test", "3"], "4 trees: too few to hold out 3"),
])
def test_alpino_options_that_do_not_fit_are_refused(tmp_path, capsys, extra, problem):
    bank = _alpino(tmp_path / "alpino.xml")
    assert main(["learning-curve", "--alpino", str(bank), *extra]) == 1
    err = capsys.readouterr().err.strip()
    assert problem in err
    assert len(err.splitlines()) == 1


def test_test_needs_alpino(capsys):
    assert main(["learning-curve", "--select", "both", "--test", "5"]) == 1
    assert "--test needs --alpino" in capsys.readouterr().err


@pytest.mark.slow  # reads all 7,136 trees and trains four times: about 9 s
def test_both_orders_on_the_alpino_treebank(alpino_dir, capsys):
    assert main(["learning-curve", "--select", "both", "--alpino",
                 str(alpino_dir / "alpino.xml"), "--sizes", "5", "10", "--test", "30"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# 30 test sentences: the last of 7136 Dutch Alpino trees")
    rows = _rows(out)
    assert [(o, s) for o, s, *_ in rows] == [
        ("sequential", 5), ("sequential", 10), ("uncertain", 5), ("uncertain", 10)]
    # the first batch, with no model to ask yet, is the file's first trees in both orders
    assert rows[0][1:] == rows[2][1:]
    assert all(w > s and 30.0 < f1 <= 100.0 for _, s, w, f1 in rows)
