"""The annotation project: one SQLite file per treebank, written as the annotator works.

Every confirmed action (an edit, a pick, a status change) is committed at once, so killing
the app loses nothing that was confirmed. A row belongs to a sentence by what the sentence
is, not where it is: its ``sent_id`` where the file has one, else its words, with the
position only telling equal texts apart (:func:`sentence_keys`). A row whose sentence is no
longer in the file, or whose words changed, is moved to the ``detached`` table: kept,
listed for the annotator, never overwritten. A row that cannot be read (wrong types,
impossible trees) is moved there too, so that it is never half-overwritten.

Every write touches only its own columns (time booked adds to ``seconds``, a status change
writes the status): a write never carries stale state of another column back. A write the
database refuses (locked by another program, a read-only file, a constraint) is kept in
memory, reported at once as an error, and retried before the next one and on closing; one
still refused then is saved in a copy of the project beside it, never dropped.

The project also keeps every model retrained on its corrected sentences (the model file's
bytes, how it was trained, its cross-validated F1 beside the F1 of the model it was
compared with on the same folds), so the annotator can go back to an earlier one; version 0
is the model the app started with and is not stored.
"""

from __future__ import annotations

import json
import sqlite3
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pad_engine.api import LexNode
from pad_gui.controllers.project_rows import (
    CORRECTED,
    SavedSentence,
    is_int,
    saved_sentence,
    tree_text,
)

SENTENCE_TABLE = """
CREATE TABLE IF NOT EXISTS sentence (
    key TEXT PRIMARY KEY,
    idx INTEGER,
    words TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'machine',
    chosen INTEGER NOT NULL DEFAULT 0,
    heads TEXT,
    tree TEXT,
    penn TEXT,
    seconds REAL NOT NULL DEFAULT 0,
    kept TEXT
);
"""
SCHEMA = SENTENCE_TABLE + """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS detached (
    id INTEGER PRIMARY KEY,
    key, idx, words, status, chosen, heads, tree, penn, seconds, kept,
    why TEXT NOT NULL,
    at REAL NOT NULL,
    applied TEXT
);
CREATE TABLE IF NOT EXISTS event (
    id INTEGER PRIMARY KEY,
    idx INTEGER NOT NULL DEFAULT -1,
    kind TEXT NOT NULL,
    at REAL NOT NULL,
    key TEXT
);
CREATE TABLE IF NOT EXISTS model_version (
    id INTEGER PRIMARY KEY,
    created REAL NOT NULL,
    how TEXT NOT NULL,
    base INTEGER,
    sentences INTEGER NOT NULL,
    seconds REAL NOT NULL,
    cv_f1 REAL,
    cv_folds INTEGER,
    model BLOB NOT NULL,
    against INTEGER,
    against_f1 REAL
);
"""
SCRATCH = "scratch"
CONTINUED = "continued"
BUNDLED = 0  # the version id of the model the app started with

SCHEMA_VERSION = "2"  # 1: rows keyed by position; 2: by sentence identity, flat trees
ROW_COLUMNS = "key, idx, words, status, chosen, heads, tree, penn, seconds, kept"


def sentence_keys(sent_ids: Sequence[str | None], words: Sequence[str]) -> list[str]:
    """What identifies each sentence: ``id:SENT_ID`` where it has one, else ``w:WORDS``;
    the second and later sentences with the same identity get ``#2``, ``#3``…"""
    seen: dict[str, int] = {}
    out = []
    for sid, text in zip(sent_ids, words):
        base = f"id:{sid}" if sid else f"w:{text}"
        seen[base] = seen.get(base, 0) + 1
        out.append(base if seen[base] == 1 else f"{base}#{seen[base]}")
    return out


@dataclass(frozen=True)
class Detached:
    """A row kept aside: its sentence changed or left the file, or it could not be read."""

    id: int
    words: str
    status: str
    penn: str | None
    why: str
    applied: str | None  # the sentence it was applied to, if any
    saved: SavedSentence | None  # None when unreadable

    @property
    def has_work(self) -> bool:
        """Whether it holds a correction (not merely time spent looking)."""
        s = self.saved
        return s is None or s.status == CORRECTED or s.tree is not None or s.chosen != 0 \
            or s.heads is not None


