"""Inputs of hostile size through the real commands and the app: a tree 100,000 levels deep
costs `pad deps` time and memory linear in its size, and a word or line longer than the
readers take is refused with its file and line while the rest of the file reads on.

Commands run in a subprocess under a time limit and an address-space cap, so that a
quadratic walk fails the test instead of hanging it or swapping the machine."""

from __future__ import annotations

import itertools
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": str(REPO)}
DEEP = 100_000
MEMORY = 1 << 30  # bytes of address space: the fixed walks need under 400 MB at DEEP levels
SECONDS = 90


def capped(argv: list[str], what: str, seconds: float = SECONDS) -> subprocess.CompletedProcess:
    """``python ARGV`` in a child process capped in memory, failing the test past
    ``seconds`` (``what`` says what took so long)."""

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))

    try:
        return subprocess.run([sys.executable, *argv], env=ENV, capture_output=True, text=True,
                              timeout=seconds, preexec_fn=cap)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{what} took over {seconds} s")


def pad(*args: str, seconds: float = SECONDS) -> subprocess.CompletedProcess:
    """``pad ARGS`` in a child process capped in memory, failing the test past ``seconds``."""
    return capped(["-m", "pad_engine", *args], f"pad {args[0]}", seconds)


def probe(code: str, src: Path, what: str) -> list[str]:
    """What ``python -c CODE SRC`` prints, split, run capped as :func:`capped` runs it; the
    test fails with its error output if it fails."""
    done = capped(["-c", code, str(src)], what)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.split()


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


# -- a word or line longer than any reader takes --------------------------------------------
LONG = 1_000_000  # characters: far past MAX_CHARS, small enough for today's code to take
GOOD_CONLL = "1\tDogs\t_\tNOUN\tNNS\t_\t2\tnsubj\t_\t_\n2\tbark\t_\tVERB\tVBP\t_\t0\troot\t_\t_\n"
TREES = "(S (NP (NNS dogs)) (VP (VBP bark)))\n(S (NP (NNS cats)) (VP (VBP sleep)))\n"


def test_convert_refuses_a_long_word_by_line_and_converts_the_rest(tmp_path):
    src, out = tmp_path / "long.conllu", tmp_path / "long.mrg"
    bad = GOOD_CONLL.replace("Dogs", "x" * LONG)
    src.write_text(GOOD_CONLL + "\n" + bad + "\n" + GOOD_CONLL + "\n")
    done = pad("convert", str(src), "-o", str(out), "--rules")
    assert done.returncode == 0, done.stderr[-2000:]
    length = len(bad.split("\n")[0])
    assert (f"skipped {src}:4: line of {length:,} characters: longer than the 10,000 a line "
            "may have") in done.stderr
    assert [bool(line) for line in out.read_text().splitlines()] == [True, False, True]


@pytest.mark.parametrize("suffix", [".mrg", ".psd"])
def test_train_refuses_a_long_word_or_label_by_line_and_trains_on_the_rest(tmp_path, suffix):
    src, model = tmp_path / f"long{suffix}", tmp_path / "m.padmodel"
    src.write_text(TREES.replace("dogs", "x" * LONG) + TREES.replace("(S", "(" + "S" * LONG, 1)
                   + TREES)
    done = pad("train", str(src), "-o", str(model), "--epochs", "1", "--bits", "16")
    assert done.returncode == 0, done.stderr[-2000:]
    skipped = [line for line in done.stderr.splitlines() if "skipped" in line]
    assert [line.split("skipped ", 1)[1] for line in skipped] == [
        f"{src}:1: word of {LONG:,} characters: longer than the 10,000 a word may have",
        f"{src}:3: label of {LONG:,} characters: longer than the 10,000 a label may have"]
    assert "4 trees, model written" in done.stderr


