"""The annotation project: one SQLite file per treebank, written as the annotator works.

Every confirmed action (an edit, a pick, a status change) is committed at once, so killing
the app loses nothing that was confirmed. A row is keyed by the sentence's index in the
treebank and remembers the sentence's words, so a project never applies a correction to a
different sentence if the treebank file changed under it.
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
    seconds REAL NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS event (
    id INTEGER PRIMARY KEY,
    idx INTEGER NOT NULL,
    kind TEXT NOT NULL,
    at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS event_idx ON event (idx);
"""

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


class ProjectStore:
    """Reads and writes one project file."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.db = sqlite3.connect(str(self.path))
        self.db.executescript(SCHEMA)
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
            "SELECT idx, words, status, chosen, heads, tree, seconds FROM sentence")
        for idx, words, status, chosen, heads, tree, seconds in rows:
            if not 0 <= idx < len(words_of) or words_of[idx] != words:
                continue
            out[idx] = SavedSentence(
                status, chosen, json.loads(heads) if heads else None,
                tree_from_json(json.loads(tree)) if tree else None, seconds)
        return out

    def save(self, idx: int, words: str, saved: SavedSentence, penn: str | None) -> None:
        """Write one sentence's state and commit."""
        self.db.execute(
            "INSERT OR REPLACE INTO sentence VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (idx, words, saved.status, saved.chosen,
             json.dumps(saved.heads) if saved.heads is not None else None,
             json.dumps(tree_to_json(saved.tree)) if saved.tree is not None else None,
             penn, saved.seconds))
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

    def copy_to(self, path: str | Path) -> ProjectStore:
        """Copy the whole project to another file (Save Project As) and open the copy."""
        target = sqlite3.connect(str(path))
        with target:
            self.db.backup(target)
        target.close()
        return ProjectStore(path)
