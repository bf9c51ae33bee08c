"""Refusing unsuitable files: every subcommand of ``pad``, found in the command registry, is given a
FIFO, a character device and a folder where it reads a file, a FIFO and a device where it
reads a folder, and a device, a FIFO, a read-only (0444) file, one of its inputs and its other
output where it writes. Each must refuse at once, in one line naming the file and what it is,
and leave the file as it was. A new command without an entry here fails the test.

A FIFO that a command opens anyway is unblocked by a watchdog after ``HANG_SECONDS`` (the
reader then sees an empty file), so a hang fails the test instead of stalling it."""

from __future__ import annotations

import ast
import contextlib
import os
import resource
import stat
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

import pytest
from toy import TREES, conll_text, toy_examples

from pad_engine.cli import build_parser, main
from pad_engine.learning.train import train

REPO = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": str(REPO)}
HANG_SECONDS = 20.0


@dataclass(frozen=True)
class Run:
    """One way to call a command. ``argv`` holds ``{name}`` placeholders for the files the
    ``world`` fixture makes; ``files``/``folders`` name the placeholders the command reads,
    ``outputs``/``output_folders`` those it writes; ``as_input`` is the input an output is
    pointed at (default: the first of ``files``)."""

    argv: tuple[str, ...]
    files: tuple[str, ...] = ()
    folders: tuple[str, ...] = ()
    outputs: tuple[str, ...] = ()
    output_folders: tuple[str, ...] = ()
    as_input: str = ""


def run(*argv: str, **slots) -> Run:
    return Run(argv, **{k: tuple(v) for k, v in slots.items() if k != "as_input"},
               as_input=slots.get("as_input", ""))