@pytest.mark.usefixtures("isolated_settings")
def test_the_app_opens_a_file_with_a_50_mb_word_without_freezing(qtbot, tiny_model, tmp_path):
    """File > Open on a treebank with a 50 MB word: the other sentences load, the bad one is
    in the Problems panel by its line, and the event loop never stops for long (a timer
    ticking every 20 ms keeps ticking through opening and decoding)."""
    from guikit import SAMPLE, answer_open_dialog
    from PySide6.QtCore import QTimer
    from test_gui_app import menu_action, new_window

    blocks = SAMPLE.read_text(encoding="utf-8").split("\n\n")[:4]
    bad = GOOD_CONLL.replace("Dogs", "x" * 50_000_000)
    path = tmp_path / "huge.conllu"
    path.write_text("\n\n".join([*blocks[:2], bad.rstrip("\n"), *blocks[2:]]) + "\n\n",
                    encoding="utf-8")
    bad_line = "\n\n".join(blocks[:2]).count("\n") + 3
    window = new_window(qtbot, tiny_model)
    ticks = [time.monotonic()]
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(time.monotonic()))
    timer.start(20)
    answer_open_dialog(path)
    menu_action(window, "File", "Open…").trigger()
    qtbot.waitUntil(lambda: window.session is not None and window.decoded_current(),
                    timeout=60000)
    qtbot.wait(200)
    timer.stop()
    assert len(window.session) == 4
    assert window.problems.rowCount() == 1
    row = [window.problems.item(0, c).text() for c in range(3)]
    assert row[:2] == [str(path), str(bad_line)]
    length = len(bad.split("\n")[0])
    assert row[2] == f"line of {length:,} characters: longer than the 10,000 a line may have"
    longest = max(b - a for a, b in itertools.pairwise(ticks))
    assert longest < 20, f"the event loop stood still for {longest:.0f} s"
    window.close()


# -- trees too deep to walk node by node ------------------------------------------------------
def test_a_tree_file_and_a_treebank_search_read_a_tree_100000_levels_deep(tmp_path):
    """The app's File > Open of a Penn file and the treebank search's reader lexicalized
    each tree by a table of node positions (a tuple as long as the node is deep): a tree
    nested 100,000 levels, one bracket a line, took every gigabyte the machine had. Both now
    read it in linear memory, under the 1 GB cap."""
    src = tmp_path / "deep.mrg"
    src.write_text("(\n" + "(NP\n" * DEEP + "(NN x)\n" + ")\n" * (DEEP + 1))
    code = ("import sys; from pad_engine.io.treefiles import read_tree_file; "
            "from pad_engine.quality.sources import penn_sentences; "
            "from pad_engine.trees.headrules import HeadRules; "
            "r = read_tree_file(sys.argv[1]); "
            "s = penn_sentences(sys.argv[1], HeadRules.load('collins')); "
            "print(len(r.trees), r.sentences[0].forms, len(s), s[0].forms)")
    assert probe(code, src, "reading the tree") == ["1", "['x']", "1", "['x']"]


ODD_ONE_OUT = ("(S (NP (DT the) (NN dog)) (VP (VBZ barks)))\n"
               "(S (NP (DT the) (NN dog)) (VP (VBZ runs)))\n"
               "(S (NP (DT the) (NN dog)) (VP (VBZ eats)))\n"
               "(S (DT the) (NN dog) (VP (VBZ sleeps)))\n")


@pytest.mark.parametrize("shape", ["right", "unary"])
def test_check_compares_a_file_holding_a_tree_100000_levels_deep(tmp_path, shape):
    """`pad check` asked each phrase its span by walking down from it and kept every
    phrase's path: on such a tree it ran past five minutes. It reads it in linear time now
    and still finds the odd one out among the file's other trees."""
    src = tmp_path / "deep.mrg"
    src.write_text((right_branching(DEEP) if shape == "right" else unary_chain(DEEP))
                   + ODD_ONE_OUT)
    done = pad("check", str(src))
    assert done.returncode == 0, done.stderr[-2000:]
    assert "n-gram 'the/DT dog/NN': NP 3x, no phrase 1x" in done.stdout
    assert done.stdout.rstrip().endswith("1 entries over 5 sentences")


