"""Conversion in forked worker processes: results in input order from other processes, the
same output as on one, a bounded read-ahead, a failure where it happened, and no fork while
another thread runs. Each check runs in a fresh interpreter: a fork needs a process with one
thread, which a test session (Qt, earlier tests' pools) does not promise."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from toy import BAD, conll_text, toy_examples

from pad_engine.batch.forked import AHEAD, CHUNK

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "pad_engine" / "data" / "sample" / "sample.conllu"
WINDOW = CHUNK * 2 * AHEAD  # two workers' items in flight

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="workers are forked on Linux only")


def _python(code: str) -> str:
    """What ``code`` prints, run in a fresh interpreter with this checkout first on the path."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def test_results_come_in_input_order_from_worker_processes():
    out = _python("""
        import os, random, time
        from pad_engine.batch.forked import ordered_forked
        delays = [random.Random(i).random() / 500 for i in range(1000)]
        def work(i):
            time.sleep(delays[i])
            return i * i, os.getpid()
        got = list(ordered_forked(work, range(1000), 2, skip=lambda i: i % 7 == 3))
        assert [i for i, _ in got] == list(range(1000))
        assert all(r is None if i % 7 == 3 else r[0] == i * i for i, r in got)
        pids = {r[1] for _, r in got if r is not None}
        assert os.getpid() in pids and len(pids) == 3, pids  # the first item here, then 2
        print("ok")
    """)
    assert out == "ok\n"


def test_a_short_stream_or_another_thread_running_forks_nothing():
    out = _python(f"""
        import os, threading, time
        from pad_engine.batch.forked import ordered_forked
        pid = lambda i: os.getpid()
        assert {{p for _, p in ordered_forked(pid, range({WINDOW - 1}), 2)}} == {{os.getpid()}}
        stop = threading.Event()
        other = threading.Thread(target=stop.wait)
        other.start()
        assert {{p for _, p in ordered_forked(pid, range(1000), 2)}} == {{os.getpid()}}
        stop.set()
        other.join()
        # each item takes a moment, so one worker cannot take every chunk before the other
        # starts on a loaded machine (the tests run beside each other)
        slow = lambda i: (time.sleep(0.002), os.getpid())[1]
        assert len({{p for _, p in ordered_forked(slow, range(1000), 2)}}) == 3
        print("ok")
    """)
    assert out == "ok\n"


def test_reads_a_bounded_window_ahead_of_the_output():
    out = _python(f"""
        from pad_engine.batch.forked import ordered_forked
        read = []
        def items():
            for i in range(100000):
                read.append(i)
                yield i
        stream = ordered_forked(lambda i: i, items(), 2)
        for i, _ in stream:
            assert len(read) - i <= {WINDOW + 1}, (i, len(read))
            if i == 3000:
                break
        stream.close()
        assert len(read) <= 3000 + {WINDOW + 1}, len(read)
        print("ok")
    """)
    assert out == "ok\n"


def test_a_failure_in_a_worker_comes_out_at_its_item():
    out = _python("""
        from pad_engine.batch.forked import ordered_forked
        def work(i):
            if i == 500:
                raise ValueError("five hundred")
            return i
        seen = []
        try:
            for i, _ in ordered_forked(work, range(2000), 2):
                seen.append(i)
        except ValueError as err:
            print(err, seen == list(range(500)))
    """)
    assert out == "five hundred True\n"


@pytest.mark.parametrize("extra", [[], ["--kbest", "3"]])
def test_pad_convert_in_two_processes_writes_what_one_writes(tmp_path, extra):
    text = SAMPLE.read_text(encoding="utf-8")
    src = tmp_path / "in.conll"
    # past the window, so the workers are forked; a malformed sentence among them
    src.write_text(conll_text(toy_examples()[:2]) + text * 30 + BAD + text * 30,
                   encoding="utf-8")
    runs = {}
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for jobs in ("1", "2"):
        out = tmp_path / f"out{jobs}.mrg"
        proc = subprocess.run([sys.executable, "-m", "pad_engine", "convert", str(src), "-o",
                               str(out), "-j", jobs, *extra], env=env, capture_output=True,
                              text=True, timeout=900)
        assert proc.returncode == 0, proc.stderr[-2000:]
        runs[jobs] = (out.read_text(encoding="utf-8"), proc.stderr)
    assert runs["1"] == runs["2"]
    assert "skipped" in runs["2"][1]
    assert "sentences converted" in runs["2"][1]


def test_pad_parse_in_two_processes_writes_what_one_writes(tmp_path):
    lines = ["The committee approved the budget .", "Prices will rise again next year .",
             "She has lived in a small town near the coast ."]
    src = tmp_path / "in.txt"
    # past the window, so the workers are forked; an unreadable line among them
    src.write_text("\n".join(lines * 50 + ["bad \x07 bell"] + lines * 10) + "\n",
                   encoding="utf-8")
    runs = {}
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for jobs in ("1", "2"):
        out, deps = tmp_path / f"out{jobs}.mrg", tmp_path / f"deps{jobs}.conllu"
        proc = subprocess.run([sys.executable, "-m", "pad_engine", "parse", str(src), "-o",
                               str(out), "--deps-out", str(deps), "-j", jobs], env=env,
                              capture_output=True, text=True, timeout=900)
        assert proc.returncode == 0, proc.stderr[-2000:]
        runs[jobs] = (out.read_text(encoding="utf-8"), deps.read_text(encoding="utf-8"),
                      proc.stderr)
    assert runs["1"] == runs["2"]
    assert runs["2"][0].split("\n")[150] == ""  # the unreadable line keeps its place
    assert f"skipped {src}:151:" in runs["2"][2]
    assert "180 of 181 sentences parsed" in runs["2"][2]


def test_a_worker_killed_is_one_error_and_no_output(tmp_path):
    out = _python("""
        import os
        from pad_engine.batch.forked import ordered_forked
        from pad_engine.errors import PadError
        def work(i):
            if i == 700:
                os.kill(os.getpid(), 9)  # as the system's out-of-memory killer would
            return i
        try:
            list(ordered_forked(work, range(2000), 2))
        except PadError as err:
            print("PadError:", err)
    """)
    assert out.startswith("PadError: a worker process stopped before its work was done")