# Every command: its runs, and for each kind of file it has none of, why.
COMMANDS: dict[str, tuple[list[Run], dict[str, str]]] = {
    "adapt-parser-curve": ([
        run("adapt-parser-curve", "--gum", "{gum}", "--parser", "{textmodel}",
            files=["textmodel"], folders=["gum"])],
        {"outputs": "prints UAS rows on standard output"}),
    "bench": ([
        run("bench", "--treebank", "{bank}", "--model", "{model}", "--ewt", "{ewt}",
            "--farpahc", "{farpahc}", files=["model"], folders=["bank", "ewt", "farpahc"])],
        {"outputs": "prints its figures on standard output"}),
    "agree": ([run("agree", "{trees}", "{trees2}", "--headrules", "{table}",
                   files=["trees", "trees2", "table"])],
              {"folders": "reads files only", "outputs": "prints its report on standard output"}),
    "bench-check": ([run("bench-check", "{bank}", folders=["bank"])],
                    {"files": "reads its folder's Penn files (a file named instead is read "
                              "as the other commands read theirs)",
                     "outputs": "prints its figures on standard output"}),
    "bench-search": ([run("bench-search", "{conll}", "--trees", "{trees}",
                          files=["conll", "trees"])],
                     {"folders": "reads files only",
                      "outputs": "prints its timings on standard output"}),
    "bench-labels": ([run("bench-labels", "{alpino}", files=["alpino"])],
                     {"folders": "reads one XML file",
                      "outputs": "prints its table on standard output"}),
    "bench-text": ([
        run("bench-text", "--treebank", "{bank}", "--ewt", "{ewt}", "--parser", "{textmodel}",
            "--ud-parser", "{textmodel2}", files=["textmodel", "textmodel2"],
            folders=["bank", "ewt"])],
        {"outputs": "prints its figures on standard output"}),
    "check": ([run("check", "{conll}", "--trees", "{trees}", "--headrules", "{table}",
                   files=["conll", "trees", "table"])],
              {"folders": "reads files only", "outputs": "prints its findings on standard output"}),
    "convert": ([
        run("convert", "{conll}", "-o", "{out}", "--model", "{model}",
            files=["conll", "model"], outputs=["out"]),
        run("convert", "{conll}", "-o", "{out}", "--label-set", "{labels}", files=["labels"]),
        run("convert", "{conll}", "-o", "{out}", "--corrected", "{trees}", "{conll2}",
            files=["trees", "conll2"])],
        {"folders": "reads files only"}),
    "convert-dir": ([
        run("convert-dir", "{src}", "{outdir}", "--model", "{model}", "--jobs", "1",
            files=["model"], folders=["src"], output_folders=["outdir"], as_input="src")],
        {"outputs": "writes into its output folder, not to a file it is given"}),
    "deps": ([run("deps", "{trees}", "{out}", "--headrules", "{table}",
                  files=["trees", "table"], outputs=["out"])],
             {"folders": "reads files only"}),
    "eval": ([run("eval", "{trees}", "{trees2}", files=["trees", "trees2"]),
              run("eval", "--deps", "{conll}", "{conll2}", files=["conll", "conll2"])],
             {"folders": "reads files only", "outputs": "prints scores on standard output"}),
    "learning-curve": ([
        run("learning-curve", "--treebank", "{bank}", "-o", "{out}", folders=["bank"],
            outputs=["out"], as_input="bank/wsj_0170.mrg"),
        run("learning-curve", "--select", "both", "--alpino", "{alpino}", files=["alpino"]),
        run("learning-curve", "--compare-continued", "--treebank", "{bank}", "--model",
            "{model}", files=["model"]),
        run("learning-curve", "--adapt", "--treebank", "{bank}", "--model", "{model}",
            files=["model"])],
        {}),
    "oracle": ([run("oracle", "{trees}", "{conll}", "-o", "{out}", "--model", "{model}",
                    files=["trees", "conll", "model"], outputs=["out"])],
               {"folders": "reads files only"}),
    "parse": ([run("parse", "{text}", "-o", "{out}", "--deps-out", "{out2}", "--parser",
                   "{textmodel}", "--model", "{model}", files=["text", "textmodel", "model"],
                   outputs=["out", "out2"])],
              {"folders": "reads files only"}),
    "search": ([run("search", "NP", "{conll}", "--trees", "{trees}", "--headrules", "{table}",
                    files=["conll", "trees", "table"])],
               {"folders": "reads files only", "outputs": "prints its matches on standard output"}),
    "train": ([
        run("train", "{trees}", "-o", "{out}", "--headrules", "{table}",
            files=["trees", "table"], outputs=["out"]),
        run("train", "{trees}", "--deps", "{conll}", "-o", "{out}", files=["conll"],
            outputs=["out"], as_input="conll")],
        {"folders": "reads files only"}),
    "train-deps": ([run("train-deps", "{conll}", "-o", "{out}", "--jackknife", "{out2}",
                        files=["conll"], outputs=["out", "out2"])],
                   {"folders": "reads files only"}),
}
KINDS = ("files", "folders", "outputs", "output_folders")
UNSET = {"output_folders": "writes files, not a folder"}  # unless a command says otherwise

IN_KINDS = {"FIFO": "(a FIFO)", "device": "(a character device)", "folder": "(a folder)"}
FOLDER_KINDS = {"FIFO": "not a folder (a FIFO)", "device": "not a folder (a character device)"}
OUT_KINDS = {"device": "not a regular file (a character device)",
             "FIFO": "not a regular file (a FIFO)", "read-only": "read-only (mode 0444)",
             "input": "the output is the input", "other output": "another output of this run"}
OUT_FOLDER_KINDS = {"device": "not a folder (a character device)",
                    "FIFO": "not a folder (a FIFO)", "read-only": "read-only folder (mode 0555)",
                    "input": "the output folder is the input folder"}


def registered() -> list[str]:
    """The subcommands ``pad`` offers, from its registry (cli/__init__.py)."""
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    return sorted(sub.choices)


def test_every_command_and_every_kind_of_file_is_covered():
    assert sorted(COMMANDS) == registered(), "a command without a row in COMMANDS"
    for name, (runs, none) in COMMANDS.items():
        for kind in KINDS:
            has = any(getattr(r, kind) for r in runs)
            why = none.get(kind, None if has else UNSET.get(kind))
            assert has != bool(why), (name, kind, "give runs with such files or say why not")
        for r in runs:
            named = {s for s in r.argv if s.startswith("{")}
            assert {f"{{{s}}}" for k in KINDS for s in getattr(r, k)} <= named, (name, r)


