"""Text models (.padparser) are read with the PAD model file's safeguards: special files are
refused without blocking, members are bounded before they inflate, no pickles, finite
weights; every field has its type, every tag and label its characters, every size its
bound, checked before an array is allocated; each bad file is one line naming it."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import textwrap
import zipfile

import numpy as np
import pytest

from pad_engine.cli import main
from pad_engine.errors import ModelError
from pad_engine.parsing.model import TextModel
from pad_engine.parsing.tagger import Tagger
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
    with pytest.raises(ModelError, match=r"not a regular file .*not read as a text model"):
        TextModel.load(fifo)


def test_a_member_declaring_a_huge_size_is_refused_before_inflating(tmp_path):
    bomb = tmp_path / "bomb.padparser"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("meta.npy", b"\0" * (300 << 20))  # 300 MB of zeros, a few hundred KB
    bomb.write_bytes(buf.getvalue())
    with pytest.raises(ModelError, match=r"declares .* bytes uncompressed"):
        TextModel.load(bomb)


@pytest.mark.parametrize(("damage", "message"), [
    ("nan", "not finite"),
    ("size", "table arcs has 1099511627776 entries"),
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
    assert str(info.value).startswith(str(bad))
    assert "\n" not in str(info.value)


def test_pad_parse_with_a_bad_text_model_exits_with_one_line(tmp_path):
    text = tmp_path / "in.txt"
    text.write_text("Dogs bark .\n")
    bad = tmp_path / "bad.padparser"
    bad.write_bytes(b"PK\x03\x04 not really")
    run = subprocess.run([sys.executable, "-m", "pad_engine", "parse", str(text), "--parser",
                          str(bad)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 1
    assert run.stderr.count("\n") == 1
    assert str(bad) in run.stderr
    assert "Traceback" not in run.stderr


# -- crafted text models through ``pad parse`` --------------------------------------------------
TAGS = ["DT", "NN", "VBZ", "."]


def _tiny(path) -> None:
    """A valid text model in a few KB: zero weights, a tagger of four tags, two labels."""
    bits = 8
    tagger = Tagger(list(TAGS), np.zeros((1 << bits) + 4, np.float32),
                    np.zeros((1 << bits) + 4, np.float32))
    filter_ = np.full(1 << 16, 50, np.int64)
    TextModel({"xpos": tagger}, np.zeros(1 << 10, np.float32), filter_, ["root", "dep"],
              np.zeros((1 << bits) + 2, np.float32)).save(path)


def _crafted(tmp_path, change) -> str:
    good = tmp_path / "good.padparser"
    _tiny(good)
    with np.load(good, allow_pickle=False) as data:
        members = {k: data[k] for k in data.files}
    meta = json.loads(members["meta"].tobytes())
    change(meta, members)
    members["meta"] = np.frombuffer(json.dumps(meta).encode(), np.uint8)
    bad = tmp_path / "crafted.padparser"
    _write(bad, members)
    return str(bad)


def _parse(tmp_path, capsys, model: str) -> tuple[int, str, str]:
    text = tmp_path / "in.txt"
    text.write_text("The dog barks .\n")
    deps = tmp_path / "out.conllu"
    code = main(["parse", str(text), "--parser", model, "--deps-out", str(deps)])
    err = capsys.readouterr().err
    return code, err, deps.read_text() if deps.exists() else ""


def _tags(column: str, value) -> callable:
    def change(meta, members):
        meta["taggers"]["xpos"][column] = value
    return change


def _meta(key: str, value) -> callable:
    def change(meta, members):
        meta[key] = value
    return change


def _size(value) -> callable:
    def change(meta, members):
        meta["sizes"]["arcs"] = value
    return change


def _negative(meta, members) -> None:
    members["arcs.index"] = np.array([-1], "<i4")
    members["arcs.value"] = np.array([2.0], "<f4")


CRAFTED = {  # what the issue found accepted or crashing, and what now refuses it
    "taggers as a list": (_meta("taggers", [{"tags": TAGS}]), "taggers must be an object"),
    "taggers as a string": (_meta("taggers", "xpos"), "taggers must be an object"),
    "a label holding a tab": (_meta("labels", ["root", "dep\tx"]), "label 'dep\\tx' is not"),
    "a label holding a newline": (_meta("labels", ["root\n", "dep"]), "label 'root\\n' is not"),
    "an empty tag": (_tags("tags", ["", "NN", "VBZ", "."]), "tag of xpos '' is not"),
    "integer tags": (_tags("tags", [1, 2, 3, 4]), "tag of xpos 1 is not"),
    "duplicate tags": (_tags("tags", ["NN", "NN", "VBZ", "."]), "tag of xpos 'NN' appears twice"),
    "a 257-character tag": (_tags("tags", ["N" * 257, "NN", "VBZ", "."]), "is not 1..256"),
    "a 5-million-character tag": (_tags("tags", ["N" * 5_000_000, "NN", "VBZ", "."]),
                                  "meta.npy declares"),
    "a size as a float": (_size(1024.0), "size of table arcs must be a whole number"),
    "a size as a string": (_size("1024"), "size of table arcs must be a whole number"),
    "negative indices": (_negative, "arcs.index: array of <i4"),
    "a table nobody reads": (lambda meta, members: meta["sizes"].update(extra=1 << 26),
                             "sizes must name the tables"),
}


def test_the_tiny_text_model_parses(tmp_path, capsys):
    """The model the crafted files start from is a good one: each refusal below is the
    damage's."""
    code, err, deps = _parse(tmp_path, capsys, _crafted(tmp_path, lambda meta, members: None))
    assert code == 0, err
    assert {len(line.split("\t")) for line in deps.splitlines() if line} == {10}


