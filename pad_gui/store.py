"""The annotation project: one SQLite file per treebank, written as the annotator works.

Every confirmed action (an edit, a pick, a status change) is committed at once, so killing
the app loses nothing that was confirmed. A row is keyed by the sentence's index in the
treebank and remembers the sentence's words, so a project never applies a correction to a
different sentence if the treebank file changed under it.

The project also keeps every model retrained on its corrected sentences (the model file's
bytes, how it was trained, its cross-validated F1), so the annotator can go back to an
earlier one; version 0 is the model the app started with and is not stored.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from pad_engine.lextree import LexNode

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sentence (
    idx INTEGER PRIMARY KEY,
    words TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'machine',
    chosen INTEGER NOT NULL DEFAULT 0,
    heads TEXT,
    tree TEXT,
    penn TEXT,
    seconds REAL NOT NULL DEFAULT 0,
    kept TEXT
);
CREATE TABLE IF NOT EXISTS event (
    id INTEGER PRIMARY KEY,
    idx INTEGER NOT NULL,
    kind TEXT NOT NULL,
    at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS event_idx ON event (idx);
CREATE TABLE IF NOT EXISTS model_version (
    id INTEGER PRIMARY KEY,
    created REAL NOT NULL,
    how TEXT NOT NULL,
    base INTEGER,
    sentences INTEGER NOT NULL,
    seconds REAL NOT NULL,
    cv_f1 REAL,
    cv_folds INTEGER,
    model BLOB NOT NULL
);
"""
SCRATCH = "scratch"
CONTINUED = "continued"
BUNDLED = 0  # the version id of the model the app started with

SCHEMA_VERSION = "1"


def tree_to_json(node: LexNode) -> object:
    """A compact JSON form: a word index for a preterminal's word, else [label, head, kids]."""
    if node.word >= 0:
        return [node.label, node.word]
    return [node.label, node.head, [tree_to_json(c) for c in node.children]]


def tree_from_json(data: object) -> LexNode:
    """Inverse of :func:`tree_to_json`."""
    if not isinstance(data, list) or len(data) not in (2, 3):
        raise ValueError(f"not a stored tree node: {data!r}")
    if len(data) == 2:
        return LexNode(str(data[0]), [], 0, int(data[1]))
    return LexNode(str(data[0]), [tree_from_json(c) for c in data[2]], int(data[1]), -1)


@dataclass
class SavedSentence:
    """What the project remembers about one sentence."""

    status: str
    chosen: int
    heads: list[int] | None
    tree: LexNode | None
    seconds: float
    kept: LexNode | None = None  # the picked candidate a corrected sentence was accepted with


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


class ProjectStore:
    """Reads and writes one project file."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.db = sqlite3.connect(str(self.path))
        self.db.executescript(SCHEMA)
        columns = {row[1] for row in self.db.execute("PRAGMA table_info(sentence)")}
        if "kept" not in columns:  # a project written before corrected trees were kept
            self.db.execute("ALTER TABLE sentence ADD COLUMN kept TEXT")
        self.db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
        self.db.commit()

    def close(self) -> None:
        self.db.close()

    def set_meta(self, key: str, value: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))
        self.db.commit()

    def load(self, words_of: list[str]) -> dict[int, SavedSentence]:
        """Saved sentences whose words still match ``words_of[idx]`` (the joined forms)."""
        out: dict[int, SavedSentence] = {}
        rows = self.db.execute(
            "SELECT idx, words, status, chosen, heads, tree, seconds, kept FROM sentence")
        for idx, words, status, chosen, heads, tree, seconds, kept in rows:
            if not 0 <= idx < len(words_of) or words_of[idx] != words:
                continue
            out[idx] = SavedSentence(
                status, chosen, json.loads(heads) if heads else None,
                tree_from_json(json.loads(tree)) if tree else None, seconds,
                tree_from_json(json.loads(kept)) if kept else None)
        return out

    def save(self, idx: int, words: str, saved: SavedSentence, penn: str | None) -> None:
        """Write one sentence's state and commit."""
        self.db.execute(
            "INSERT OR REPLACE INTO sentence (idx, words, status, chosen, heads, tree, penn, "
            "seconds, kept) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (idx, words, saved.status, saved.chosen,
             json.dumps(saved.heads) if saved.heads is not None else None,
             _tree_text(saved.tree), penn, saved.seconds, _tree_text(saved.kept)))
        self.db.commit()

    def log(self, idx: int, kind: str) -> None:
        """Record one annotator action in the effort log and commit."""
        self.db.execute("INSERT INTO event (idx, kind, at) VALUES (?, ?, ?)",
                        (idx, kind, time.time()))
        self.db.commit()

    def action_counts(self) -> dict[int, dict[str, int]]:
        """Per sentence, how many actions of each kind were logged."""
        out: dict[int, dict[str, int]] = {}
        for idx, kind, count in self.db.execute(
                "SELECT idx, kind, COUNT(*) FROM event GROUP BY idx, kind"):
            out.setdefault(idx, {})[kind] = count
        return out

    # -- model versions -------------------------------------------------------------------
    def add_version(self, how: str, base: int | None, sentences: int, seconds: float,
                    model: bytes) -> int:
        """Keep a retrained model (its ``.padmodel`` bytes); returns its version id."""
        cur = self.db.execute(
            "INSERT INTO model_version (created, how, base, sentences, seconds, model) "
            "VALUES (?, ?, ?, ?, ?, ?)", (time.time(), how, base, sentences, seconds, model))
        self.db.commit()
        return int(cur.lastrowid)

    def set_cv(self, version: int, f1: float, folds: int) -> None:
        """Record a version's cross-validated F1."""
        self.db.execute("UPDATE model_version SET cv_f1 = ?, cv_folds = ? WHERE id = ?",
                        (f1, folds, version))
        self.db.commit()

    def versions(self) -> list[ModelVersion]:
        """Every stored version, oldest first."""
        rows = self.db.execute("SELECT id, created, how, base, sentences, seconds, cv_f1, "
                               "cv_folds FROM model_version ORDER BY id")
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
        row = self.db.execute("SELECT value FROM meta WHERE key = 'model_version'").fetchone()
        if row is None or not row[0].isdigit():
            return BUNDLED
        version = int(row[0])
        known = self.db.execute("SELECT 1 FROM model_version WHERE id = ?",
                                (version,)).fetchone()
        return version if known else BUNDLED

    def choose_version(self, version: int) -> None:
        self.set_meta("model_version", str(version))

    def copy_to(self, path: str | Path) -> ProjectStore:
        """Copy the whole project to another file (Save Project As) and open the copy."""
        target = sqlite3.connect(str(path))
        with target:
            self.db.backup(target)
        target.close()
        return ProjectStore(path)


def _tree_text(tree: LexNode | None) -> str | None:
    return json.dumps(tree_to_json(tree)) if tree is not None else None
