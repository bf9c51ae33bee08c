"""A first start: Numba's cache is empty, so the decoder compiles (a minute and more on two
busy cores); the app must still show a tree within seconds, the rule-based projection's, and
say why, then the model's. Run as a person starts it: a process of its own, offscreen."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pad_gui.app import FIRST

REPO = Path(__file__).resolve().parent.parent
FIRST_TREE = 5.0  # seconds from launch to a tree on an empty cache


def _first_start(tmp_path: Path, sample: Path, model: Path, *flags: str,
                 path: tuple[Path, ...] = (), **extra: str) -> tuple[list[str], dict]:
    """The command and environment of a first start of the app on ``sample`` up to its first
    tree: an empty Numba cache, a fresh home, offscreen, this checkout (then ``path``) first
    on the import path; ``extra`` more variables."""
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba-cache"), "HOME": str(home),
           "XDG_CONFIG_HOME": str(home / "config"), "XDG_DATA_HOME": str(home / "data"),
           "QT_QPA_PLATFORM": "offscreen",
           "PYTHONPATH": os.pathsep.join(map(str, (REPO, *path))), **extra}
    argv = [sys.executable, "-m", "pad_gui.app", str(sample), "--model", str(model),
            "--screenshot", str(tmp_path / "first.png"), "--screenshot-at", "first", *flags]
    return argv, env


@pytest.mark.slow
def test_a_first_start_shows_the_projection_within_seconds(tiny_model, sample, tmp_path):
    argv, env = _first_start(tmp_path, sample, tiny_model, "--timings")
    shot = tmp_path / "first.png"
    launched = time.monotonic()
    app = subprocess.Popen(argv, env=env, cwd=tmp_path, stderr=subprocess.PIPE, text=True)
    said, first = [], None
    for line in app.stderr:  # each moment as the app reaches it
        said.append(line.strip())
        if f"{FIRST} " in line and first is None:
            first = time.monotonic() - launched
    app.wait(timeout=300)
    told = "\n".join(said)  # the app's whole standard error, untruncated, on a failure
    assert app.returncode == 0, told
    assert first is not None, told
    assert first < FIRST_TREE, told
    assert shot.stat().st_size > 20000


# Logs, at exit, each module as a thread starts importing it (Python's audit hook).
IMPORT_LOG = '''
import atexit, os, sys, threading
_seen = []
def _hook(event, args):
    if event == "import" and args[0] not in sys.modules:
        _seen.append(f"{threading.current_thread().name}\\t{args[0]}")
sys.addaudithook(_hook)
atexit.register(lambda: open(os.environ["PAD_IMPORT_LOG"], "w").write("\\n".join(_seen)))
'''


def _interleaved(threads: list[str]) -> list[str]:
    """The threads besides the main one whose imports another thread's came between (for
    A B A: A): the main thread imports before a helper starts and after it is done."""
    spans = {t: (threads.index(t), len(threads) - threads[::-1].index(t)) for t in set(threads)}
    return sorted(t for t, (a, b) in spans.items()
                  if t != "MainThread" and len(set(threads[a:b])) > 1)


@pytest.mark.slow
def test_the_engine_and_numba_are_imported_on_one_thread_at_a_time(tiny_model, sample,
                                                                    tmp_path):
    """Two threads importing a package with circular imports (Numba's) at once can each meet
    the other's half-made modules: while a helper thread imports the app's modules (or
    Numba's), the main thread imports none of them."""
    site, log = tmp_path / "site", tmp_path / "imports.tsv"
    site.mkdir()
    (site / "sitecustomize.py").write_text(IMPORT_LOG)
    argv, env = _first_start(tmp_path, sample, tiny_model, path=(site,),
                             PAD_IMPORT_LOG=str(log))
    done = subprocess.run(argv, env=env, cwd=tmp_path, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    rows = [line.split("\t") for line in log.read_text().splitlines()]
    for packages in (("pad_engine", "pad_gui"), ("numba",)):
        mine = [(t, name) for t, name in rows if name.split(".")[0] in packages]
        assert not _interleaved([t for t, _ in mine]), "\n".join(f"{t} {n}" for t, n in mine)
