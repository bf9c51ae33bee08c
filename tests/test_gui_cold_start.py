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


@pytest.mark.slow
def test_a_first_start_shows_the_projection_within_seconds(tiny_model, sample, tmp_path):
    cache, home = tmp_path / "numba-cache", tmp_path / "home"
    cache.mkdir()
    home.mkdir()
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "HOME": str(home),
           "XDG_CONFIG_HOME": str(home / "config"), "XDG_DATA_HOME": str(home / "data"),
           "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(REPO)}
    shot = tmp_path / "first.png"
    launched = time.monotonic()
    app = subprocess.Popen(
        [sys.executable, "-m", "pad_gui.app", str(sample), "--model", str(tiny_model),
         "--screenshot", str(shot), "--screenshot-at", "first", "--timings"],
        env=env, cwd=tmp_path, stderr=subprocess.PIPE, text=True)
    said, first = [], None
    for line in app.stderr:  # each moment as the app reaches it
        said.append(line.strip())
        if f"{FIRST} " in line and first is None:
            first = time.monotonic() - launched
    app.wait(timeout=300)
    assert app.returncode == 0, said
    assert first is not None, said
    assert first < FIRST_TREE, said
    assert shot.stat().st_size > 20000
