"""The one gate every file PAD reads or writes passes, so its checks hold on every path.

Reading: only a regular file is opened (a FIFO would block its reader, a device such as
``/dev/zero`` never ends, a folder or a socket is no data): it is ``stat``-ed, opened
non-blocking, checked again on the open descriptor, and read up to a bound for its kind;
whatever goes wrong is one :class:`InputError` naming the file.

Writing: an output is refused when it is a device, a FIFO, a socket or a folder, when its
permission bits do not let this process write it or its folder (checked on the bits, not
by trying: as root every write succeeds, and a 0444 file is still not to be replaced), when
it is one of the run's inputs (by name, symlink or hard link) or another output of the same
run; the data then goes through :mod:`pad_engine.io.atomic`, and the target is checked once
more just before the rename (a FIFO put there meanwhile is not replaced).
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import IO, BinaryIO

from pad_engine.errors import InputError
from pad_engine.io.atomic import atomic_open, prepare_output
from pad_engine.io.special import file_kind, regular_file_problem

TEXT_BYTES = 1 << 30  # a treebank, a text, an XML bank: the largest UD file is 0.15 GB
TABLE_BYTES = 16 << 20  # a head table, a label set
_FLAGS = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
          | getattr(os, "O_CLOEXEC", 0))

FilePath = str | os.PathLike[str]


# -- reading ------------------------------------------------------------------------------

def open_read(path: FilePath, what: str = "", limit: int | None = TEXT_BYTES) -> BinaryIO:
    """``path`` opened for reading in binary, once it is known to be a regular file of at
    most ``limit`` bytes (None: any size, for a reader that streams); ``what`` names the
    kind of file in the messages ("model": "not read as a model")."""
    name = os.fspath(path)
    st = _stat(name, what)
    problem = regular_file_problem(st)
    if problem:
        raise InputError(f"{problem}: not read" + (f" as a {what}" if what else ""), name)
    _bounded(st.st_size, name, what, limit)
    try:
        fd = os.open(name, _FLAGS)
    except OSError as err:
        raise InputError(err.strerror or str(err), name) from None
    now = os.fstat(fd)
    if (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino) or not stat.S_ISREG(now.st_mode):
        os.close(fd)
        raise InputError("the file changed while it was opened", name)
    return os.fdopen(fd, "rb")


def read_bytes(path: FilePath, what: str = "", limit: int = TEXT_BYTES) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes (see :func:`open_read`)."""
    with open_read(path, what, limit) as f:
        return _read_upto(f, limit, os.fspath(path), what)  # bounded again: it may grow


def read_stream(stream: BinaryIO, name: str, limit: int = TEXT_BYTES) -> bytes:
    """At most ``limit`` bytes of a stream (standard input), else an InputError naming it."""
    return _read_upto(stream, limit, name, "")


class BoundedStream:
    """A stream (standard input) read through as a file of at most ``limit`` bytes: one
    more is an InputError naming it, so a reader that streams (``pad convert``) stops at
    the bound of a file instead of reading an endless pipe (``/dev/zero``) for ever, or
    copying it to a temporary file until the disk is full. It cannot seek."""

    def __init__(self, stream: BinaryIO, name: str, limit: int = TEXT_BYTES):
        self._stream = stream
        self._name = name
        self._limit = limit
        self._held = 0

    def read(self, size: int | None = -1) -> bytes:
        return self._counted(self._stream.read(self._most(size)))

    def readline(self, size: int | None = -1) -> bytes:
        return self._counted(self._stream.readline(self._most(size)))

    def seekable(self) -> bool:
        return False

    def readable(self) -> bool:
        return True

    def close(self) -> None:
        return None  # standard input is not this reader's to close

    def _most(self, size: int | None) -> int:
        left = self._limit - self._held + 1  # one more than allowed: the overflow shows
        return left if size is None or size < 0 else min(size, left)

    def _counted(self, data: bytes) -> bytes:
        self._held += len(data)
        _bounded(self._held, self._name, "", self._limit)
        return data


