"""Special files (FIFOs, devices, sockets) are never read as data: a FIFO blocks its reader
until someone writes, and a device such as ``/dev/zero`` never ends."""

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
    kind = next((name for test, name in _KINDS if test(st.st_mode)), "a special file")
    return f"not a regular file ({kind})"