def cases() -> list:
    out = []
    for name, (runs, _) in COMMANDS.items():
        for i, r in enumerate(runs):
            out += [pytest.param(name, i, "files", s, k, id=f"{name}{i}-in-{s}-{k}")
                    for s in r.files for k in IN_KINDS]
            out += [pytest.param(name, i, "folders", s, k, id=f"{name}{i}-folder-{s}-{k}")
                    for s in r.folders for k in FOLDER_KINDS]
            out_kinds = [k for k in OUT_KINDS if k != "other output" or len(r.outputs) > 1]
            out += [pytest.param(name, i, "outputs", s, k, id=f"{name}{i}-out-{s}-{k}")
                    for s in r.outputs for k in out_kinds]
            out += [pytest.param(name, i, "output_folders", s, k, id=f"{name}{i}-outdir-{k}")
                    for s in r.output_folders for k in OUT_FOLDER_KINDS]
    return out


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> dict[str, Path]:
    """Valid files for every placeholder (inputs only: outputs are made per case)."""
    root = tmp_path_factory.mktemp("world")
    text = conll_text(toy_examples())
    trees = "".join(t + "\n" for t in TREES)
    files = {"conll": text, "conll2": text, "trees": trees, "trees2": trees,
             "text": "the dog ran\n", "table": "* left\n", "labels": "S * * S\n",
             "textmodel": "not read: another file is refused first\n",
             "textmodel2": "not read: another file is refused first\n",
             "alpino": '<?xml version="1.0"?><treebank/>\n'}
    world = {}
    for name, content in files.items():
        world[name] = root / name
        world[name].write_text(content, encoding="utf-8")
    world["model"] = root / "toy.padmodel"
    train(toy_examples(), epochs=1, bits=12).save(world["model"])
    for name in ("bank", "ewt", "farpahc", "gum", "src"):
        world[name] = root / name
        world[name].mkdir()
    for n in (1, 170):
        (world["bank"] / f"wsj_{n:04d}.mrg").write_text(trees, encoding="utf-8")
    (world["src"] / "a.conllu").write_text(text, encoding="utf-8")
    world["bank/wsj_0170.mrg"] = world["bank"] / "wsj_0170.mrg"
    return world


def hostile(path: Path, kind: str) -> Path:
    """Make ``path`` a FIFO, a character device (the null device's numbers: reading it
    gives nothing, so a command that reads it does not flood), a folder, or a read-only
    file or folder."""
    if kind == "FIFO":
        os.mkfifo(path)
    elif kind == "device":
        try:
            os.mknod(path, stat.S_IFCHR | 0o644, os.makedev(1, 3))
        except PermissionError:
            pytest.skip("mknod needs CAP_MKNOD (these tests run as root in CI)")
    elif kind == "folder":
        path.mkdir()
    elif kind == "read-only":
        path.write_text("keep\n")
        path.chmod(0o444)
    elif kind == "read-only folder":
        path.mkdir()
        path.chmod(0o555)
    return path


def snapshot(path: Path) -> tuple:
    st = os.lstat(path)
    data = path.read_bytes() if stat.S_ISREG(st.st_mode) else b""
    return stat.S_IFMT(st.st_mode), stat.S_IMODE(st.st_mode), st.st_ino, data


class Watchdog:
    """Unblocks a reader waiting on ``fifo`` every ``seconds`` (opening its write end, writing
    a few bytes and closing it) and remembers that it had to."""

    def __init__(self, fifo: Path | None, seconds: float = HANG_SECONDS):
        self.fifo, self.hung, self.done = fifo, False, threading.Event()
        self.thread = threading.Thread(target=self._watch, args=(seconds,), daemon=True)

    def _watch(self, seconds: float) -> None:
        while self.fifo is not None and not self.done.wait(seconds):
            try:
                fd = os.open(self.fifo, os.O_WRONLY | os.O_NONBLOCK)  # a reader is waiting
            except OSError:
                continue
            self.hung = True
            with contextlib.suppress(OSError):
                os.write(fd, b"\0" * 64)  # a reader that opened it read-write waits for data
            os.close(fd)

    def __enter__(self) -> Watchdog:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.done.set()
        self.thread.join()