@dataclass(frozen=True)
class ModelVersion:
    """A model retrained in this project (its bytes are read separately, when needed)."""

    id: int
    created: float  # time.time()
    how: str  # SCRATCH or CONTINUED
    base: int | None  # the version continued from (BUNDLED = the start-up model)
    sentences: int  # corrected sentences trained on
    seconds: float  # training time
    cv_f1: float | None  # cross-validated F1 on those sentences, None until measured
    cv_folds: int | None
    against: int | None = None  # the version in use it was compared with
    against_f1: float | None = None  # that version's F1 on the same held-out folds


class ProjectStore:
    """Reads and writes one project file (see :mod:`pad_gui.controllers.project_file` to open one
    safely). A read-only store keeps its changes to itself."""

    def __init__(self, path: str | Path, *, read_only: bool = False, timeout: float = 0.5,
                 db: sqlite3.Connection | None = None):
        self.path = Path(path)
        self.read_only = read_only
        self.on_problem: Callable[[str], None] = lambda message: None
        self.unsaved: list[tuple[str, tuple]] = []  # writes refused, retried before the next
        self.failing = False  # the last write was refused (reported once per spell)
        self.release: Callable[[], None] = lambda: None  # lets go of the writer's lock
        if db is None:
            uri = f"file:{self.path}?mode=ro" if read_only else f"file:{self.path}"
            db = sqlite3.connect(uri, uri=True, timeout=timeout, isolation_level=None)
        self.db = db
        if not read_only:
            self.db.executescript(SCHEMA)
            if self._legacy() and "kept" not in self._columns("sentence"):
                self.db.execute("ALTER TABLE sentence ADD COLUMN kept TEXT")  # older still
            if self._columns("event") and "key" not in self._columns("event"):
                self.db.execute("ALTER TABLE event ADD COLUMN key TEXT")
            for column in ("against INTEGER", "against_f1 REAL"):
                if column.split()[0] not in self._columns("model_version"):
                    self.db.execute(f"ALTER TABLE model_version ADD COLUMN {column}")
            self.db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)",
                            (SCHEMA_VERSION if not self._legacy() else "1",))

    def _columns(self, table: str) -> set[str]:
        return {row[1] for row in self.db.execute(f"PRAGMA table_info({table})")}

    def _legacy(self) -> bool:
        """A version 1 project: rows keyed by position (migrated by :meth:`load`)."""
        return "key" not in self._columns("sentence")

    def close(self) -> None:
        """Close the project; writes it still refuses are saved in a copy beside it."""
        self.flush()
        if self.unsaved and not self.read_only:
            self._rescue()
        self.db.close()
        self.release()

    def _rescue(self) -> None:
        """Save the project with the writes it refused as ``NAME.unsaved-DATE`` beside it
        (in the temporary folder when its own cannot be written), and say where."""
        copy = sqlite3.connect(":memory:", isolation_level=None)
        try:
            self.db.backup(copy)
            for (trigger,) in copy.execute("SELECT name FROM sqlite_master WHERE type = "
                                           "'trigger'").fetchall():  # none is the app's
                copy.execute(f'DROP TRIGGER "{trigger}"')
            for sql, params in self.unsaved:
                copy.execute(sql, params)
            stamp = time.strftime("%Y%m%d-%H%M%S")
            for folder in (self.path.parent, Path(tempfile.gettempdir())):
                target = folder / f"{self.path.name}.unsaved-{stamp}"
                try:
                    out = sqlite3.connect(target)
                    with out:
                        copy.backup(out)
                    out.close()
                    break
                except sqlite3.Error:
                    continue
            else:
                raise sqlite3.OperationalError("no folder to write a copy in")
        except sqlite3.Error as e:
            self.on_problem(f"Project {self.path.name}: {len(self.unsaved)} changes could "
                            f"not be written, nor saved in a copy ({e})")
            return
        finally:
            copy.close()
        self.on_problem(f"Project {self.path.name} could not be written: it was closed with "
                        f"its {len(self.unsaved)} latest changes saved in a copy, {target}; "
                        "open your file with that project (pad-studio FILE --project COPY)")
        self.unsaved = []

    # -- writing --------------------------------------------------------------------------
    def _write(self, sql: str, params: tuple = ()) -> sqlite3.Cursor | None:
        """Run one write (each statement commits by itself); a refused one waits in
        ``unsaved`` and is retried first next time."""
        if self.read_only:
            return None
        self.unsaved.append((sql, params))
        return self.flush()

    def flush(self) -> sqlite3.Cursor | None:
        """Retry the writes the database refused; the cursor of the last one that ran. The
        first refusal of a spell is reported (the app shows it at once, as an error): any
        refusal, a lock, a read-only file or a constraint, since each leaves work unsaved."""
        cursor = None
        while self.unsaved and not self.read_only:
            sql, params = self.unsaved[0]
            try:
                cursor = self.db.execute(sql, params)
            except sqlite3.Error as e:
                if not self.failing:
                    self.failing = True
                    self.on_problem(f"Project {self.path.name} cannot be written ({e}). Your "
                                    f"{len(self.unsaved)} latest changes are kept in memory "
                                    "and written again with each change and on closing; to "
                                    "keep them in another file, use File > Save Project As")
                return None
            self.unsaved.pop(0)
        self.failing = False
        return cursor

    def set_meta(self, key: str, value: str) -> None:
        self._write("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row is not None and isinstance(row[0], str) else None

    def _upsert(self, key: str, idx: int, words: str, columns: dict[str, object],
                add: bool = False) -> None:
        names = ", ".join(columns)
        marks = ", ".join("?" for _ in columns)
        sets = ", ".join(f"{c} = {c} + excluded.{c}" if add else f"{c} = excluded.{c}"
                         for c in columns)
        self._write(f"INSERT INTO sentence (key, idx, words, {names}) VALUES (?, ?, ?, {marks}) "
                    f"ON CONFLICT(key) DO UPDATE SET idx = excluded.idx, {sets}",
                    (key, idx, words, *columns.values()))

    def save_view(self, key: str, idx: int, words: str, chosen: int, heads: list[int],
                  tree: LexNode | None, kept: LexNode | None, penn: str | None) -> None:
        """Write what the annotator made of a sentence (not its status or time)."""
        self._upsert(key, idx, words, {"chosen": chosen, "heads": json.dumps(heads),
                                       "tree": tree_text(tree), "kept": tree_text(kept),
                                       "penn": penn})

    def save_heads(self, key: str, idx: int, words: str, heads: list[int]) -> None:
        """Write a sentence's arcs only (they stay when a new parser predicts the file)."""
        self._upsert(key, idx, words, {"heads": json.dumps(heads)})

    def save_status(self, key: str, idx: int, words: str, status: str, kept: LexNode | None,
                    penn: str | None) -> None:
        """Write a sentence's status (and the tree a corrected one was accepted with)."""
        self._upsert(key, idx, words, {"status": status, "kept": tree_text(kept),
                                       "penn": penn})

    def add_seconds(self, key: str, idx: int, words: str, seconds: float) -> None:
        """Add time spent on a sentence (nothing else of its row changes)."""
        self._upsert(key, idx, words, {"seconds": seconds}, add=True)

    def log(self, key: str, idx: int, kind: str) -> None:
        """Record one annotator action in the effort log."""
        self._write("INSERT INTO event (idx, key, kind, at) VALUES (?, ?, ?, ?)",
                    (idx, key, kind, time.time()))

    def action_counts(self) -> dict[str, dict[str, int]]:
        """Per sentence key, how many actions of each kind were logged."""
        out: dict[str, dict[str, int]] = {}
        if "key" not in self._columns("event"):
            return out  # a version 1 project opened read-only: its log is not keyed yet
        for key, kind, count in self.db.execute(
                "SELECT key, kind, COUNT(*) FROM event GROUP BY key, kind"):
            if isinstance(key, str) and isinstance(kind, str):
                out.setdefault(key, {})[kind] = count
        return out

    # -- reading: rows to their sentences ---------------------------------------------------
    def load(self, keys: list[str], words: list[str], lengths: list[int]
             ) -> dict[int, SavedSentence]:
        """The saved state of each sentence (by index) whose row is found by its key and
        still has its words; the other rows are moved to ``detached`` (a read-only store
        only leaves them out). A version 1 project is migrated first (by its writer; a
        reader maps its rows the same way in memory)."""
        if self._legacy() and not self.read_only:
            self._migrate(keys, words)
        if self._legacy():
            rows = [(keys[i], i, *row[1:]) for i, row in self._legacy_rows(words) if i is not None]
        else:
            rows = self.db.execute(f"SELECT {ROW_COLUMNS} FROM sentence").fetchall()
        where = {k: i for i, k in enumerate(keys)}
        out: dict[int, SavedSentence] = {}
        aside: list[tuple[object, str]] = []
        for row in rows:
            key, _, text = row[:3]
            i = where.get(key) if isinstance(key, str) else None
            if i is None:
                aside.append((key, "its sentence is no longer in the file"))
            elif text != words[i]:
                aside.append((key, "its sentence changed in the file"))
            else:
                try:
                    out[i] = saved_sentence(row[3:], lengths[i])
                except (ValueError, TypeError, RecursionError) as e:
                    aside.append((key, f"unreadable: {e}"))
        if aside and not self.read_only:
            self._detach(aside)
        return out

    def _detach(self, rows: list[tuple[object, str]]) -> None:
        """Move rows to ``detached`` as they are, in one transaction."""
        try:
            self.db.execute("BEGIN IMMEDIATE")
            for key, why in rows:
                self.db.execute(f"INSERT INTO detached ({ROW_COLUMNS}, why, at) SELECT "
                                f"{ROW_COLUMNS}, ?, ? FROM sentence WHERE key IS ?",
                                (why, time.time(), key))
                self.db.execute("DELETE FROM sentence WHERE key IS ?", (key,))
            self.db.execute("COMMIT")
        except sqlite3.OperationalError as e:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            self.on_problem(f"Project {self.path.name}: rows that no longer fit their "
                            f"sentences could not be set aside ({e})")

    def _legacy_rows(self, words: list[str]) -> list[tuple[int | None, tuple]]:
        """Version 1 rows (idx, words, status, chosen, heads, tree, penn, seconds, kept)
        with the sentence each belongs to: the one at its position if that still has its
        words, else the first other sentence with them, else None."""
        taken: set[int] = set()
        by_words: dict[str, list[int]] = {}
        for i, w in enumerate(words):
            by_words.setdefault(w, []).append(i)
        out = []
        kept = "kept" if "kept" in self._columns("sentence") else "NULL"
        for row in self.db.execute("SELECT idx, words, status, chosen, heads, tree, penn, "
                                   f"seconds, {kept} FROM sentence ORDER BY idx").fetchall():
            idx, text = row[:2]
            if is_int(idx) and 0 <= idx < len(words) and words[idx] == text \
                    and idx not in taken:
                target = idx
            else:
                target = next((i for i in by_words.get(text, []) if i not in taken), None) \
                    if isinstance(text, str) else None
            if target is not None:
                taken.add(target)
            out.append((target, row))
        return out

    def _migrate(self, keys: list[str], words: list[str]) -> None:
        """Rewrite a version 1 project by sentence identity, in one transaction; rows whose
        sentence is gone are detached. The old table stays, renamed ``sentence_v1``."""
        mapped = self._legacy_rows(words)
        self.db.execute("BEGIN IMMEDIATE")
        try:
            self.db.execute("ALTER TABLE sentence RENAME TO sentence_v1")
            self.db.execute(SENTENCE_TABLE)
            for target, (idx, text, *rest) in mapped:
                if target is None:
                    self.db.execute(f"INSERT INTO detached ({ROW_COLUMNS}, why, at) VALUES "
                                    "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                                    (f"v1:{idx}", idx, text, *rest,
                                     "its sentence is no longer in the file", time.time()))
                    continue
                self.db.execute(f"INSERT INTO sentence ({ROW_COLUMNS}) VALUES "
                                "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                                (keys[target], target, text, *rest))
                self.db.execute("UPDATE event SET key = ? WHERE idx = ? AND key IS NULL",
                                (keys[target], idx))
            self.db.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)",
                            (SCHEMA_VERSION,))
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    def detached(self) -> list[Detached]:
        """Every row kept aside, oldest first."""
        out = []
        for row in self.db.execute(f"SELECT id, {ROW_COLUMNS}, why, applied FROM detached "
                                   "ORDER BY id").fetchall():
            rid, _, _, words, status, *rest = row[:11]
            penn, why, applied = row[8], row[11], row[12]
            try:
                n = len(str(words).split())
                saved = saved_sentence((status, *rest), n)
            except (ValueError, TypeError, RecursionError):
                saved = None
            out.append(Detached(rid, str(words), str(status), penn if isinstance(penn, str)
                                else None, str(why), applied if isinstance(applied, str)
                                else None, saved))
        return out

    def mark_applied(self, detached_id: int, key: str) -> None:
        """Remember that a detached row was applied to the sentence ``key`` (it stays)."""
        self._write("UPDATE detached SET applied = ? WHERE id = ?", (key, detached_id))

    # -- model versions -------------------------------------------------------------------
    def add_version(self, how: str, base: int | None, sentences: int, seconds: float,
                    model: bytes) -> int:
        """Keep a retrained model (its ``.padmodel`` bytes); returns its version id."""
        cur = self._write(
            "INSERT INTO model_version (created, how, base, sentences, seconds, model) "
            "VALUES (?, ?, ?, ?, ?, ?)", (time.time(), how, base, sentences, seconds, model))
        if cur is None:
            raise sqlite3.OperationalError(f"project {self.path.name} cannot be written")
        return int(cur.lastrowid)

    def set_cv(self, version: int, f1: float, folds: int, against: int | None = None,
               against_f1: float | None = None) -> None:
        """Record a version's cross-validated F1, and the F1 of the version it was
        compared with on the same folds."""
        self._write("UPDATE model_version SET cv_f1 = ?, cv_folds = ?, against = ?, "
                    "against_f1 = ? WHERE id = ?", (f1, folds, against, against_f1, version))

    def versions(self) -> list[ModelVersion]:
        """Every stored version, oldest first."""
        rows = self.db.execute("SELECT id, created, how, base, sentences, seconds, cv_f1, "
                               "cv_folds, against, against_f1 FROM model_version ORDER BY id")
        return [ModelVersion(*row) for row in rows]

    def version_bytes(self, version: int) -> bytes:
        """The model file of a stored version (KeyError if there is none)."""
        row = self.db.execute("SELECT model FROM model_version WHERE id = ?",
                              (version,)).fetchone()
        if row is None:
            raise KeyError(f"no model version {version} in {self.path}")
        return bytes(row[0])

    def learning_curve(self) -> list[tuple[int, float]]:
        """(corrected sentences, CV F1) of every version measured, in training order."""
        return [(v.sentences, v.cv_f1) for v in self.versions() if v.cv_f1 is not None]

    def chosen_version(self) -> int:
        """The version the annotator last chose (BUNDLED when none, or when it is gone)."""
        value = self.meta("model_version")
        if value is None or not (value.isdigit() and value.isascii()) or len(value) > 18:
            return BUNDLED  # a number SQLite's integers hold (int() of 40 million digits
            # raises, of 20 overflows the query): anything else is no version of this project
        version = int(value)
        known = self.db.execute("SELECT 1 FROM model_version WHERE id = ?",
                                (version,)).fetchone()
        return version if known else BUNDLED

    def choose_version(self, version: int) -> None:
        self.set_meta("model_version", str(version))

    def copy_to(self, path: str | Path) -> None:
        """Copy the whole project to another file (Save Project As)."""
        self.flush()
        target = sqlite3.connect(str(path))
        with target:
            self.db.backup(target)
        target.close()
