"""Whether a project file's schema is one PAD Studio made, before anything is written to it.

A file with the right tables can still lose the annotator's work: a trigger that deletes
rows on update, a ``RAISE(ABORT)`` trigger or a CHECK constraint that refuses an edit, a
VIEW in place of a table or a key without PRIMARY KEY that no write can ever reach, a
schema number from a later version. So every object in the file must be one the app makes
(its tables, the index of version 1), every table's columns exactly those of a version
the app wrote (type, NOT NULL, default, key; a column later versions added may be
missing: the store adds it), its definition only the words the app's own definitions use,
and the schema number one this app knows. :func:`schema_problem` names the first thing
that is not, and the project is then set aside as a damaged one is.
"""

from __future__ import annotations

import re
import sqlite3

from pad_gui.store import SCHEMA, SCHEMA_VERSION

# version 1's tables, with the columns later versions add to them (ALTER TABLE ... ADD)
VERSION_1 = """
CREATE TABLE sentence (idx INTEGER PRIMARY KEY, words TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'machine', chosen INTEGER NOT NULL DEFAULT 0, heads TEXT,
    tree TEXT, penn TEXT, seconds REAL NOT NULL DEFAULT 0, kept TEXT);
CREATE TABLE event (id INTEGER PRIMARY KEY, idx INTEGER NOT NULL, kind TEXT NOT NULL,
    at REAL NOT NULL, key TEXT);
CREATE INDEX event_idx ON event (idx);
"""
ADDED_LATER = {"sentence": {"kept", "tags", "rels"}, "detached": {"tags", "rels"},
               "event": {"key"}, "model_version": {"against", "against_f1"}}
KEPT_ASIDE = "sentence_v1"  # version 1's rows after migration: kept, never written
KNOWN_SCHEMAS = ("1", SCHEMA_VERSION)
_WORDS = {"CREATE", "TABLE", "INDEX", "IF", "NOT", "EXISTS", "ON", "PRIMARY", "KEY", "NULL",
          "DEFAULT", "TEXT", "INTEGER", "REAL", "BLOB"}
_TOKEN = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|`[^`]*`|\[[^\]]*\]|-?\d+|\w+|\S")


def schema_problem(db: sqlite3.Connection) -> str | None:
    """What in the project's schema PAD Studio did not make (None when nothing)."""
    shapes = _shapes()
    names = set(shapes) | {KEPT_ASIDE}
    columns = {c for shape in shapes.values() for variant in shape for c in variant}
    for kind, name, table, sql in db.execute(
            "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY rowid"):
        index = kind == "index" and table in names and (
            (name, table) == ("event_idx", "event")  # version 1's
            or (sql is None and str(name).startswith("sqlite_autoindex_")))  # of a key
        if not index and not (kind == "table" and name in names):
            return f"it holds a {kind} {str(name)[:40]!r} PAD Studio did not make"
        word = _foreign_word(sql or "", names | columns | {"event_idx"})
        if word:
            return f"its {kind} {name} is defined with {word[:40]!r}, which PAD Studio does not use"
    for table, variants in shapes.items():
        have = _columns(db, table)
        if have and not any(_fits(have, v, ADDED_LATER.get(table, set())) for v in variants):
            return f"its table {table} has columns or keys PAD Studio did not make"
    if _columns(db, "meta"):
        row = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        if row is not None and row[0] not in KNOWN_SCHEMAS:
            return (f"its schema {str(row[0])[:20]!r} is not one this PAD Studio knows "
                    f"({', '.join(KNOWN_SCHEMAS)})")
    return None


def _shapes() -> dict[str, list[dict[str, tuple]]]:
    """Each table's columns as each version of the app makes them."""
    out: dict[str, list[dict[str, tuple]]] = {}
    for script in (SCHEMA, VERSION_1):
        db = sqlite3.connect(":memory:")
        db.executescript(script)
        for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'"):
            out.setdefault(table, []).append(_columns(db, table))
        db.close()
    return out


def _columns(db: sqlite3.Connection, table: str) -> dict[str, tuple]:
    """name: (type, not null, default, key position, hidden) of each column."""
    return {row[1]: (str(row[2]).upper(), *row[3:]) for row in
            db.execute(f"PRAGMA table_xinfo({table})")}


def _fits(have: dict[str, tuple], made: dict[str, tuple], optional: set[str]) -> bool:
    return set(have) <= set(made) and set(made) - set(have) <= optional and all(
        have[c] == made[c] for c in have)


def _foreign_word(sql: str, names: set[str]) -> str | None:
    """The first token of a definition that the app's own definitions never use (a CHECK,
    UNIQUE, COLLATE, REFERENCES, GENERATED, STRICT, a comment…)."""
    for token in _TOKEN.findall(sql):
        bare = token.strip('"`[]') if token[0] in '"`[' else token
        if bare.upper() in _WORDS or bare in names or token in "(),;" or token in (
                "'machine'", "0", "-1") or (token[0] in '"`[' and bare in names):
            continue
        return token
    return None
