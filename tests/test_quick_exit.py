"""The ``pad`` program ends without the interpreter's teardown (``cli.quick_exit``): its
output written whole, its exit code and messages kept, the atexit handlers run; and it
waits, as Python does, for a thread that is still working."""

from __future__ import annotations

import subprocess
import sys

from conftest import REPO
from toy import conll_text, toy_examples

# An object whose finalizer prints only when the interpreter tears its modules down.
TORN = """
import atexit, sys
class Torn:
    def __del__(self):
        print("torn down", flush=True)
torn = Torn()
atexit.register(print, "atexit ran", flush=True)
"""


def pad(script: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", script, *args], capture_output=True,
                          text=True, cwd=REPO, timeout=600)  # the checkout's package first


def test_pad_writes_everything_and_skips_the_teardown(toy_model_path, tmp_path):
    conll, out = tmp_path / "in.conll", tmp_path / "out.mrg"
    conll.write_text(conll_text(toy_examples()), encoding="utf-8")
    run = TORN + """
sys.argv = ["pad", "convert", sys.argv[1], "-o", sys.argv[2], "--model", sys.argv[3]]
from pad_engine.cli import run
run()
"""
    done = pad(run, str(conll), str(out), str(toy_model_path))
    assert done.returncode == 0, done.stderr
    assert "atexit ran" in done.stdout
    assert "torn down" not in done.stdout  # a normal exit prints it (checked below)
    lines = out.read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(toy_examples())
    assert all(line.startswith("(") for line in lines)
    assert "sentences converted" in done.stderr
    assert "torn down" in pad(TORN).stdout


def test_a_failing_command_keeps_its_code_and_message(tmp_path):
    run = """
import sys
sys.argv = ["pad", "convert", sys.argv[1]]
from pad_engine.cli import run
run()
"""
    done = pad(run, str(tmp_path / "missing.conllu"))
    assert done.returncode == 1
    assert done.stderr.startswith("pad convert: ")
    assert "missing.conllu" in done.stderr


def test_a_working_thread_is_waited_for(tmp_path):
    late = tmp_path / "late.txt"
    run = """
import sys, threading, time
from pathlib import Path
def work():
    time.sleep(0.3)
    Path(sys.argv[1]).write_text("done")
threading.Thread(target=work).start()
from pad_engine.cli import quick_exit
quick_exit(3)
"""
    done = pad(run, str(late))
    assert done.returncode == 3
    assert late.read_text() == "done"


def test_python_dash_m_pad_engine_is_the_program(toy_model_path, tmp_path):
    conll, out = tmp_path / "in.conll", tmp_path / "out.mrg"
    conll.write_text(conll_text(toy_examples()[:2]), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pad_engine", "convert", str(conll), "-o",
                           str(out), "--model", str(toy_model_path)], capture_output=True,
                          text=True, cwd=REPO, timeout=600)
    assert done.returncode == 0, done.stderr
    assert len(out.read_text(encoding="utf-8").splitlines()) == 2


def test_without_cpythons_exit_handlers_runner_python_exits_as_usual():
    run = TORN + """
del atexit._run_exitfuncs
from pad_engine.cli import quick_exit
quick_exit(4)
"""
    done = pad(run)
    assert done.returncode == 4
    assert "atexit ran" in done.stdout
    assert "torn down" in done.stdout
