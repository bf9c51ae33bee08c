"""Ctrl-C during a conversion ends ``pad`` cleanly (exit 130, one line, no partial output),
also while a compiled kernel returns its result, where an interrupt used to crash the
process (SIGSEGV). Each run is a process of its own, interrupted as a terminal would."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "pad_engine" / "data" / "sample" / "sample.conllu"


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("threads", ["1", "2"])
def test_ctrl_c_during_a_conversion_ends_it_cleanly(tmp_path, threads):
    big = tmp_path / "big.conllu"
    big.write_text(SAMPLE.read_text(encoding="utf-8") * 400, encoding="utf-8")
    out = tmp_path / "big.mrg"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    # kernels compiled first: an interrupt during Numba's compile is swallowed by LLVM's
    # callbacks (the conversion goes on), a first start's matter apart from this one
    subprocess.run([sys.executable, "-m", "pad_engine", "convert", str(SAMPLE), "-o",
                    str(tmp_path / "warm.mrg"), "--threads", threads], env=env,
                   capture_output=True, check=True, timeout=900)
    for _ in range(3):
        proc = subprocess.Popen(
            [sys.executable, "-m", "pad_engine", "convert", str(big), "-o", str(out),
             "--threads", threads], stderr=subprocess.PIPE, text=True, env=env,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        chosen = proc.stderr.readline()  # the model it chose: decoding starts now
        assert "pad convert:" in chosen, chosen
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        err = proc.stderr.read()
        assert proc.wait(timeout=60) == 130, (proc.returncode, err[-500:])
        assert err.strip().endswith("pad convert: interrupted"), err[-500:]
        assert not out.exists()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forked workers")
def test_ctrl_c_while_a_worker_is_forked_is_not_lost(tmp_path):
    """Ctrl-C that comes while the conversion forks its workers (sent here by a fork
    handler of the parent, where Python prints an exception and drops it) still ends the
    conversion: it is held until the fork has returned."""
    big = tmp_path / "big.conllu"
    big.write_text(SAMPLE.read_text(encoding="utf-8") * 40, encoding="utf-8")
    out = tmp_path / "big.mrg"
    script = ("import os, runpy, signal, sys; "
              "os.register_at_fork(after_in_parent=lambda: os.kill(os.getpid(), signal.SIGINT)); "
              f"sys.argv = ['pad', 'convert', {str(big)!r}, '-o', {str(out)!r}, '--threads', '2']; "
              "runpy.run_module('pad_engine', run_name='__main__')")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=900,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    # (a shell's background job, as CI runs the tests, starts with Ctrl-C ignored)
    assert done.returncode == 130, (done.returncode, done.stderr[-500:])
    assert done.stderr.strip().endswith("pad convert: interrupted"), done.stderr[-500:]
    assert "Exception ignored" not in done.stderr
    assert not out.exists()
