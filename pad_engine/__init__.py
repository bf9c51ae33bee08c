"""PAD engine: dependency trees to phrase-structure trees (Kong, Rush & Smith 2015). No Qt here."""

import hashlib
import os
import sys
from pathlib import Path

__version__ = "0.1.0"

_JIT_SOURCES = (
    "trees/structure.py", "decoding/features.py", "decoding/decoder.py", "decoding/kbest.py",
    "learning/train.py", "trees/projectivize.py",
)


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
    digest = hashlib.sha1()
    for name in _JIT_SOURCES:
        digest.update((here / name).read_bytes())
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    os.environ["NUMBA_CACHE_DIR"] = str(base / "pad-studio" / f"numba-{digest.hexdigest()[:16]}")
    if "numba" in sys.modules:  # imported before us: make it read the variable again
        from numba.core import config

        config.reload_config()


_numba_cache_dir()
