"""Special files (FIFOs, devices, sockets) are never read as data: a FIFO blocks its reader
until someone writes, and a device such as ``/dev/zero`` never ends. :mod:`pad_engine.io.gate`
asks here for every file read or written."""

from __future__ import annotations

import os
import stat

_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"))


def regular_file_problem(st: os.stat_result) -> str | None:
    """Why a file with this ``stat`` is not one to read, or None for a regular file."""
    if stat.S_ISREG(st.st_mode):
        return None
    return f"not a regular file ({file_kind(st)})"


def file_kind(st: os.stat_result) -> str:
    """What a file with this ``stat`` is, in words ("a FIFO", "a regular file")."""
    if stat.S_ISREG(st.st_mode):
        return "a regular file"
    return next((name for test, name in _KINDS if test(st.st_mode)), "a special file")