def test_a_fix_and_an_injected_error_on_a_tree_100000_levels_deep(tmp_path):
    """The consistency fix (a phrase inserted deep down, a bracket made or taken off) and the
    injected-error benchmark walk such a tree once, under the 1 GB cap (every phrase's path
    took it all before)."""
    src = tmp_path / "deep.mrg"  # the lowest phrase holds three words: two to bracket
    src.write_text("( " + "".join(f"(S (NN w{i}) " for i in range(DEEP - 3))
                   + "(S (NN a) (NN b) (NN c))" + ")" * (DEEP - 3) + ")\n")
    code = ("import random, sys; from pad_engine.io.treefiles import read_tree_file; "
            "from pad_engine.quality.consistency import apply_variant; "
            "from pad_engine.quality.inject import inject; "
            "from pad_engine.trees.edits import brackets; "
            "r = read_tree_file(sys.argv[1]); t, n = r.trees[0], len(r.sentences[0].forms); "
            "a = apply_variant(t, n - 3, n - 2, 'NP'); "
            "b = apply_variant(a, n - 3, n - 2, ''); "
            "out, done = inject([t], 1.0, random.Random(1)); "
            "print(n, sum((brackets(a) - brackets(t)).values()), brackets(b) == brackets(t), "
            "len(done), out[0] is not t)")
    assert probe(code, src, "the fix and the injection") == [str(DEEP), "1", "True", "1",
                                                             "True"]


@pytest.mark.usefixtures("isolated_settings")
@pytest.mark.parametrize("kind", ["chain", "nesting"])
def test_the_app_draws_a_tree_deeper_than_python_recurses_and_walks_it_by_keys(
        qtbot, tiny_model, tmp_path, kind):
    """A sentence of 2,000 words each the head of the next (its c-parse nests about as deep),
    and a Penn tree nested 20,000 levels: drawing one recursed once per level (a
    RecursionError past 1,000; the window then stood still), and a huge tree took minutes
    to draw and to clear. Both open; the huge one comes with its deep part collapsed, and
    the arrows walk the tree."""
    from guikit import answer_open_dialog
    from PySide6.QtCore import Qt
    from test_gui_app import menu_action, new_window
    from test_gui_keys import press

    if kind == "chain":
        path = tmp_path / "chain.conllu"
        path.write_text("".join(f"{i}\tw{i}\t_\tNN\tNN\t_\t{i - 1}\tdep\t_\t_\n"
                                for i in range(1, 2001)) + "\n")
    else:
        path = tmp_path / "deep.mrg"
        path.write_text("(\n" + "(NP\n" * 20_000 + "(NN x)\n" + ")\n" * 20_001)
    window = new_window(qtbot, tiny_model)
    answer_open_dialog(path)
    menu_action(window, "File", "Open…").trigger()
    qtbot.waitUntil(lambda: window.session is not None and window.decoded_current(),
                    timeout=120000)
    scene = window.scene
    qtbot.waitUntil(lambda: bool(scene.nodes), timeout=60000)
    if kind == "nesting":  # the chain's top NP drawn collapsed, its word shown
        assert [n.node.label for n in scene.nodes] == ["TOP", "NP"]
        assert scene.nodes[1].collapsed
    else:
        assert max(len(n.path) for n in scene.nodes) > sys.getrecursionlimit()
    window.view.setFocus()
    press(qtbot, window, Qt.Key_Home)
    assert scene.selected_paths() == [()]
    press(qtbot, window, Qt.Key_Down)
    press(qtbot, window, Qt.Key_Down)  # a collapsed phrase has no child drawn to go to
    below = scene.selected_paths()[0]
    assert len(below) == (2 if kind == "chain" else 1)
    press(qtbot, window, Qt.Key_Up)
    assert scene.selected_paths() == [below[:-1]]
    window.close()
