"""The Numba cache folder follows every compiled source, so a changed helper in one file
never leaves a stale caller compiled from another (Numba itself only checks the caller's file)."""

import re
import shutil
from pathlib import Path

import pad_engine
from pad_engine import jit_key, jit_sources

PACKAGE = Path(pad_engine.__file__).parent


def test_every_file_with_jit_code_is_hashed():
    hashed = set(jit_sources(PACKAGE))
    jitted = {p for p in PACKAGE.rglob("*.py") if re.search(r"@(njit|jit)\b", p.read_text())}
    assert jitted, "no Numba code found"
    assert jitted <= hashed


def test_changing_any_jit_source_changes_the_cache_folder(tmp_path):
    copy = tmp_path / "pad_engine"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    before = jit_key(copy)
    assert jit_key(copy) == before  # stable
    for source in jit_sources(copy):
        original = source.read_bytes()
        source.write_bytes(original + b"\n# changed\n")
        assert jit_key(copy) != before, source.relative_to(copy)
        source.write_bytes(original)
    assert jit_key(copy) == before


def test_a_file_that_only_names_numba_is_not_hashed(tmp_path):
    copy = tmp_path / "pad_engine"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    before = jit_key(copy)
    cli = copy / "cli" / "__init__.py"
    assert b"numba" in cli.read_bytes()  # in its prose
    cli.write_bytes(cli.read_bytes() + b"\n# numba is not imported here\n")
    assert jit_key(copy) == before
