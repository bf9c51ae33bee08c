"""Conversion on several threads: the output in input order and the same as on one, the
reports the same, a bounded read-ahead, and a failure where it happened."""

from __future__ import annotations

import random
import sys
import threading
import time
from pathlib import Path

import pytest
from toy import BAD, conll_text, toy_examples

from pad_engine.batch.ordered import AHEAD, ordered
from pad_engine.cli import main

SAMPLE = Path(__file__).resolve().parent.parent / "pad_engine" / "data" / "sample"


def test_results_come_in_input_order_though_work_finishes_out_of_order():
    rng = random.Random(0)
    delays = [rng.random() / 200 for _ in range(60)]
    seen_threads = set()

    def work(i: int) -> int:
        seen_threads.add(threading.get_ident())
        time.sleep(delays[i])
        return i * i

    got = list(ordered(work, range(60), 3, skip=lambda i: i % 7 == 0))
    assert [i for i, _ in got] == list(range(60))
    assert all(r == (None if i % 7 == 0 else i * i) for i, r in got)
    assert len(seen_threads) > 1


def test_a_stream_shorter_than_the_window_starts_no_thread():
    here = threading.get_ident()
    got = list(ordered(lambda i: threading.get_ident(), range(AHEAD * 2 - 1), 2))
    assert {ident for _, ident in got} == {here}
    got = list(ordered(lambda i: threading.get_ident(), range(AHEAD * 2 + 5), 2))
    assert here not in {ident for _, ident in got}


def test_reads_a_bounded_window_ahead_of_the_output():
    read = []

    def items():
        for i in range(1000):
            read.append(i)
            yield i

    stream = ordered(lambda i: i, items(), 2)
    for i, _ in stream:
        assert len(read) - i <= AHEAD * 2 + 1
        if i == 100:
            break
    stream.close()
    assert len(read) < 100 + AHEAD * 2 + 2


def test_a_failure_comes_out_at_its_item():
    def work(i: int) -> int:
        if i == 5:
            raise ValueError("five")
        return i

    out = []

    def consume() -> None:
        for i, _ in ordered(work, range(20), 2):
            out.append(i)

    with pytest.raises(ValueError, match="five"):
        consume()
    assert out == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("extra", [[], ["--kbest", "3"]])
def test_pad_convert_on_two_threads_writes_what_one_thread_writes(tmp_path, capsys, extra):
    exs = toy_examples()
    text = (SAMPLE / "sample.conllu").read_text(encoding="utf-8")
    src = tmp_path / "in.conll"
    src.write_text(conll_text(exs[:2]) + BAD + text, encoding="utf-8")
    runs = {}
    for threads in ("1", "2"):
        out = tmp_path / f"out{threads}.mrg"
        assert main(["convert", str(src), "-o", str(out), "--threads", threads, *extra]) == 0
        runs[threads] = (out.read_text(encoding="utf-8"), capsys.readouterr().err)
    assert runs["1"] == runs["2"]
    if not extra:
        assert runs["2"][0].split("\n")[2] == ""  # the malformed sentence keeps its place
    assert "sentences converted" in runs["2"][1]


@pytest.mark.parametrize(("tty", "asked", "threads"), [(True, [], 1), (False, [], None),
                                                        (True, ["--jobs", "3"], 3)])
def test_typed_input_is_converted_a_sentence_at_a_time(tty, asked, threads, monkeypatch,
                                                       capsys, toy_model_path):
    import io

    import pad_engine.batch.files as files
    from pad_engine.jit import default_jobs

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return tty

    used = []
    convert_items = files.convert_items

    def recording(*args, **options):
        used.append(args[-1])
        return convert_items(*args, **options)

    monkeypatch.setattr(files, "convert_items", recording)
    monkeypatch.setattr(sys, "stdin", Terminal(conll_text(toy_examples()[:3])))
    assert main(["convert", "--model", str(toy_model_path), *asked]) == 0
    assert used == [threads or default_jobs()]
    assert capsys.readouterr().out.count("(TOP ") == 3



@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_a_sentence_typed_at_a_terminal_gets_its_tree_before_the_input_ends(toy_model_path):
    import os
    import pty
    import select
    import subprocess

    main_end, terminal = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(SAMPLE.parent.parent.parent)}
    proc = subprocess.Popen([sys.executable, "-m", "pad_engine", "convert", "--model",
                             str(toy_model_path)], stdin=terminal, stdout=terminal,
                            stderr=subprocess.DEVNULL, env=env)
    try:
        os.write(main_end, conll_text(toy_examples()[:1]).encode())
        seen, deadline = b"", time.monotonic() + 120
        while b"(TOP" not in seen and time.monotonic() < deadline:
            if select.select([main_end], [], [], 0.2)[0]:
                seen += os.read(main_end, 65536)
        assert b"(TOP" in seen, "no tree before the end of the input"
        os.write(main_end, b"\x04")  # end of input
        assert proc.wait(timeout=60) == 0
    finally:
        proc.kill()
        os.close(main_end)
        os.close(terminal)
