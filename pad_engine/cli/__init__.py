"""The ``pad`` command line.

Each subcommand is a module of this package with ``HELP`` (one line),
``configure(parser)`` and ``run(args) -> int``. Those modules import only argparse at the top
so that ``pad --help`` and light commands start fast; heavy imports happen inside ``run``. A
command line that names a command imports and configures that command's module alone.
"""

from __future__ import annotations

import argparse
import atexit
import importlib
import os
import pkgutil
import sys
import threading
from typing import NoReturn

from pad_engine import __version__
from pad_engine.errors import PadError


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser, one subparser per module of this package; when ``command`` (the
    first word of a command line) names one, that command's alone: importing and configuring
    the other nineteen took 35-40 ms of every ``pad`` command's start-up (no bytecode cache).
    Anything else (``--help``, ``--version``, a mistyped command) gets them all."""
    parser = argparse.ArgumentParser(
        prog="pad", description="PAD: convert dependency trees into phrase-structure trees."
    )
    parser.add_argument("--version", action="version", version=f"pad {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    modules = sorted(m.name for m in pkgutil.iter_modules(__path__)
                     if not m.name.startswith("_"))  # _-prefixed: shared helpers
    named = [m for m in modules if m.replace("_", "-") == command]
    for module_name in named or modules:
        module = importlib.import_module(f"{__name__}.{module_name}")
        name = module_name.replace("_", "-")
        p = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.configure(p)
        p.set_defaults(_run=module.run)
    return parser


def _without_scipy_linalg() -> None:
    """Numba probes SciPy's BLAS when it loads its first cached function, which imports
    scipy.linalg where SciPy is installed: 0.3-0.4 s of ``pad convert`` start-up. PAD's
    kernels use no BLAS, so the ``pad`` process marks scipy.linalg unavailable (unless
    something loaded it already); numba then simply reports no BLAS."""
    sys.modules.setdefault("scipy.linalg", None)


def main(argv: list[str] | None = None) -> int:
    """Entry point: exit code 0 on success, 1 with a one-line reason on bad input."""
    _without_scipy_linalg()
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv[0] if argv else None)
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help()
        return 2
    from pad_engine.interrupt import interrupt_after_boxing

    interrupt_after_boxing()  # Ctrl-C ends the command cleanly, even during a kernel call
    try:
        return int(args._run(args) or 0)
    except PadError as err:
        print(f"pad {args.command}: {err}", file=sys.stderr)
        return 1
    except (OSError, UnicodeDecodeError) as err:
        print(f"pad {args.command}: {err}", file=sys.stderr)
        return 1
    except MemoryError:
        # an input can be within every bound and still not fit (a Penn tree of millions of
        # words): one line, not a traceback that itself may fail to print
        print(f"pad {args.command}: out of memory: the input is too large for this machine",
              file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"pad {args.command}: interrupted", file=sys.stderr)
        return 130


def run() -> NoReturn:
    """The ``pad`` program: :func:`main`, then :func:`quick_exit` with its exit code."""
    quick_exit(main())


def quick_exit(code: int) -> NoReturn:
    """End the process with ``code`` once the atexit handlers have run (temporary folders,
    logging) and the output streams are flushed, without the interpreter's teardown: freeing
    the objects of Numba's modules and of a loaded model took 0.1-0.25 s of every ``pad``
    command after its work was done (the whole process of a one-sentence ``pad convert``
    0.71-0.78 s against 0.62-0.66 s; mypy ends the same way). Every file the commands write
    is written and closed by then (``io.atomic``). Where a thread other than daemons still
    runs, or where this Python has no way to run the atexit handlers first, the
    interpreter's own exit runs as usual."""
    run_exitfuncs = getattr(atexit, "_run_exitfuncs", None)  # CPython's
    if run_exitfuncs is None or any(t.is_alive() and not t.daemon for t in threading.enumerate()
                                    if t is not threading.current_thread()):
        sys.exit(code)
    run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (``pad ... | head``): as Python exits
            code = code or 120
    os._exit(code)


if __name__ == "__main__":
    run()
