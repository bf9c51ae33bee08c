"""Numba's ``njit`` as PAD's kernels use it, with cached kernels loaded lean.

Before it loads a function from its on-disk cache, Numba refreshes its compiler: it imports
and registers the typing and lowering of everything it can compile, about 300 modules and
0.2-0.3 s of every start-up of ``pad convert`` and of the app. A cached kernel is machine
code already and needs only Numba's runtime (the allocator of its arrays). Kernels defined
with this module's ``njit`` are loaded with the runtime alone; a cache miss falls through
to Numba's compiler, which refreshes everything itself before it compiles. Where Numba's
cache no longer has the two methods this relies on, Numba is left as it is.

A cached kernel's LLVM bitcode is parsed only once another function links it (a cache miss
that calls it), not on every load: Numba parses it to list the symbols the kernel defines,
which its object file's symbol table gives (:mod:`pad_engine.elf_symbols`; 40-55 ms of a
start-up for the decoder alone).
"""

from __future__ import annotations

import os

from llvmlite import binding as ll
from numba import njit
from numba.core import caching, codegen
from numba.core.runtime import rtsys

from pad_engine.elf_symbols import defined_symbols

__all__ = ["default_jobs", "leaf", "lean_cache_load", "njit"]


def _load_overload(self: caching.Cache, sig, target_context):
    """``Cache.load_overload`` without the refresh: the runtime, then the cached code."""
    rtsys.initialize(target_context)
    with self._guard_against_spurious_io_errors():
        return self._load_overload(sig, target_context)
    return None  # the guard swallowed an I/O error: Numba compiles instead


_LIBRARY = codegen.CPUCodeLibrary
_NUMBA_UNSERIALIZE = getattr(_LIBRARY.__dict__.get("_unserialize"), "__func__", None)
_NUMBA_MODULE_FOR_LINKING = getattr(_LIBRARY, "_get_module_for_linking", None)


def _unserialize(cls, codegen_: codegen.JITCPUCodegen, state: tuple):
    """``CPUCodeLibrary._unserialize`` of a kernel cached as object code, its bitcode kept
    unparsed and its symbols read off the object file; Numba's own for anything else."""
    name, kind, data = state
    engine = getattr(codegen_, "_engine", None)
    symbols = defined_symbols(data[0]) if kind == "object" else None
    if symbols is None or not isinstance(getattr(engine, "_defined_symbols", None), set):
        return _NUMBA_UNSERIALIZE(cls, codegen_, state)
    library = codegen_.create_library(name)
    library.enable_object_caching()
    library._set_compiled_object(data[0])
    library._unparsed_bitcode = data[1]
    library._finalize_final_module()
    engine._defined_symbols |= symbols
    return library


def _module_for_linking(library: codegen.CPUCodeLibrary):
    """Numba's ``_get_module_for_linking``, the bitcode of a lean-loaded kernel parsed first."""
    bitcode = getattr(library, "_unparsed_bitcode", None)
    if bitcode is not None:
        library._shared_module = ll.parse_bitcode(bitcode)
        library._unparsed_bitcode = None
    return _NUMBA_MODULE_FOR_LINKING(library)


def lean_cache_load() -> bool:
    """Load cached kernels without Numba's full refresh (and, where this Numba's code library
    has the methods it relies on, without parsing their bitcode); False where this Numba
    cannot."""
    needed = ("load_overload", "_load_overload", "_guard_against_spurious_io_errors")
    if not all(hasattr(caching.Cache, name) for name in needed):
        return False
    caching.Cache.load_overload = _load_overload
    if _NUMBA_UNSERIALIZE is not None and _NUMBA_MODULE_FOR_LINKING is not None:
        _LIBRARY._unserialize = classmethod(_unserialize)
        _LIBRARY._get_module_for_linking = _module_for_linking
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
