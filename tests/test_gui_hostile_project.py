"""Hostile files and refused writes, in the app (offscreen): a hostile project file is set
aside with a message and a fresh project keeps the corrections made then; a write the
project refuses is an error dialog at once, and the correction stays (in memory, written
with the next change); a crafted text model beside the project costs a message, not the
start-up."""

from __future__ import annotations

import json
import sqlite3

import numpy as np
import pytest
from PySide6.QtCore import Qt
from test_gui_app import new_window

from pad_engine.io.conll import read_conll
from pad_engine.parsing.model import TextModel
from pad_gui import app as app_module
from pad_gui.controllers.project_schema import schema_problem
from pad_gui.session import CORRECTED, Session
from pad_gui.store import ProjectStore

pytestmark = pytest.mark.usefixtures("isolated_settings")


def row(project, key: str) -> tuple | None:
    db = sqlite3.connect(project)
    try:
        return db.execute("SELECT status FROM sentence WHERE key = ?", (key,)).fetchone()
    finally:
        db.close()


SENTENCE = ("key TEXT{key}, idx INTEGER, words TEXT NOT NULL, status TEXT NOT NULL DEFAULT "
            "'machine', chosen INTEGER NOT NULL DEFAULT 0, heads TEXT, tree TEXT, penn TEXT, "
            "seconds REAL NOT NULL DEFAULT 0, kept TEXT{check}")


def rebuilt(key: str = " PRIMARY KEY", check: str = "") -> str:
    """The sentence table made again with another key or an extra constraint, rows kept."""
    return ("ALTER TABLE sentence RENAME TO old; CREATE TABLE sentence ("
            + SENTENCE.format(key=key, check=check) + "); INSERT INTO sentence SELECT * FROM "
            "old; DROP TABLE old;")


HOSTILE = {
    "a trigger deleting every row on update":
        "CREATE TRIGGER wipe AFTER UPDATE ON sentence BEGIN DELETE FROM sentence; END;",
    "a RAISE(ABORT) trigger":
        "CREATE TRIGGER stop BEFORE UPDATE ON sentence BEGIN SELECT RAISE(ABORT, 'no'); END;",
    "a CHECK constraint": rebuilt(check=", CHECK (status = 'machine' OR key = 'id:sample-01')"),
    "sentence as a VIEW": "ALTER TABLE sentence RENAME TO rows; "
                          "CREATE VIEW sentence AS SELECT * FROM rows;",
    "a key without PRIMARY KEY": rebuilt(key=""),
    "schema 99": "UPDATE meta SET value = '99' WHERE key = 'schema';",
}


@pytest.mark.parametrize("case", list(HOSTILE))
def test_a_hostile_project_is_set_aside_and_a_fresh_one_keeps_corrections(
        qtbot, tiny_model, sample, case):
    project = sample.with_name("sample.conllu.padproject")
    store = ProjectStore(project)
    Session(sample, read_conll(sample), store).set_status(0, CORRECTED)
    store.close()
    db = sqlite3.connect(project)
    db.executescript(HOSTILE[case])
    db.close()
    data = project.read_bytes()
    window = new_window(qtbot, tiny_model)
    window.open_path(sample)
    qtbot.waitUntil(window.decoded_current, timeout=30000)
    [aside] = sample.parent.glob("sample.conllu.padproject.damaged-*")
    assert aside.read_bytes() == data  # kept as it was
    assert f"kept as {aside}" in window.statusBar().currentMessage()
    assert not window.session.read_only
    assert not window.session.is_corrected(0)
    window.go_to(1)
    qtbot.mouseClick(window.candidates.mark_button, Qt.LeftButton)
    assert row(project, "id:sample-02") == (CORRECTED,)  # saved in the fresh project
    window.close()
    assert row(project, "id:sample-02") == (CORRECTED,)
    db = sqlite3.connect(project)
    assert schema_problem(db) is None
    db.close()


REFUSALS = {
    "another program locks the project": ("BEGIN EXCLUSIVE", "ROLLBACK", "locked"),
    "a trigger refuses every write": (
        "CREATE TRIGGER stop BEFORE INSERT ON sentence BEGIN SELECT RAISE(ABORT, 'refused'); "
        "END", "DROP TRIGGER stop", "refused"),
}


@pytest.mark.parametrize("case", list(REFUSALS))
def test_a_refused_write_is_an_error_dialog_at_once_and_the_correction_is_kept(
        qtbot, tiny_model, sample, case):
    """What another program does to the project while it is open: the annotator sees an
    error dialog at the very click (no promise in the status bar), the correction stays on
    screen and in memory, and it is written with the next change once the project can be."""
    start, lift, says = REFUSALS[case]
    window = new_window(qtbot, tiny_model)
    window.open_path(sample)
    qtbot.waitUntil(window.decoded_current, timeout=30000)
    project = window.session.store.path
    other = sqlite3.connect(project, isolation_level=None)
    other.execute(start)
    qtbot.mouseClick(window.candidates.mark_button, Qt.LeftButton)
    box = window.alarm_box
    assert box is not None
    assert box.isVisible()
    assert "cannot be written" in box.text()
    assert says in box.text()
    assert "saved as soon" not in window.statusBar().currentMessage()
    assert window.session.is_corrected(0)
    box.accept()
    window.go_to(2)
    qtbot.mouseClick(window.candidates.mark_button, Qt.LeftButton)  # still refused: no storm
    assert not window.alarm_box.isVisible()
    other.execute(lift)
    other.close()
    window.go_to(3)
    qtbot.mouseClick(window.candidates.mark_button, Qt.LeftButton)
    assert window.session.store.unsaved == []
    assert [row(project, f"id:sample-0{i}") for i in (1, 3, 4)] == [(CORRECTED,)] * 3
    window.close()


def test_a_crafted_text_model_beside_the_project_at_start_up_costs_a_message(
        qapp, qtbot, tiny_model, tmp_path):
    """``pad-studio FILE`` with a crafted ``FILE.padproject.padparser`` (its taggers a list):
    the app starts, says the text model cannot be used, and the bundled one predicts."""
    text = tmp_path / "notes.txt"
    text.write_text("The committee approved the budget .\nPrices rose .\n")
    crafted = tmp_path / "notes.txt.padproject.padparser"
    tags = ["DT", "NN", "VBD", "."]
    TextModel({}, np.zeros(1 << 10, np.float32), np.zeros(1 << 16, np.int64)).save(crafted)
    with np.load(crafted) as data:
        members = {k: data[k] for k in data.files}
    meta = json.loads(members["meta"].tobytes())
    meta["taggers"] = [{"tags": tags}]
    members["meta"] = np.frombuffer(json.dumps(meta).encode(), np.uint8)
    with open(crafted, "wb") as f:
        np.savez(f, **members)
    args = app_module.parse_args([str(text), "--model", str(tiny_model)])
    window = app_module.open_window(args)
    try:  # text: read by a worker, the window up meanwhile
        qtbot.waitUntil(lambda: window.session is not None, timeout=60000)
        assert len(window.session) == 2
        message = window.statusBar().currentMessage()
        assert "text model cannot be used" in message
        assert str(crafted) in message
        assert "taggers must be an object" in message
    finally:
        window.close()
