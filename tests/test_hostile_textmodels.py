"""Text models (.padparser) are read with the PAD model file's safeguards: special files are
refused without blocking, members are bounded before they inflate, no pickles, finite
weights; each bad file is one line naming it."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import zipfile

import numpy as np
import pytest

from pad_engine.errors import ModelError
from pad_engine.parsing.model import TextModel
from pad_engine.resources import resource_path

GOOD = resource_path("models", "english-ptb-collins.padparser")


def _members() -> dict[str, np.ndarray]:
    with np.load(GOOD, allow_pickle=False) as data:
        return {k: data[k] for k in data.files}


def _write(path, members) -> None:
    with open(path, "wb") as f:
        np.savez(f, **members)


def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "m.padparser"
    os.mkfifo(fifo)
    with pytest.raises(ModelError, match="not a regular file .*not read as a text model"):
        TextModel.load(fifo)


def test_a_member_declaring_a_huge_size_is_refused_before_inflating(tmp_path):
    bomb = tmp_path / "bomb.padparser"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("meta.npy", b"\0" * (300 << 20))  # 300 MB of zeros, a few hundred KB
    bomb.write_bytes(buf.getvalue())
    with pytest.raises(ModelError, match="declares .* bytes uncompressed"):
        TextModel.load(bomb)


@pytest.mark.parametrize("damage, message", [
    ("nan", "not finite"),
    ("size", "table 'arcs' of"),
    ("extra", "unexpected archive member"),
    ("deep", "nests deeper"),
])
def test_damaged_text_models_are_one_line(tmp_path, damage, message):
    members = _members()
    meta = json.loads(members["meta"].tobytes())
    if damage == "nan":
        members["arcs.value"] = members["arcs.value"].copy()
        members["arcs.value"][0] = np.nan
    elif damage == "size":
        meta["sizes"]["arcs"] = 1 << 40
    elif damage == "extra":
        members["payload.pickle"] = np.zeros(3, np.uint8)
    elif damage == "deep":
        meta["training"] = json.loads("[" * 200 + "]" * 200)
    members["meta"] = np.frombuffer(json.dumps(meta).encode(), np.uint8)
    bad = tmp_path / f"{damage}.padparser"
    _write(bad, members)
    with pytest.raises(ModelError, match=message) as info:
        TextModel.load(bad)
    assert str(info.value).startswith(str(bad)) and "\n" not in str(info.value)


def test_pad_parse_with_a_bad_text_model_exits_with_one_line(tmp_path):
    text = tmp_path / "in.txt"
    text.write_text("Dogs bark .\n")
    bad = tmp_path / "bad.padparser"
    bad.write_bytes(b"PK\x03\x04 not really")
    run = subprocess.run([sys.executable, "-m", "pad_engine", "parse", str(text), "--parser",
                          str(bad)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 1 and run.stderr.count("\n") == 1
    assert str(bad) in run.stderr and "Traceback" not in run.stderr
