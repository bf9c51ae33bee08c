"""Files and processes: no command overwrites its input, special files are skipped, two runs
never share an output folder, killed writes are cleaned up, pool processes die with their
parent. Waits on other processes are bounded (a hang fails the test, it does not block it)."""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_batch import conll_text
from toy import toy_examples

from pad_engine.batch.folders import convert_folder
from pad_engine.batch.lock import LOCK_NAME
from pad_engine.batch.report import REPORT_NAME, SKIPPED
from pad_engine.cli import main
from pad_engine.errors import InputError
from pad_engine.io.atomic import atomic_open, prepare_output
from pad_engine.io.conll import read_conll
from pad_engine.learning.train import train
from pad_gui.controllers import exports
from pad_gui.session import Session
from pad_gui.store import ProjectStore

REPO = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": str(REPO)}
TREES = "(S (NP (DT the) (NN dog)) (VP (VBZ barks)))\n(S (NP (NNS dogs)) (VP (VBD ran)))\n"


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("model") / "toy.padmodel"
    train(toy_examples(), epochs=1, bits=12).save(path)
    return path


@pytest.fixture
def conll(tmp_path) -> Path:
    path = tmp_path / "in.conll"
    path.write_text(conll_text(toy_examples()))
    return path


def wait_for(condition, what: str, seconds: float = 120.0):
    """Poll until ``condition()`` is true (returns it); fail after ``seconds``."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        found = condition()
        if found:
            return found
        time.sleep(0.05)
    pytest.fail(f"gave up waiting for {what}")


def temps(folder: Path) -> list[Path]:
    return [p for p in folder.rglob(".*.tmp")]


# -- 3. never destroy input ---------------------------------------------------------------

def link_kinds(tmp_path: Path, target: Path) -> dict[str, Path]:
    """The same file as ``target`` under three names."""
    sym, hard = tmp_path / "sym.out", tmp_path / "hard.out"
    sym.symlink_to(target)
    os.link(target, hard)
    return {"same path": target, "symlink": sym, "hard link": hard}


def test_convert_refuses_to_write_over_its_input_or_model(tmp_path, conll, model, capsys):
    before = conll.read_bytes()
    for how, out in link_kinds(tmp_path, conll).items():
        assert main(["convert", str(conll), "-o", str(out), "--model", str(model)]) == 1
        err = capsys.readouterr().err.splitlines()
        assert len(err) == 1, (how, err)
        assert "the output is the input" in err[0], (how, err)
        assert conll.read_bytes() == before
    kept = model.read_bytes()
    assert main(["convert", str(conll), "-o", str(model), "--model", str(model)]) == 1
    assert model.read_bytes() == kept
    assert "the output is the input" in capsys.readouterr().err


def test_deps_oracle_train_and_learning_curve_refuse_their_inputs(tmp_path, conll, model,
                                                                   capsys):
    trees = tmp_path / "t.mrg"
    trees.write_text(TREES)
    deps = tmp_path / "d.conll"
    assert main(["deps", str(trees), str(deps)]) == 0
    capsys.readouterr()
    table = tmp_path / "heads.txt"
    table.write_text("* left\n")
    bank = tmp_path / "bank"
    bank.mkdir()
    (bank / "wsj_0001.mrg").write_text(TREES)
    (bank / "wsj_0170.mrg").write_text(TREES)
    runs = [
        ["deps", str(trees), str(trees)],
        ["deps", str(trees), str(table), "--headrules", str(table)],
        ["oracle", str(trees), str(deps), "-o", str(deps)],
        ["oracle", str(trees), str(deps), "-o", str(tmp_path / "sym.out")],
        ["train", str(trees), "-o", str(trees)],
        ["train", str(trees), "--deps", str(deps), "-o", str(deps)],
        ["learning-curve", "--treebank", str(bank), "-o", str(bank / "wsj_0170.mrg")],
        ["train-deps", str(deps), "-o", str(deps)],
        ["parse", str(table), "-o", str(table)],
        ["parse", str(table), "--deps-out", str(tmp_path / "sym.out"), "--model", str(trees)],
    ]
    (tmp_path / "sym.out").symlink_to(trees)
    kept = {p: p.read_bytes() for p in (trees, deps, table, bank / "wsj_0170.mrg")}
    for argv in runs:
        assert main(argv) == 1, argv
        err = capsys.readouterr().err.splitlines()
        assert len(err) == 1, (argv, err)
        assert "the output is the input" in err[0], (argv, err)
    assert {p: p.read_bytes() for p in kept} == kept


def test_convert_dir_never_writes_through_a_link_to_an_input(tmp_path, model, capsys):
    src, out = tmp_path / "in", tmp_path / "out"
    src.mkdir()
    out.mkdir()
    text = conll_text(toy_examples())
    (src / "a.conllu").write_text(text)
    (src / "b.conllu").write_text(text)
    (out / "a.mrg").symlink_to(src / "a.conllu")
    os.link(src / "b.conllu", out / "b.mrg")
    assert main(["convert-dir", str(src), str(out), "--model", str(model), "--jobs", "1"]) == 1
    err = capsys.readouterr().err
    assert err.count("the output is the input file") == 2
    assert (src / "a.conllu").read_text() == text == (src / "b.conllu").read_text()
    (out / "a.mrg").unlink()
    (out / "b.mrg").unlink()
    (out / f"{REPORT_NAME}.txt").unlink()
    (out / f"{REPORT_NAME}.txt").symlink_to(src / "a.conllu")
    with pytest.raises(InputError, match="is the input file"):
        convert_folder(src, out, model, jobs=1)
    assert (src / "a.conllu").read_text() == text


def test_app_exports_refuse_the_treebank_and_the_project(tmp_path, conll):
    store = ProjectStore(tmp_path / "p.padproject")
    session = Session(conll, read_conll(conll), store)
    before = conll.read_bytes()
    for target in [*link_kinds(tmp_path, conll).values(), tmp_path / "p.padproject"]:
        with pytest.raises(ValueError, match="refusing to overwrite"):
            exports.write_dependencies(session, str(target))
        with pytest.raises(ValueError, match="refusing to overwrite"):
            exports.penn_job(session, str(target), False)(None)
    assert conll.read_bytes() == before
    exports.write_dependencies(session, str(tmp_path / "new.conllu"))
    assert (tmp_path / "new.conllu").read_bytes() == before
    store.close()


# -- 4. folders and processes ---------------------------------------------------------------

def test_convert_dir_skips_a_fifo_and_a_device_and_reports_them(tmp_path, model):
    src, out = tmp_path / "in", tmp_path / "out"
    src.mkdir()
    (src / "good.conllu").write_text(conll_text(toy_examples()))
    os.mkfifo(src / "x.conllu")
    (src / "zero.conll").symlink_to("/dev/zero")
    proc = subprocess.run([sys.executable, "-m", "pad_engine", "convert-dir", str(src),
                           str(out), "--model", str(model), "--jobs", "1"],
                          capture_output=True, text=True, timeout=300, env=ENV)
    assert proc.returncode == 0, proc.stderr
    err = proc.stderr
    assert "x.conllu: skipped: not a regular file (a FIFO)" in err
    assert "zero.conll: skipped: not a regular file (a character device)" in err
    assert "2 skipped: not regular files" in err
    assert (out / "good.mrg").read_text().count("(TOP") == len(toy_examples())
    report = (out / f"{REPORT_NAME}.json").read_text()
    assert report.count(f'"status": "{SKIPPED}"') == 2


def test_a_held_output_folder_refuses_a_second_run(tmp_path, model, capsys):
    src, out = tmp_path / "in", tmp_path / "out"
    src.mkdir()
    out.mkdir()
    (src / "a.conllu").write_text(conll_text(toy_examples()))
    with open(out / LOCK_NAME, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        lock.write("4242\n")
        lock.flush()
        assert main(["convert-dir", str(src), str(out), "--model", str(model)]) == 1
        err = capsys.readouterr().err.splitlines()
        assert len(err) == 1
        assert "another pad convert-dir (process 4242) is writing" in err[0]
        assert not (out / "a.mrg").exists()
    assert main(["convert-dir", str(src), str(out), "--model", str(model), "--jobs", "1"]) == 0
    assert (out / "a.mrg").exists()


def big_folder(root: Path, files: int, copies: int) -> Path:
    root.mkdir()
    for i in range(files):
        (root / f"f{i}.conllu").write_text(conll_text(toy_examples()) * copies)
    return root


def test_two_concurrent_runs_into_one_folder(tmp_path, model, capsys):
    src, out = big_folder(tmp_path / "in", 3, 1000), tmp_path / "out"
    first = subprocess.Popen([sys.executable, "-m", "pad_engine", "convert-dir", str(src),
                              str(out), "--model", str(model), "--jobs", "1"],
                             stderr=subprocess.PIPE, text=True, env=ENV)
    try:
        wait_for(lambda: temps(out), "the first run to write")
        assert main(["convert-dir", str(src), str(out), "--model", str(model)]) == 1
        err = capsys.readouterr().err
        assert f"another pad convert-dir (process {first.pid}) is writing" in err
        _, first_err = first.communicate(timeout=300)
    finally:
        first.kill()
    assert first.returncode == 0, first_err
    assert not temps(out)
    for i in range(3):
        assert (out / f"f{i}.mrg").read_text().count("\n") == 1000 * len(toy_examples())


def test_stale_temporaries_of_the_output_alone_are_cleaned(tmp_path, conll, model):
    out = tmp_path / "out.mrg"
    old = time.time() - 3600
    own = tmp_path / ".out.mrg.0123456789ab.tmp"
    fresh = tmp_path / ".out.mrg.ba9876543210.tmp"
    held = tmp_path / ".out.mrg.aaaaaaaaaaaa.tmp"
    others = [tmp_path / ".other.mrg.0123456789ab.tmp", tmp_path / ".out.mrg.notes.tmp",
              tmp_path / ".out.mrg.0123456789AB.tmp", tmp_path / "out.mrg.0123456789ab.tmp"]
    for path in [own, fresh, held, *others]:
        path.write_text("x")
    link = tmp_path / ".out.mrg.cccccccccccc.tmp"
    link.symlink_to(conll)
    for path in [own, held, *others]:
        os.utime(path, (old, old))
    with open(held) as writer:
        fcntl.flock(writer, fcntl.LOCK_EX)
        prepare_output(out, [conll])
    assert not own.exists()
    assert all(p.exists() for p in [fresh, held, *others])
    assert link.is_symlink()
    with atomic_open(tmp_path / "x.mrg") as f:  # a live writer holds its temporary file
        name = next(tmp_path.glob(".x.mrg.*.tmp"))
        os.utime(name, (old, old))
        prepare_output(tmp_path / "x.mrg")
        assert name.exists()
        f.write("done\n")


def test_a_killed_convert_leaves_a_temporary_that_the_next_run_removes(tmp_path, model):
    src = tmp_path / "big.conllu"
    src.write_text(conll_text(toy_examples()) * 3000)
    out = tmp_path / "out.mrg"
    argv = [sys.executable, "-m", "pad_engine", "convert", str(src), "-o", str(out),
            "--model", str(model)]
    proc = subprocess.Popen(argv, stderr=subprocess.DEVNULL, env=ENV)
    try:
        left = wait_for(lambda: temps(tmp_path), "the conversion to start writing")
    finally:
        proc.kill()
        proc.wait(timeout=60)
    assert left[0].exists()
    assert not out.exists()
    old = time.time() - 3600
    os.utime(left[0], (old, old))  # as the next run finds it a while later
    src.write_text(conll_text(toy_examples()))
    subprocess.run(argv, check=True, capture_output=True, timeout=300, env=ENV)
    assert not temps(tmp_path)
    assert out.read_text().count("(TOP") == len(toy_examples())


def children_of(pid: int) -> list[int]:
    kids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                kids.append(int(entry))
    return kids


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_pool_processes_end_when_their_parent_is_killed(tmp_path, model):
    src, out = big_folder(tmp_path / "in", 6, 1000), tmp_path / "out"
    parent = subprocess.Popen([sys.executable, "-m", "pad_engine", "convert-dir", str(src),
                               str(out), "--model", str(model), "--jobs", "2"],
                              stderr=subprocess.DEVNULL, env=ENV)
    try:
        wait_for(lambda: temps(out), "the workers to write")
        workers = children_of(parent.pid)
        assert len(workers) >= 2
    finally:
        parent.send_signal(signal.SIGKILL)
        parent.wait(timeout=60)
    wait_for(lambda: not any(alive(pid) for pid in workers), "the pool processes to end")