@pytest.mark.parametrize("case", list(CRAFTED))
def test_pad_parse_refuses_a_crafted_text_model_in_one_line(tmp_path, capsys, case):
    change, message = CRAFTED[case]
    bad = _crafted(tmp_path, change)
    code, err, deps = _parse(tmp_path, capsys, bad)
    assert code == 1
    assert deps == ""
    assert err.startswith(f"pad parse: {bad}: "), err
    assert err.count("\n") == 1, err
    assert message in err


PEAK = textwrap.dedent("""
    import resource, subprocess, sys
    code = subprocess.run([sys.executable, "-m", "pad_engine", *sys.argv[1:]]).returncode
    print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024, file=sys.stderr)
    sys.exit(code)
""")  # the peak of the command run from a small process: Linux keeps a process's peak
# across exec, so one forked from pytest itself would report pytest's


def test_a_small_file_declaring_huge_tables_is_refused_before_they_are_allocated(tmp_path):
    """A table of 2**25 entries whose members inflate 1,000 times: refused from the archive's
    directory, before a byte is inflated or a table allocated (it used to cost 1.4 GB)."""
    bomb = tmp_path / "bomb.padparser"
    good = tmp_path / "good.padparser"
    _tiny(good)
    n = 1 << 25
    with zipfile.ZipFile(good) as src, zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as out:
        for info in src.infolist():
            if not info.filename.startswith("arcs."):
                data = src.read(info)
                if info.filename == "meta.npy":
                    meta = json.loads(_npy_bytes(data).tobytes())
                    meta["sizes"]["arcs"] = n
                    data = _npy_of(np.frombuffer(json.dumps(meta).encode(), np.uint8))
                out.writestr(info.filename, data)
        for name, dtype in (("arcs.index.npy", "<i8"), ("arcs.value.npy", "<f4")):
            _zeros_member(out, name, np.dtype(dtype), n)
    assert bomb.stat().st_size < 2 << 20
    text = tmp_path / "in.txt"
    text.write_text("The dog barks .\n")
    run = subprocess.run([sys.executable, "-c", PEAK, "parse", str(text), "--parser",
                          str(bomb)], capture_output=True, text=True, timeout=300)
    *message, peak = run.stderr.splitlines()
    assert run.returncode == 1, run.stderr
    assert len(message) == 1, run.stderr
    assert str(bomb) in message[0], run.stderr
    assert int(peak) < 400, f"peak {peak} MB"


def _npy_bytes(data: bytes) -> np.ndarray:
    return np.load(io.BytesIO(data), allow_pickle=False)


def _npy_of(array: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, array)
    return buf.getvalue()


def _zeros_member(out: zipfile.ZipFile, name: str, dtype: np.dtype, n: int) -> None:
    """A ``.npy`` member of ``n`` zeros, written in chunks (never held in memory)."""
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": dtype.str, "fortran_order": False,
                                                  "shape": (n,)})
    chunk = bytes(1 << 22)
    left = n * dtype.itemsize
    with out.open(name, "w", force_zip64=True) as member:
        member.write(header.getvalue())
        while left:
            member.write(chunk[:min(left, len(chunk))])
            left -= min(left, len(chunk))
