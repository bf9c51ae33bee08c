"""The app's memory: decode results kept packed, and the whole app on UD English EWT train
(12,544 sentences, every one decoded) under 600 MB."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest
from conftest import REPO
from guikit import SAMPLE

from pad_engine.decoding.engine import Engine
from pad_engine.io.conll import read_conll
from pad_gui.controllers.decoded import DecodedCache, Packed

LIMIT_MB = 600


def test_packed_results_come_back_the_same(tiny_model):
    engine = Engine.load(tiny_model)
    sentences = read_conll(SAMPLE).sentences
    cache = DecodedCache()
    decoded = [engine.candidates(s, k=10) for s in sentences]
    for i, found in enumerate(decoded):
        cache[i] = found
    cache["error"] = ValueError("no tree")
    assert all(isinstance(v, Packed) for k, v in cache._stored.items() if k != "error")
    for i, found in enumerate(decoded):
        back = cache[i]
        assert [c.tree for c in back] == [c.tree for c in found]
        assert [(c.score, c.how, c.lifted) for c in back] == \
            [(c.score, c.how, c.lifted) for c in found]
    assert cache[len(decoded) - 1] is cache[len(decoded) - 1]  # recently used: built once
    assert isinstance(cache["error"], ValueError)
    assert len(cache) == len(decoded) + 1


PROBE = textwrap.dedent("""
    import sys, time
    from PySide6.QtCore import QStandardPaths
    from PySide6.QtWidgets import QApplication
    app = QApplication([])
    QStandardPaths.setTestModeEnabled(True)
    app.setOrganizationName("PAD Studio memory test")
    app.setApplicationName("PAD Studio memory test")
    from pad_gui.window import MainWindow
    window = MainWindow(None, remember=False)
    window.show()
    window.open_path(sys.argv[1])
    s = window.session
    deadline = time.monotonic() + 1800

    def decoded():
        return sum(s.key(i) in s.cache for i in range(len(s)))

    # counting every sentence's key is a pass over the file: it runs only once the cache
    # holds as many results, so the wait does not take the engine thread's time (the GIL)
    while time.monotonic() < deadline and (len(s.cache) < len(s) or decoded() < len(s)):
        app.processEvents()
        time.sleep(0.05)
    for i in range(0, len(s), 997):  # a few visits: the sentences on screen are rebuilt
        window.go_to(i)
        app.processEvents()
    rss = next(int(line.split()[1]) for line in open("/proc/self/status")
               if line.startswith("VmRSS"))
    print(len(s), decoded(), rss // 1024)
    window.close()
""")


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
def test_app_on_ewt_train_stays_under_600_mb(ewt_dir, tmp_path):
    train = tmp_path / "en_ewt-ud-train.conllu"
    train.write_bytes(next(ewt_dir.glob("*train.conllu")).read_bytes())
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(REPO)}
    out = subprocess.run([sys.executable, "-c", PROBE, str(train)], capture_output=True,
                         text=True, env=env, timeout=2400, check=True).stdout
    sentences, decoded, mb = (int(v) for v in out.split()[-3:])
    assert sentences == decoded == 12544
    assert mb < LIMIT_MB, f"{mb} MB with every sentence decoded"
