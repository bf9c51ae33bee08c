"""Atomic file writes: a crash or an error midway never leaves a half-written target behind.

The data goes to a temporary file in the target's folder (same file system, so the final
``os.replace`` is atomic), is flushed and fsynced, and only then renamed over the target.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO


@contextmanager
def atomic_open(
    path: str | os.PathLike[str],
    mode: str = "w",
    encoding: str | None = "utf-8",
    newline: str | None = None,
) -> Iterator[IO]:
    """Open a temporary file that replaces ``path`` when the ``with`` block ends without error.

    ``mode`` is "w" (text, with ``encoding`` and ``newline`` as for ``open``) or "wb". On an
    exception the temporary file is removed and the old ``path`` (if any) is left untouched.
    A symlink is followed, so its target gets replaced, as ``open(path, "w")`` would write it;
    an existing target keeps its permission bits.
    """
    if mode not in ("w", "wt", "wb"):
        raise ValueError(f"atomic_open supports modes 'w', 'wt' and 'wb', not {mode!r}")
    target = os.path.realpath(path)
    folder, name = os.path.split(target)
    tmp = os.path.join(folder, f".{name}.{secrets.token_hex(6)}.tmp")
    # O_EXCL: never clobber another writer's temp file; 0o666 lets the umask apply as for open().
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        if "b" in mode:
            f = os.fdopen(fd, "wb")
        else:
            f = os.fdopen(fd, "w", encoding=encoding, newline=newline)
    except BaseException:
        os.close(fd)
        os.unlink(tmp)
        raise
    try:
        with f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        try:
            os.chmod(tmp, os.stat(target).st_mode & 0o7777)
        except FileNotFoundError:
            pass
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    _fsync_folder(folder)


def atomic_write_text(path: str | os.PathLike[str], text: str, encoding: str = "utf-8") -> None:
    """Write ``text`` to ``path`` atomically, exactly as given (no newline translation)."""
    with atomic_open(path, "w", encoding=encoding, newline="") as f:
        f.write(text)


def _fsync_folder(folder: str) -> None:
    """Make the rename itself durable (POSIX); a no-op where folders cannot be opened."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