def _read_upto(f: BinaryIO, limit: int, name: str, what: str) -> bytes:
    """At most ``limit`` bytes, read in chunks (``f.read(limit + 1)`` would reserve it all
    at once however small the file: 1 GiB for a 1 KB treebank), else InputError; refused
    before the chunks are joined, so a stream past the bound costs no second copy of it."""
    chunks, held = [], 0
    while held <= limit:
        chunk = f.read(min(1 << 24, limit + 1 - held))
        if not chunk:
            break
        chunks.append(chunk)
        held += len(chunk)
    _bounded(held, name, what, limit)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def check_inputs(files: Iterable[FilePath | None] = (), folders: Iterable[FilePath | None] = ()
                 ) -> None:
    """Refuse at once (InputError) a file among ``files`` that is not a regular file, or a
    folder among ``folders`` that is not a folder: a command asks before it does any work.
    None entries are skipped (an option not given), so is "-" (standard input) and a name
    that does not exist (its reader says so in its own words)."""
    for path in files:
        if path is None or os.fspath(path) == "-":
            continue
        try:
            st = os.stat(path)
        except FileNotFoundError:
            continue
        except OSError as err:
            raise InputError(err.strerror or str(err), os.fspath(path)) from None
        problem = regular_file_problem(st)
        if problem:
            raise InputError(f"{problem}: not read", os.fspath(path))
    for path in folders:
        if path is not None and os.path.lexists(path):
            check_folder(path)


def check_folder(path: FilePath, what: str = "folder") -> None:
    """InputError unless ``path`` is a folder (a FIFO or a device named as one is refused
    before anything looks inside)."""
    name = os.fspath(path)
    try:
        st = os.stat(name)
    except FileNotFoundError:
        raise InputError(f"no such {what}", name) from None
    except OSError as err:
        raise InputError(err.strerror or str(err), name) from None
    if not stat.S_ISDIR(st.st_mode):
        raise InputError(f"not a folder ({file_kind(st)})", name)


def _stat(name: str, what: str) -> os.stat_result:
    try:
        return os.stat(name)
    except FileNotFoundError:
        raise InputError(f"no such {what} file" if what else "No such file or directory",
                         name) from None
    except OSError as err:
        raise InputError(err.strerror or str(err), name) from None


def _bounded(size: int, name: str, what: str, limit: int | None) -> None:
    if limit is not None and size > limit:
        kind = f"a {what} file" if what else "an input file"
        raise InputError(f"{size} bytes is more than {kind} may have ({limit})", name)


# -- writing ------------------------------------------------------------------------------

def output_problem(path: FilePath) -> str | None:
    """Why ``path`` may not be written (None when it may): a special file or a folder, or
    permission bits that do not let this process write it or its folder."""
    name = os.fspath(path)
    if name == "-":  # standard input as an input: a file named "-" is not what was meant
        return ("not written: '-' is standard input or output, not a file (standard output "
                "is where an output left out goes; ./- names a file -)")
    try:
        st = os.stat(name)
    except FileNotFoundError:
        st = None
    except OSError as err:
        return f"cannot be written ({err.strerror or err})"
    if st is not None:
        if not stat.S_ISREG(st.st_mode):
            return f"not a regular file ({file_kind(st)}): not written over"
        if not _writable(st):
            return (f"read-only (mode {stat.S_IMODE(st.st_mode):04o}): not written over; "
                    "make it writable or give another output")
    folder = os.path.dirname(os.path.realpath(name)) or "."
    try:
        fst = os.stat(folder)
    except OSError as err:
        return f"its folder {folder} cannot be used ({err.strerror or err})"
    if not stat.S_ISDIR(fst.st_mode):
        return f"its folder {folder} is not a folder ({file_kind(fst)})"
    if not _writable(fst):
        return f"its folder {folder} is read-only (mode {stat.S_IMODE(fst.st_mode):04o})"
    return None


def check_output(path: FilePath) -> None:
    """InputError naming ``path`` when :func:`output_problem` finds one."""
    problem = output_problem(path)
    if problem:
        raise InputError(problem, os.fspath(path))


def prepare_outputs(outputs: Iterable[FilePath | None], inputs: Iterable[FilePath | None] = ()
                    ) -> None:
    """Before a run writes anything: refuse any of ``outputs`` (None: not given) that may
    not be written, that is one of ``inputs`` ("-" and None skipped) or that is the same
    file as another output; then remove the temporary files a killed earlier write of each
    left behind."""
    sources = [p for p in inputs if p is not None and os.fspath(p) != "-"]
    targets = [p for p in outputs if p is not None]
    seen: dict[object, str] = {}
    for path in targets:
        name = os.fspath(path)
        check_output(name)
        for key in _identities(name):
            if key in seen:
                raise InputError(f"another output of this run ({seen[key]}) is the same "
                                 "file: give each output its own file", name)
        seen.update(dict.fromkeys(_identities(name), name))
    for path in targets:
        prepare_output(path, sources)


