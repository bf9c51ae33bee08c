"""Numba's ``njit`` as PAD's kernels use it, with cached kernels loaded lean.

Before it loads a function from its on-disk cache, Numba refreshes its compiler: it imports
and registers the typing and lowering of everything it can compile, about 300 modules and
0.2-0.3 s of every start-up of ``pad convert`` and of the app. A cached kernel is machine
code already and needs only Numba's runtime (the allocator of its arrays). Kernels defined
with this module's ``njit`` are loaded with the runtime alone; a cache miss falls through
to Numba's compiler, which refreshes everything itself before it compiles. Where Numba's
cache no longer has the two methods this relies on, Numba is left as it is.
"""

from __future__ import annotations

import os

from numba import njit
from numba.core import caching
from numba.core.runtime import rtsys

__all__ = ["default_jobs", "leaf", "lean_cache_load", "njit"]


def _load_overload(self: caching.Cache, sig, target_context):
    """``Cache.load_overload`` without the refresh: the runtime, then the cached code."""
    rtsys.initialize(target_context)
    with self._guard_against_spurious_io_errors():
        return self._load_overload(sig, target_context)
    return None  # the guard swallowed an I/O error: Numba compiles instead


def lean_cache_load() -> bool:
    """Load cached kernels without Numba's full refresh; False where this Numba cannot."""
    needed = ("load_overload", "_load_overload", "_guard_against_spurious_io_errors")
    if not all(hasattr(caching.Cache, name) for name in needed):
        return False
    caching.Cache.load_overload = _load_overload
    return True


def leaf(**options):
    """``njit(**options)`` for a helper the kernels call in their inner loops (per scored rule,
    per cell) that allocates nothing: compiled without Numba's reference counting. Compiled
    with it (or inlined by Numba), a helper increments and decrements, atomically, the count
    of every array it is handed on each call: a dozen per scored rule, a third of the bundled
    PTB model's decoding. A leaf that allocates fails to compile (Numba's typing refuses it),
    so it can never run wrong."""
    return njit(_nrt=False, **options)


def default_jobs() -> int:
    """How much runs at once by default: the sentences ``pad convert`` and ``pad parse`` work
    on (forked workers), the folds of Retrain's cross-validation (threads). One per
    processor this process may use, at most 4 (forked conversion workers on two cores
    measured 1.8x one; a third on two cores was slower than two; more than two cores not
    measured)."""
    affinity = getattr(os, "sched_getaffinity", None)  # not on macOS or Windows
    cpus = len(affinity(0)) if affinity else os.cpu_count() or 1
    return max(1, min(4, cpus))


lean_cache_load()
