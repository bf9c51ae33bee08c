"""Atomic file writes: a crash or an error midway never leaves a half-written target behind.

The data goes to a temporary file ``.NAME.<12 hex digits>.tmp`` in the target's folder (same
file system, so the final ``os.replace`` is atomic), is flushed and fsynced, and only then
renamed over the target. The writer holds an ``flock`` on its temporary file, so a
temporary left by a killed writer is told from one being written: :func:`prepare_output`
removes the former (unlocked, untouched for ``STALE_SECONDS``, the user's own) before a
command writes the same target again, and refuses an output that is one of the command's
inputs (the same file, through a symlink or a hard link), which would be destroyed.
"""

from __future__ import annotations

import os
import re
import secrets
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from typing import IO

from pad_engine.errors import InputError

try:
    import fcntl
except ImportError:  # Windows: no locks, so only the age tells a temporary file is stale
    fcntl = None

STALE_SECONDS = 60.0  # a writer touches its temporary file far more often than this
_HEX = "[0-9a-f]{12}"


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
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)  # released when the writer ends, even by a kill
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
        with suppress(FileNotFoundError):
            os.chmod(tmp, os.stat(target).st_mode & 0o7777)
        os.replace(tmp, target)
    except BaseException:
        with suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    _fsync_folder(folder)


def atomic_write_text(path: str | os.PathLike[str], text: str, encoding: str = "utf-8") -> None:
    """Write ``text`` to ``path`` atomically, exactly as given (no newline translation)."""
    with atomic_open(path, "w", encoding=encoding, newline="") as f:
        f.write(text)


def temp_pattern(name: str = ".+") -> re.Pattern:
    """The names :func:`atomic_open` gives the temporary files of targets named ``name``
    (a regular expression; by default any target)."""
    return re.compile(rf"\.{name}\.{_HEX}\.tmp")


def prepare_output(path: str | os.PathLike[str],
                   inputs: Iterable[str | os.PathLike[str]] = ()) -> None:
    """Before a command writes ``path``: refuse it when it is one of ``inputs`` (InputError),
    and remove the temporary files a killed earlier write of it left behind."""
    refuse_input(path, inputs)
    target = os.path.realpath(path)
    folder, name = os.path.split(target)
    remove_stale_temps(folder, temp_pattern(re.escape(name)), STALE_SECONDS)


def refuse_input(path: str | os.PathLike[str],
                 inputs: Iterable[str | os.PathLike[str]]) -> None:
    """InputError when writing ``path`` would replace one of ``inputs``: the same file by
    name, through a symlink or as a hard link (same device and inode)."""
    try:
        out = os.stat(path)
    except OSError:
        return  # nothing there yet, so it is no input
    for source in inputs:
        try:
            other = os.stat(source)
        except OSError:
            continue
        if (out.st_dev, out.st_ino) == (other.st_dev, other.st_ino):
            how = ("the same path" if os.path.abspath(path) == os.path.abspath(source) else
                   "the same file through a symlink" if os.path.realpath(path) ==
                   os.path.realpath(source) else "a hard link to it")
            raise InputError(f"the output is the input {os.fspath(source)} ({how}); refusing "
                             "to overwrite it: give another output", os.fspath(path))


def remove_stale_temps(folder: str | os.PathLike[str], pattern: re.Pattern,
                       min_age: float) -> list[str]:
    """Remove the temporary files in ``folder`` (not below it) whose names match ``pattern``
    and that no writer holds: regular files of this user, unlocked, not modified for
    ``min_age`` seconds. Returns the names removed."""
    removed = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        if pattern.fullmatch(entry.name) and _abandoned(entry, min_age):
            removed.append(entry.name)
    return removed


def _abandoned(entry: os.DirEntry, min_age: float) -> bool:
    """Remove ``entry`` if it is an abandoned temporary file; whether it was removed."""
    try:
        st = entry.stat(follow_symlinks=False)
        if (not entry.is_file(follow_symlinks=False) or time.time() - st.st_mtime < min_age
                or (hasattr(os, "getuid") and st.st_uid != os.getuid())):
            return False
        fd = os.open(entry.path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return False
    try:
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                return False  # a live writer holds it
        os.unlink(entry.path)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


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