@pytest.mark.parametrize(("command", "index", "kind", "slot", "what"), cases())
def test_every_command_refuses_what_it_must_not_read_or_write(world, tmp_path, capsys,
                                                              command, index, kind, slot,
                                                              what):
    r = COMMANDS[command][0][index]
    values = {name: str(path) for name, path in world.items()}
    for name in (a[1:-1] for a in r.argv if a.startswith("{")):
        values.setdefault(name, str(tmp_path / f"new-{name}"))  # an output
    target = tmp_path / f"hostile-{slot}"
    if kind == "outputs" and what == "input":
        target = world[r.as_input or r.files[0]]
    elif kind == "outputs" and what == "other output":
        values[next(o for o in r.outputs if o != slot)] = str(target)
    elif kind == "output_folders" and what == "input":
        target = world[r.as_input]
    else:
        hostile(target, "read-only folder" if kind == "output_folders" and what == "read-only"
                else what)
    values[slot] = str(target)
    expected = {"files": IN_KINDS, "folders": FOLDER_KINDS, "outputs": OUT_KINDS,
                "output_folders": OUT_FOLDER_KINDS}[kind][what]
    before = snapshot(target) if target.exists() else None
    argv = [a.format(**values) for a in r.argv]
    capsys.readouterr()
    with Watchdog(target if what == "FIFO" else None) as dog:
        code = main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert not dog.hung, f"{argv} waited on the FIFO {target}"
    assert code == 1, (argv, err)
    assert len(err) == 1, err
    assert err[0].startswith(f"pad {command}: "), err
    assert str(target) in err[0], (argv, err)
    assert expected in err[0], (argv, err)
    if before is not None:
        assert snapshot(target) == before, f"{target} was changed"
    else:
        assert not target.exists(), f"{target} was written"


def limited(argv: list[str], gigabytes: int = 3) -> subprocess.CompletedProcess:
    """``python -m pad_engine ARGV`` with at most ``gigabytes`` of address space, so that a
    reader that floods fails there and not on the machine."""
    def limit() -> None:
        size = gigabytes << 30
        resource.setrlimit(resource.RLIMIT_AS, (size, size))

    return subprocess.run([sys.executable, "-m", "pad_engine", *argv], capture_output=True,
                          text=True, timeout=120, env=ENV, preexec_fn=limit)


def test_dev_zero_and_a_file_past_the_bound_are_refused_unread(tmp_path):
    big, streamed = tmp_path / "big.mrg", tmp_path / "big.conllu"
    for path in (big, streamed):
        with open(path, "wb") as f:  # sparse: no disk, but 4 GiB by its size, past any bound
            f.truncate(4 << 30)
    out = str(tmp_path / "out")
    too_big = f"{4 << 30} bytes is more than an input file"
    for argv, source, problem in (
            (["convert", "/dev/zero", "-o", out], "/dev/zero",
             "not a regular file (a character device)"),
            (["deps", str(big), out], str(big), too_big),  # read whole
            (["convert", str(streamed), "-o", out], str(streamed), too_big)):  # streamed
        proc = limited(argv)
        command = argv[0]
        err = proc.stderr.strip().splitlines()
        assert proc.returncode == 1, proc.stderr[-2000:]
        assert len(err) == 1, proc.stderr[-2000:]
        assert err[0].startswith(f"pad {command}: {source}: {problem}"), err
        assert not (tmp_path / "out").exists()


