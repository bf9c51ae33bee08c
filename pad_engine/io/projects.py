"""The annotators' trees in a PAD Studio project (``.padproject``), read-only, for the
commands that compare or search annotations (``pad agree``).

The app owns the project file (``pad_gui/store.py`` writes it, and checks its schema when it
opens one); a command only needs the Penn line the annotator's view of each sentence was
saved with. It reads that one table through a read-only connection, so a hostile file can
change nothing, and a file that is not a project, or lacks those columns, is one message.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from pad_engine.errors import InputError
from pad_engine.io.gate import TEXT_BYTES, check_inputs
from pad_engine.io.limits import MAX_CHARS

SUFFIX = ".padproject"
_COLUMNS = ("key", "idx", "words", "status", "penn")


@dataclass(frozen=True)
class ProjectTree:
    """A sentence the annotator made a tree of: its key (the app pairs sentences by it), its
    place in the file, its words, its status ("machine" or "corrected") and the tree."""

    key: str
    index: int
    words: str
    status: str
    penn: str


def is_project(path: str) -> bool:
    return Path(path).suffix.lower() == SUFFIX


def read_project_trees(path: str) -> list[ProjectTree]:
    """The sentences of project ``path`` that hold an annotator's tree, in file order."""
    check_inputs([path])
    try:
        size = Path(path).stat().st_size
    except OSError as err:
        raise InputError(err.strerror or str(err), path) from None
    if size > TEXT_BYTES:
        raise InputError(f"{size} bytes is more than a project may have", path)
    uri = Path(path).resolve().as_uri() + "?mode=ro"
    try:
        db = sqlite3.connect(uri, uri=True)
    except sqlite3.Error as err:
        raise InputError(f"not a PAD Studio project ({err})", path) from None
    try:
        found = {row[1] for row in db.execute("PRAGMA table_info(sentence)")}
        if not set(_COLUMNS) <= found:
            raise InputError("not a PAD Studio project (no sentence table with "
                             f"{', '.join(_COLUMNS)})", path)
        rows = db.execute("SELECT key, idx, words, status, penn FROM sentence "
                          "WHERE penn IS NOT NULL ORDER BY idx").fetchall()
    except sqlite3.Error as err:
        raise InputError(f"not a PAD Studio project ({err})", path) from None
    finally:
        db.close()
    out = []
    for key, idx, words, status, penn in rows:
        if not all(isinstance(v, str) for v in (key, words, status, penn)) \
                or not isinstance(idx, int) or not penn.strip():
            continue  # a row the app would not read either: nothing of the annotator's
        if len(penn) > 64 * MAX_CHARS or "\n" in penn.strip():
            raise InputError(f"sentence {idx + 1}: its tree is not one Penn line", path)
        out.append(ProjectTree(key, idx, words, status, penn.strip()))
    return out
