"""PAD engine: dependency trees to phrase-structure trees (Kong, Rush & Smith 2015). No Qt here."""

import hashlib
import os
import re
import sys
from pathlib import Path

__version__ = "0.1.0"

# a file that imports Numba; one that only names it in its prose (the command line's, the
# Ctrl-C handler's) compiles nothing, and hashing it made every change to it recompile every
# kernel (a minute's start)
_IMPORTS_NUMBA = re.compile(rb"^[ \t]*(?:from|import)[ \t]+numba\b", re.M)


def _jit_files(here: Path) -> list[tuple[Path, bytes]]:
    """The package's source files that use Numba (directly, or ``njit`` and ``leaf`` of
    ``pad_engine.jit``) with their bytes, in a stable order (each file read once: this runs
    at every start-up)."""
    from pad_engine.io.gate import read_bytes

    files = ((p, read_bytes(p)) for p in sorted(here.rglob("*.py")))
    return [(p, data) for p, data in files
            if _IMPORTS_NUMBA.search(data) or b"njit" in data or b"@leaf(" in data]


def jit_sources(here: Path) -> list[Path]:
    """The package's source files that use Numba, in a stable order."""
    return [p for p, _ in _jit_files(here)]


def jit_key(here: Path) -> str:
    """A digest of every Numba source of the package at ``here``."""
    digest = hashlib.sha1()
    for path, data in _jit_files(here):
        digest.update(path.relative_to(here).as_posix().encode())
        digest.update(data)
    return digest.hexdigest()[:16]


def _numba_cache_dir() -> None:
    """Point Numba's on-disk cache at a folder keyed by the compiled sources.

    Numba invalidates a cached function only when its own file changes, not when a function
    it inlines from another file does: after an update of features.py alone, decoder.py's
    cached code would silently keep the old features. A folder per source hash rules that out
    (and keeps the cache out of a possibly read-only install). NUMBA_CACHE_DIR, when set by
    the user, wins.
    """
    if "NUMBA_CACHE_DIR" in os.environ:
        return
    here = Path(__file__).parent
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    os.environ["NUMBA_CACHE_DIR"] = str(base / "pad-studio" / f"numba-{jit_key(here)}")
    if "numba" in sys.modules:  # imported before us: make it read the variable again
        from numba.core import config

        config.reload_config()


_numba_cache_dir()