def test_parse_does_not_write_its_conll_over_its_trees(world, tmp_path, capsys):
    out = tmp_path / "both.mrg"
    out.write_text("kept\n")
    assert main(["parse", str(world["text"]), "-o", str(out), "--deps-out", str(out)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert "another output of this run" in err[0], err
    assert out.read_text() == "kept\n"


# The gate is the one place that opens files: a raw open, read or write anywhere else in the
# packages fails here. Each exception says why it is not data read or written.
ALLOWED = {
    ("pad_engine/io/gate.py", "*"): "the gate itself",
    ("pad_engine/io/atomic.py", "*"): "the atomic writer the gate writes through",
    ("pad_engine/batch/lock.py", "os.open"): "the output folder's lock file (a lock)",
    ("pad_gui/controllers/project_file.py", "os.open"): "the project's lock file (a lock)",
    ("pad_gui/controllers/project_file.py", "sqlite3.connect"):
        "the project file, checked by the workspace before it is opened",
    ("pad_engine/io/projects.py", "sqlite3.connect"):
        "a project read by a command: the gate checks it first; opened read-only",
    ("pad_gui/store.py", "sqlite3.connect"):
        "the project file and Save Project As, checked by the workspace first",
    ("pad_engine/decoding/model_check.py", "z.open"): "a member of a model archive the gate "
                                                      "opened",
    ("pad_gui/app.py", "buffer.open"): "a QBuffer in memory: the PNG goes to the gate's writer",
    ("pad_gui/window.py", "self.workspace.open"): "opens a treebank in the workspace, which "
                                                  "reads it through the gate",
    ("pad_gui/window.py", "self.alarm_box.open"): "shows a message box (window-modal), no file",
    ("pad_gui/controllers/project_schema.py", "sqlite3.connect"):
        "an in-memory database (':memory:') holding the schema the app makes, to compare with",
}
RAW = {"open", "os.open", "os.fdopen", "io.open", "sqlite3.connect", "ET.parse", "np.load",
       "atomic_open", "atomic_write_text", "shutil.copy", "shutil.copyfile"}
METHODS = {"open", "read_text", "read_bytes", "write_text", "write_bytes"}


def raw_calls(root: Path = REPO) -> list[str]:
    """Every call that opens a file outside the gate, as FILE:LINE: CALL."""
    found = []
    for package in ("pad_engine", "pad_gui"):
        for path in sorted((root / package).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            if (rel, "*") in ALLOWED:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.Call):
                    continue
                name = ast.unparse(node.func)
                method = isinstance(node.func, ast.Attribute) and node.func.attr in METHODS
                if (name in RAW and (rel, name) not in ALLOWED) or (
                        method and name not in RAW and (rel, name) not in ALLOWED):
                    found.append(f"{rel}:{node.lineno}: {name}")
    return found


def test_no_file_is_opened_outside_the_gate():
    assert raw_calls() == []


def test_a_raw_open_added_anywhere_is_caught(tmp_path):
    for package in ("pad_engine", "pad_gui"):
        for path in (REPO / package).rglob("*.py"):
            target = tmp_path / path.relative_to(REPO)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "pad_engine" / "io" / "penn.py").write_text(
        "def f(p):\n    return open(p).read()\n", encoding="utf-8")
    (tmp_path / "pad_gui" / "x.py").write_text("def g(p):\n    p.write_bytes(b'')\n",
                                                encoding="utf-8")
    assert raw_calls(tmp_path) == ["pad_engine/io/penn.py:2: open",
                                   "pad_gui/x.py:2: p.write_bytes"]


def test_convert_dir_fails_a_file_whose_output_is_special_or_read_only(world, tmp_path,
                                                                       capsys):
    src, out = tmp_path / "in", tmp_path / "out"
    src.mkdir()
    out.mkdir()
    text = conll_text(toy_examples())
    kinds = {"a": "FIFO", "b": "device", "c": "read-only"}
    for name, kind in kinds.items():
        (src / f"{name}.conllu").write_text(text)
        hostile(out / f"{name}.mrg", kind)
    (src / "d.conllu").write_text(text)
    before = {n: snapshot(out / f"{n}.mrg") for n in kinds}
    with Watchdog(out / "a.mrg"):
        code = main(["convert-dir", str(src), str(out), "--model", str(world["model"]),
                     "--jobs", "1"])
    err = capsys.readouterr().err
    assert code == 1
    assert "a.conllu: failed: " in err
    assert "a.mrg: not a regular file (a FIFO)" in err
    assert "b.mrg: not a regular file (a character device)" in err
    assert "c.mrg: read-only (mode 0444)" in err
    assert {n: snapshot(out / f"{n}.mrg") for n in kinds} == before
    assert (out / "d.mrg").read_text().count("(TOP") == len(toy_examples())
