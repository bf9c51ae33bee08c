"""The output folder's lock: a run holds it, so a second run into the same folder refuses
instead of removing the first one's temporary files and interleaving its state records."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from pad_engine.errors import InputError

try:
    import fcntl
except ImportError:  # Windows: runs into one folder are not kept apart
    fcntl = None

LOCK_NAME = ".pad-convert.lock"
_LOCK_TRIES = 5


@contextmanager
def output_lock(out_root: Path) -> Iterator[None]:
    """Hold the output folder's lock file for a run, or refuse: two runs into one folder
    would remove each other's temporary files and interleave their state records. The file
    goes when the run ends (a killed run's stays, unlocked, for the next run to take)."""
    if fcntl is None:
        yield
        return
    path = out_root / LOCK_NAME
    for _ in range(_LOCK_TRIES):
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
            os.close(fd)
            raise InputError(
                "another pad convert-dir" + (f" (process {holder})" if holder.isdigit() else "")
                + " is writing into this folder: wait for it to end, or choose another output "
                "folder", str(out_root)) from None
        if _same_file(path, fd):
            break
        os.close(fd)  # the run that held it removed it meanwhile: take the new one
    else:
        raise InputError("cannot lock the output folder (its lock file keeps changing)",
                         str(out_root))
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield
    finally:
        with suppress(OSError):
            os.unlink(path)  # still locked: a run waiting on this file retries with a new one
        os.close(fd)


def _same_file(path: Path, fd: int) -> bool:
    try:
        st, held = os.stat(path), os.fstat(fd)
    except OSError:
        return False
    return (st.st_dev, st.st_ino) == (held.st_dev, held.st_ino)
