"""Inputs of hostile size through the real commands and the app: a tree 100,000 levels deep
costs `pad deps` time and memory linear in its size, and a word or line longer than the
readers take is refused with its file and line while the rest of the file reads on.

Commands run in a subprocess under a time limit and an address-space cap, so that a
quadratic walk fails the test instead of hanging it or swapping the machine."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": str(REPO)}
DEEP = 100_000
MEMORY = 1 << 30  # bytes of address space: the fixed walks need under 400 MB at DEEP levels
SECONDS = 90


def pad(*args: str, seconds: float = SECONDS) -> subprocess.CompletedProcess:
    """``pad ARGS`` in a child process capped in memory, failing the test past ``seconds``."""

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))

    try:
        return subprocess.run([sys.executable, "-m", "pad_engine", *args], env=ENV,
                              capture_output=True, text=True, timeout=seconds, preexec_fn=cap)
    except subprocess.TimeoutExpired:
        pytest.fail(f"pad {args[0]} took over {seconds} s")


def right_branching(n: int, label: str = "S", tag: str = "NN", after: str = "") -> str:
    """A Penn tree nesting ``n`` phrases deep, one word per level (``after`` its top-level
    sibling)."""
    return ("( " + "".join(f"({label} ({tag} w{i}) " for i in range(n - 1))
            + f"({tag} w{n - 1})" + ")" * (n - 1) + after + ")\n")


def unary_chain(n: int) -> str:
    return "(S " * n + "(NN x)" + ")" * n + "\n"


@pytest.mark.parametrize("shape", ["right", "unary"])
@pytest.mark.parametrize("labels", ["relation", "phrase"])
def test_deps_takes_a_tree_100000_levels_deep(tmp_path, shape, labels):
    src, out = tmp_path / "deep.mrg", tmp_path / "deep.conll"
    src.write_text(right_branching(DEEP) if shape == "right" else unary_chain(DEEP))
    done = pad("deps", str(src), str(out), "--labels", labels)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = out.read_text().splitlines()
    assert len(rows) == (DEEP if shape == "right" else 1) + 1  # and the blank line
    assert rows[0].split("\t")[:2] == ["1", "w0" if shape == "right" else "x"]


def test_deps_takes_a_psd_tree_100000_levels_deep(tmp_path):
    src, out = tmp_path / "deep.psd", tmp_path / "deep.conll"
    src.write_text(right_branching(DEEP, "IP-MAT", "N", " (ID T,.1)"))
    done = pad("deps", str(src), str(out), "--headrules", "icepahc")
    assert done.returncode == 0, done.stderr[-2000:]
    assert len(out.read_text().splitlines()) == DEEP + 1
