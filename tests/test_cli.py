"""The ``pad`` command line: help for every command, conversion end to end, clear failures."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest
from conftest import REPO
from toy import BAD, BAD_LINE, conll_text, toy_examples

from pad_engine.cli import build_parser, main


def test_every_command_has_help(capsys):
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    assert {"convert", "train", "oracle", "bench", "eval"} <= set(sub.choices)
    for name in sub.choices:
        with pytest.raises(SystemExit) as exit_:
            main([name, "--help"])
        assert exit_.value.code == 0
        assert "usage: pad " + name in capsys.readouterr().out


def test_convert_file_one_line_per_sentence_in_order(toy_model_path, tmp_path, capsys):
    exs = toy_examples()
    src = tmp_path / "in.conll"
    src.write_text(conll_text(exs[:2]) + BAD + conll_text(exs[2:]), encoding="utf-8")
    out = tmp_path / "out.mrg"
    assert main(["convert", str(src), "-o", str(out), "--model", str(toy_model_path)]) == 0
    lines = out.read_text(encoding="utf-8").split("\n")[:-1]
    assert len(lines) == len(exs) + 1
    assert lines[2] == ""  # the malformed sentence keeps its place
    for ex, line in zip(exs, lines[:2] + lines[3:]):
        assert line.startswith("(TOP ")
        assert all(f" {w})" in line for w in ex.forms)
    err = capsys.readouterr().err
    assert f"in.conll:{BAD_LINE}: HEAD" in err
    assert f"{len(exs)} of {len(exs) + 1} sentences converted" in err


def test_convert_stdin_to_stdout(toy_model_path, monkeypatch, capsys):
    exs = toy_examples()
    monkeypatch.setattr(sys, "stdin", io.StringIO(conll_text(exs)))
    assert main(["convert", "--model", str(toy_model_path), "--no-prune"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == len(exs)
    assert all(line.startswith("(TOP ") for line in out)


def test_convert_fails_with_one_line_reason(tmp_path, capsys):
    src = tmp_path / "in.conll"
    src.write_text(conll_text(toy_examples()[:1]), encoding="utf-8")
    bad_model = tmp_path / "model.padmodel"
    bad_model.write_text("not a model")
    assert main(["convert", str(src), "--model", str(bad_model)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("pad convert: ")
    assert "model.padmodel" in err
    assert "\n" not in err
    assert main(["convert", str(tmp_path / "absent.conll"), "--model", str(bad_model)]) == 1


def test_convert_kbest_blocks(toy_model_path, tmp_path):
    exs = toy_examples()
    src = tmp_path / "in.conll"
    src.write_text(conll_text(exs), encoding="utf-8")
    out = tmp_path / "out.txt"
    assert main(["convert", str(src), "-o", str(out), "--model", str(toy_model_path),
                 "--kbest", "3"]) == 0
    blocks = out.read_text(encoding="utf-8").split("\n\n")
    assert blocks[-1] == ""  # every block, the last included, ends with a blank line
    blocks = blocks[:-1]
    assert len(blocks) == len(exs)
    for block in blocks:
        rows = [line.split("\t") for line in block.split("\n")]
        assert 1 <= len(rows) <= 3
        scores = [float(score) for score, _ in rows]
        assert scores == sorted(scores, reverse=True)
        trees = [tree for _, tree in rows]
        assert len(set(trees)) == len(trees)
        assert all(t.startswith("(TOP ") for t in trees)


def test_convert_process_does_not_load_scipy_linalg(toy_model_path, tmp_path):
    """numba's BLAS probe would import scipy.linalg (0.3-0.4 s of start-up) if it could."""
    import subprocess

    conll = tmp_path / "in.conll"
    conll.write_text(conll_text(toy_examples()[:1]), encoding="utf-8")
    probe = ("import sys; from pad_engine.cli import main; "
             f"code = main(['convert', {str(conll)!r}, '--model', {str(toy_model_path)!r}]); "
             "print(code, sys.modules.get('scipy.linalg'))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert out[-1] == "0 None"


def test_a_command_imports_its_own_module_alone():
    """`pad convert` must not import and configure the other commands (their start-up cost);
    `pad --help` still lists every one, and a mistyped command still names them."""
    code = """
import sys
from pad_engine.cli import main
for argv in (["convert", "--help"], ["--help"], ["convrt"]):
    try:
        main(argv)
    except SystemExit:
        pass
    print(sorted(m for m in sys.modules if m.startswith("pad_engine.cli.")), file=sys.stderr)
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, cwd=REPO)  # the checkout's package, first on the path
    lines = [line for line in proc.stderr.splitlines() if line.startswith("[")]
    assert lines[0] == "['pad_engine.cli._options', 'pad_engine.cli.convert']"
    assert "'pad_engine.cli.train'" in lines[1]
    assert "convert-dir" in proc.stdout  # pad --help lists every command
    assert "train-deps" in proc.stdout
    assert "invalid choice: 'convrt'" in proc.stderr
    assert "'convert-dir'" in proc.stderr
