"""Opening a project file safely: one writer per project, and never a crash or a freeze on
a file that is locked, damaged or hostile.

The writer holds an exclusive ``flock`` on ``PROJECT.lock`` (which names its process and
host) for as long as the project is open; the lock dies with its process, so a crashed
app leaves no stale lock behind. A second window or process opens the project read-only
and says who holds it. A file SQLite cannot read (random bytes, truncation, a corrupt
page) or whose schema the app did not make (:mod:`~pad_gui.controllers.project_schema`)
is renamed aside, never deleted, and a fresh project takes its place; a file another
program keeps locked is opened without saving. Either way the annotator is told, in one
sentence, what happened and where the old file went.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from pad_gui.controllers.project_schema import schema_problem
from pad_gui.store import ProjectStore

try:
    import fcntl
except ImportError:  # Windows: no advisory locks; one writer is then the annotator's care
    fcntl = None

@dataclass
class Opened:
    """A project store and what the annotator must be told about it ("" when nothing)."""

    store: ProjectStore
    notice: str = ""


class WriterLock:
    """The exclusive right to write one project, held until :meth:`release`."""

    def __init__(self, project: Path):
        self.path = project.with_name(project.name + ".lock")
        self.fd: int | None = None

    def acquire(self) -> str | None:
        """Take the lock; None when taken, else who holds it ("process N on HOST")."""
        if fcntl is None:
            return None
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.read(fd, 200).decode("utf-8", "replace").strip()
            os.close(fd)
            return holder or "another process"
        os.ftruncate(fd, 0)
        os.write(fd, f"process {os.getpid()} on {socket.gethostname()}".encode())
        self.fd = fd
        return None

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)  # closing drops the flock; the file stays (harmless)
            self.fd = None


def open_project(path: str | Path) -> Opened:
    """The project at ``path`` for writing, or read-only when another writer has it, or
    fresh when it was damaged (the damaged file renamed aside)."""
    path = Path(path)
    lock = WriterLock(path)
    try:
        holder = lock.acquire()
    except OSError as e:
        holder = None
        lock_problem = f" (its lock file cannot be used: {e})"
    else:
        lock_problem = ""
    if holder is not None:
        return _read_only(path, f"Project {path.name} is open in another window ({holder}): "
                                "opened read-only, your changes here are not saved")
    try:
        problem = damage(path) if path.exists() else None
        if problem is None:
            store = ProjectStore(path)
            store.release = lock.release
            return Opened(store, lock_problem.strip(" ()").capitalize() if lock_problem else "")
    except sqlite3.OperationalError as e:
        if _locked(e):
            lock.release()
            return _read_only(path, f"Project {path.name} is locked by another program "
                                    f"({e}): opened without saving")
        problem = str(e)
    except sqlite3.DatabaseError as e:
        problem = str(e)
    return _fresh(path, problem, lock.release)


def recover(opened: Opened, error: sqlite3.Error) -> Opened:
    """The project after reading its rows failed with ``error``: read-only without saving
    when another program locks it, else set aside and fresh (the writer's lock kept)."""
    store = opened.store
    path, release = store.path, store.release
    store.db.close()
    if isinstance(error, sqlite3.OperationalError) and _locked(error):
        release()
        return _read_only(path, f"Project {path.name} is locked by another program "
                                f"({error}): opened without saving")
    if store.read_only:
        return _read_only(path, f"Project {path.name} cannot be read ({error}) and is open "
                                "in another window: opened without saving")
    return _fresh(path, str(error), release)


def _fresh(path: Path, problem: str, release) -> Opened:
    aside = set_aside(path)
    store = ProjectStore(path)
    store.release = release
    return Opened(store, f"Project {path.name} was damaged ({problem}): it was kept as "
                         f"{aside} and a fresh project was started")


def damage(path: Path) -> str | None:
    """Why the file is not a usable project (None when it is); raises OperationalError
    when another program has it locked."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=0.5)
    try:
        check = db.execute("PRAGMA quick_check").fetchone()
        if check is None or check[0] != "ok":
            return f"damaged pages: {check[0] if check else 'no answer'}"
        return schema_problem(db)
    finally:
        db.close()


def set_aside(path: Path) -> Path:
    """Rename a damaged project (and SQLite's journal files beside it) to a free
    ``NAME.damaged-DATE`` name; never deletes anything."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    aside = path.with_name(f"{path.name}.damaged-{stamp}")
    n = 1
    while aside.exists():
        n += 1
        aside = path.with_name(f"{path.name}.damaged-{stamp}-{n}")
    os.replace(path, aside)
    for suffix in ("-journal", "-wal", "-shm"):
        extra = path.with_name(path.name + suffix)
        if extra.exists():
            os.replace(extra, aside.with_name(aside.name + suffix))
    return aside


def _read_only(path: Path, notice: str) -> Opened:
    """The project read-only when it can be read, else an empty one in memory."""
    try:
        store = ProjectStore(path, read_only=True)
        store.db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        return Opened(store, notice)
    except sqlite3.Error:
        empty = sqlite3.connect(":memory:", isolation_level=None)
        ProjectStore(path, db=empty)  # the schema, so that reads find empty tables
        store = ProjectStore(path, read_only=True, db=empty)
        return Opened(store, notice + " (it cannot be read either: nothing of it is shown)")


def _locked(error: sqlite3.OperationalError) -> bool:
    return "locked" in str(error) or "busy" in str(error)