def check_output_folder(path: FilePath, inputs: Iterable[FilePath] = ()) -> None:
    """InputError when ``path`` cannot be the output folder of a run reading ``inputs``
    (folders): it exists and is not a folder, its bits forbid writing, or it is an input."""
    name = os.fspath(path)
    try:
        st = os.stat(name)
    except FileNotFoundError:
        return  # made by the run, inside a folder whose own writes are checked file by file
    except OSError as err:
        raise InputError(f"cannot be used ({err.strerror or err})", name) from None
    if not stat.S_ISDIR(st.st_mode):
        raise InputError(f"not a folder ({file_kind(st)}): not written into", name)
    if not _writable(st):
        raise InputError(f"read-only folder (mode {stat.S_IMODE(st.st_mode):04o}): not "
                         "written into", name)
    for source in inputs:
        try:
            if os.path.samefile(name, source):
                raise InputError(f"the output folder is the input folder {os.fspath(source)}: "
                                 "give another output folder", name)
        except OSError:
            continue


@contextmanager
def open_write(path: FilePath, mode: str = "w", encoding: str | None = "utf-8",
               newline: str | None = None) -> Iterator[IO]:
    """Write ``path`` atomically (``mode`` "w" or "wb", as :func:`atomic.atomic_open`) once
    :func:`check_output` allows it; checked again just before the temporary file replaces
    it."""
    check_output(path)
    with atomic_open(path, mode, encoding, newline) as f:
        yield f
        target = os.path.realpath(path)
        try:
            st = os.stat(target)
        except FileNotFoundError:
            return
        if not stat.S_ISREG(st.st_mode):
            raise InputError(f"became {file_kind(st)} while it was written: not replaced",
                             os.fspath(path))


def write_text(path: FilePath, text: str, encoding: str = "utf-8") -> None:
    """Write ``text`` to ``path`` through :func:`open_write`, exactly as given."""
    with open_write(path, "w", encoding=encoding, newline="") as f:
        f.write(text)


def write_lines(path: FilePath | None, lines: Iterable[str]) -> None:
    """A command's output: ``lines`` to ``path`` through :func:`open_write`, or to standard
    output when no path is given; consumed as they come, so a stream is written while it is
    made."""
    if path is None:
        sys.stdout.writelines(lines)
        return
    with open_write(path, "w") as f:
        f.writelines(lines)


def write_bytes(path: FilePath, data: bytes) -> None:
    """Write ``data`` to ``path`` through :func:`open_write`."""
    with open_write(path, "wb") as f:
        f.write(data)


def append_text(path: FilePath, text: str) -> None:
    """Append ``text`` (UTF-8) to a regular file, made if absent: a journal that grows by
    records, where a killed run loses at most the record it was writing."""
    check_output(path)
    name = os.fspath(path)
    fd = os.open(name, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NONBLOCK", 0)
                 | getattr(os, "O_CLOEXEC", 0), 0o666)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise InputError("the file changed while it was opened: not appended to", name)
        os.write(fd, text.encode("utf-8"))
    finally:
        os.close(fd)


def _writable(st: os.stat_result) -> bool:
    """Whether the permission bits let this process write, judged as for an ordinary user:
    the owner's bit for its owner, the group's for its group, else the others' bit."""
    if not hasattr(os, "geteuid"):
        return bool(st.st_mode & stat.S_IWRITE)
    if st.st_uid == os.geteuid():
        return bool(st.st_mode & stat.S_IWUSR)
    if st.st_gid == os.getegid() or st.st_gid in os.getgroups():
        return bool(st.st_mode & stat.S_IWGRP)
    return bool(st.st_mode & stat.S_IWOTH)


def _identities(name: str) -> list[object]:
    """What makes two output names one file: the resolved path, and (device, inode)."""
    keys: list[object] = [os.path.realpath(name)]
    try:
        st = os.stat(name)
    except OSError:
        return keys
    return [*keys, (st.st_dev, st.st_ino)]

