"""Attacks on the issue-33 gate found open by a red-team pass, one test per hole closed:
each case goes through the real code path that failed (a ``pad`` command in a subprocess
with an address-space cap where the failure was a flood)."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from pad_engine.errors import InputError

REPO = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": str(REPO)}


def limited(argv: list[str], gigabytes: float = 1.5, timeout: float = 120
            ) -> subprocess.CompletedProcess:
    """``python -m pad_engine ARGV`` with at most ``gigabytes`` of address space."""
    def limit() -> None:
        size = int(gigabytes * (1 << 30))
        resource.setrlimit(resource.RLIMIT_AS, (size, size))

    return subprocess.run([sys.executable, "-m", "pad_engine", *argv], capture_output=True,
                          text=True, timeout=timeout, env=ENV, preexec_fn=limit)


def unary_chain(n: int) -> str:
    return "(S " * n + "(NN x)" + ")" * n + "\n"


def test_a_tree_too_deep_to_train_on_is_refused_before_it_is_paired():
    """``make_pair`` listed every node with its position (a tuple as long as its depth):
    memory quadratic in the depth, a MemoryError traceback from ``pad oracle`` and ``pad
    convert --corrected`` on a 100,000-deep tree. It now refuses it first, by its line."""
    from pad_engine.io.penn import parse_penn
    from pad_engine.learning.pairs import make_pair
    from pad_engine.trees.deptree import DepSentence

    tree = parse_penn(unary_chain(20_000)).trees[0]
    sent = DepSentence(["x"], ["NN"], [0], ["root"], line=7)
    with pytest.raises(InputError, match="too deep to train on") as err:
        make_pair(tree, sent, "deps.conll")
    assert err.value.line == 7


def test_oracle_and_corrected_skip_a_100k_deep_tree_with_one_line(tmp_path):
    mrg, conll = tmp_path / "deep.mrg", tmp_path / "deep.conll"
    mrg.write_text(unary_chain(100_000))
    conll.write_text("1\tx\t_\tNN\tNN\t_\t0\tROOT\t_\t_\n\n")
    proc = limited(["oracle", str(mrg), str(conll), "-o", str(tmp_path / "o.mrg")])
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    assert "too deep to train on" in proc.stderr
    proc = limited(["convert", str(conll), "--corrected", str(mrg), str(conll),
                    "-o", str(tmp_path / "c.mrg")])
    assert "Traceback" not in proc.stderr and "too deep to train on" in proc.stderr, \
        proc.stderr


def directory_bomb(n: int, declared: int | None = None, zip64: bool = False) -> bytes:
    """A zip of ``n`` one-letter central-directory entries (47 bytes each) whose end record
    declares ``declared`` of them (default: as many as 16 bits hold)."""
    import struct
    entry = struct.pack("<4s4B4HL2L5H2L", b"PK\x01\x02", 20, 3, 20, 0, 0, 0, 0, 0, 0, 0, 0,
                        1, 0, 0, 0, 0, 0, 0) + b"a"
    body = entry * n
    count = min(n, 0xFFFF) if declared is None else declared
    end = b""
    if zip64:
        record = struct.pack("<4sQ2H2L4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, n, n, len(body), 0)
        locator = struct.pack("<4sLQL", b"PK\x06\x07", 0, len(body), 1)
        end = record + locator
        count, size = 0xFFFF, 0xFFFFFFFF
    else:
        size = len(body)
    return body + end + struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, count, count, size,
                                    0 if zip64 else 0, 0)


@pytest.mark.parametrize("suffix", ["padmodel", "padparser"])
@pytest.mark.parametrize("declared, zip64, problem", [
    (None, False, "the archive has 65535 members"),
    (2, False, "the archive's directory is 9400000 bytes"),
    (None, True, "the archive has 200000 members"),
])
def test_a_model_of_many_tiny_members_is_refused_before_its_directory_is_listed(
        tmp_path, monkeypatch, suffix, declared, zip64, problem):
    """zipfile listed the whole central directory before the member count was checked: a
    235 MB .padmodel of five million one-letter entries took 35 s (and gigabytes) to be
    refused, the app frozen meanwhile. The end record's count and directory size are now
    checked first: zipfile never lists such a directory."""
    import zipfile

    from pad_engine.decoding.model import Model
    from pad_engine.errors import ModelError
    from pad_engine.parsing.model import TextModel

    bomb = tmp_path / f"bomb.{suffix}"
    bomb.write_bytes(directory_bomb(200_000, declared, zip64))

    def listed(self):
        raise AssertionError("zipfile listed the directory")

    monkeypatch.setattr(zipfile.ZipFile, "_RealGetContents", listed)
    load = Model.load if suffix == "padmodel" else TextModel.load
    with pytest.raises(ModelError, match=problem):
        load(str(bomb))
