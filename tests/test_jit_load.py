"""Cached kernels load without Numba's full refresh and without parsing their bitcode
(``pad_engine.jit``), and every kind of kernel loaded that way computes what it computed when
compiled: conversion, the k best, training and the text models' tagger and d-parser; a
function compiled later still links such a kernel. Each run is a process of its own, since a
test process has its kernels loaded (and Numba refreshed) already."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "pad_engine" / "data" / "sample"

# Counts the LLVM bitcode parsed in the process (Numba parses it through this name).
COUNT_PARSES = """
import llvmlite.binding as ll
parsed = []
_parse = ll.parse_bitcode
def counted(bitcode, *args, **kw):
    parsed.append(len(bitcode))
    return _parse(bitcode, *args, **kw)
ll.parse_bitcode = counted
"""
# Runs pad's commands in one process on files in argv[1]; prints, as JSON, what each wrote,
# whether Numba refreshed its compiler (only a refresh imports its polynomial and gdb
# support, which no kernel of PAD uses), the functions it compiled rather than loaded from
# the cache and the bitcode it parsed.
RUN = COUNT_PARSES + """
import hashlib, json, sys
from pathlib import Path
from numba.core import event
from pad_engine.cli import main
from pad_engine.decoding.model import Model
out, sample = Path(sys.argv[1]), Path(sys.argv[2])
steps = [
    ["convert", str(sample / "sample.conllu"), "-o", str(out / "best.mrg")],
    ["convert", str(sample / "sample.conllu"), "--kbest", "3", "-o", str(out / "kbest.txt")],
    ["parse", str(out / "text.txt"), "-o", str(out / "text.mrg")],
    ["train", str(sample / "sample.heads.ptb"), "--epochs", "2", "-o", str(out / "m.padmodel")],
    ["convert", str(sample / "sample.conllu"), "--model", str(out / "m.padmodel"),
     "-o", str(out / "trained.mrg")],
]
with event.install_recorder("numba:compile") as rec:
    codes = [main(step) for step in steps]
compiled = sorted({e.data["dispatcher"].py_func.__name__ for _, e in rec.buffer if e.is_start})
wrote = {name: (out / name).read_text() for name in
         ("best.mrg", "kbest.txt", "text.mrg", "trained.mrg")}
trained = Model.load(out / "m.padmodel")  # its file also holds the date and the seconds
wrote["weights"] = hashlib.sha1(trained.weights.tobytes()).hexdigest()
print(json.dumps({"codes": codes, "compiled": compiled, "wrote": wrote, "parsed": parsed,
                  "refreshed": any(m in sys.modules for m in (
                      "numba.np.polynomial.polynomial_core", "numba.misc.gdb_hook"))}))
"""


# Calls a cached kernel, then compiles (uncached) a function that calls it, which links the
# kernel's code: prints the bitcode parsed after each step and both results.
LINK = COUNT_PARSES + """
import json
import numba
import numpy as np
from pad_engine.trees.structure import cell_count
heads = np.array([1, -1, 1, 4, 1], np.int64)
alone = int(cell_count(heads))
after_load = len(parsed)
@numba.njit
def twice(h):
    return 2 * cell_count(h)
linked = int(twice(heads))
print(json.dumps({"alone": alone, "linked": linked, "after_load": after_load,
                  "after_link": len(parsed)}))
"""


def python(script: str, *args: str) -> dict:
    """What ``script`` printed last, as JSON, run in a process of its own on this checkout."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("NUMBA_DISABLE_JIT", None)
    done = subprocess.run([sys.executable, "-c", script, *args], env=env,
                          capture_output=True, text=True, timeout=900, check=True)
    return json.loads(done.stdout.splitlines()[-1])


def run(out: Path) -> dict:
    out.mkdir()
    (out / "text.txt").write_text("The committee approved the budget .\nPrices rose again .\n")
    return python(RUN, str(out), str(SAMPLE))


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="Numba JIT disabled")
def test_cached_kernels_load_lean_and_compute_the_same(tmp_path):
    first = run(tmp_path / "first")  # compiles what the cache lacks, in Numba's usual way
    second = run(tmp_path / "second")
    assert first["codes"] == second["codes"] == [0] * 5
    assert second["compiled"] == [], "the second run should load every kernel from the cache"
    assert not second["refreshed"], "a cached load refreshed Numba's whole compiler"
    assert second["parsed"] == [], "a cached load parsed a kernel's bitcode"
    assert second["wrote"] == first["wrote"]
    assert second["wrote"]["best.mrg"].startswith("(")


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="Numba JIT disabled")
def test_a_function_compiled_later_links_a_kernel_loaded_lean():
    python(LINK)  # fills the cache if it lacks the kernel
    done = python(LINK)
    assert done["after_load"] == 0, "the cached kernel's bitcode was parsed on its load"
    assert done["after_link"] > 0
    assert done["linked"] == 2 * done["alone"] == 2 * 11


def test_a_foreign_object_file_reads_as_none():
    from pad_engine.elf_symbols import defined_symbols

    assert defined_symbols(b"\xcf\xfa\xed\xfe" + bytes(64)) is None  # Mach-O
    assert defined_symbols(b"\x7fELF\x02\x01" + bytes(10)) is None  # cut short


def test_without_its_hooks_numba_is_left_as_it_is(monkeypatch):
    from numba.core import caching

    from pad_engine import jit

    monkeypatch.delattr(caching.Cache, "_guard_against_spurious_io_errors")
    monkeypatch.setattr(caching.Cache, "load_overload", lambda *a: "numba's own")
    assert jit.lean_cache_load() is False
    assert caching.Cache.load_overload() == "numba's own"
