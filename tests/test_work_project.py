"""The annotator's corrections stay with their sentences, one window
writes a project, and a locked, damaged or hostile project file costs a message, never a
crash, a freeze or a correction."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import subprocess
import sys
import textwrap

import pytest
import test_controllers
from test_controllers import decoded

from pad_engine.api import edits, read_conll
from pad_gui.controllers.project_file import open_project
from pad_gui.controllers.project_rows import tree_from_json, tree_to_json
from pad_gui.controllers.workspace import Workspace
from pad_gui.session import CORRECTED, EDITED, MACHINE, Session, View
from pad_gui.store import ProjectStore

workspace = test_controllers.workspace  # the Qt-free workspace fixture, shared

def set_head(path, sentence: int, word: int, head: str) -> None:
    """Rewrite one HEAD field of the CoNLL file at ``path`` (sentence and word 1-based)."""
    blocks = path.read_text().split("\n\n")
    lines = blocks[sentence - 1].split("\n")
    words = [i for i, line in enumerate(lines) if line[:1].isdigit()]
    cols = lines[words[word - 1]].split("\t")
    cols[6] = head
    lines[words[word - 1]] = "\t".join(cols)
    blocks[sentence - 1] = "\n".join(lines)
    path.write_text("\n\n".join(blocks))


def relabel_top_phrase(w: Workspace, idx: int) -> None:
    w.show(idx)
    decoded(w, idx)
    path = next(p for p, _ in edits.phrases(w.session.shown_tree(idx)) if p)
    assert w.edit("relabel", "Relabel", lambda t: edits.relabel(t, path, "FRAG"))
    w.apply(w.current, w.steps[-1].change.after)  # what the undo stack does with a step
    w.toggle_corrected()


def row(project, key: str) -> tuple:
    db = sqlite3.connect(project)
    try:
        return db.execute("SELECT status, tree, seconds FROM sentence WHERE key = ?",
                          (key,)).fetchone()
    finally:
        db.close()


# -- 1. corrections belong to sentences -----------------------------------------------------
def test_corrections_come_back_after_the_input_file_was_edited(workspace, sample):
    w = workspace
    set_head(sample, 1, 1, "99")  # sentence 1 unreadable: every later one moves up
    assert w.open(sample)
    assert w.session.sentences[0].sent_id == "sample-02"
    for idx in range(3):
        relabel_top_phrase(w, idx)
    w.close()
    set_head(sample, 1, 1, "2")  # repaired: the sentences are back at their places
    assert w.open(sample)
    s = w.session
    assert [s.sentences[i].sent_id for i in range(1, 4)] == ["sample-02", "sample-03",
                                                            "sample-04"]
    assert [s.state(i) for i in range(5)] == [MACHINE, CORRECTED, CORRECTED, CORRECTED,
                                              MACHINE]
    assert all(s.view(i).tree.label == "TOP" and s.shown_tree(i).children
               for i in range(1, 4))
    assert s.detached() == []
    project = s.store.path
    w.show(1)
    w.clock.book(s, 1)
    w.show(2)  # a look at sentence 2 books time and nothing else
    assert row(project, "id:sample-02")[0] == CORRECTED
    assert row(project, "id:sample-02")[1]


def test_a_correction_whose_sentence_changed_is_kept_listed_and_can_be_applied(
        sample, tmp_path):
    project = tmp_path / "p.padproject"
    result = read_conll(sample)
    s = Session(sample, result, ProjectStore(project))
    heads = tuple(result.sentences[2].heads)
    s.set_view(2, View(heads, 1, None))
    s.set_status(2, CORRECTED)
    s.store.close()
    text = sample.read_text().replace("Prices\t", "Costs\t", 1)  # sentence 3's words change
    sample.write_text(text)
    s = Session(sample, read_conll(sample), ProjectStore(project))
    assert not s.is_corrected(2)
    [item] = s.detached()
    assert item.words.startswith("Prices")
    assert "changed" in item.why
    s.set_status(2, CORRECTED)  # the new sentence's own row: the detached one stays
    s.add_time(2, 5.0)
    assert len(s.detached()) == 1
    assert s.apply_detached(item, 0) is not None  # another length: refused, with a reason
    assert s.apply_detached(item, 2) is None
    assert s.is_corrected(2)
    assert s.view(2).chosen == 1
    [kept] = s.detached()
    assert kept.applied == "id:sample-03"
    s.store.close()


def test_a_version_1_project_is_migrated_by_sentence_identity(sample, tmp_path):
    project = tmp_path / "old.padproject"
    result = read_conll(sample)
    words = [" ".join(x.forms) for x in result.sentences]
    db = sqlite3.connect(project)
    db.executescript("""
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE sentence (idx INTEGER PRIMARY KEY, words TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'machine', chosen INTEGER NOT NULL DEFAULT 0,
            heads TEXT, tree TEXT, penn TEXT, seconds REAL NOT NULL DEFAULT 0, kept TEXT);
        CREATE TABLE event (id INTEGER PRIMARY KEY, idx INTEGER NOT NULL, kind TEXT NOT NULL,
            at REAL NOT NULL);
        CREATE INDEX IF NOT EXISTS event_idx ON event (idx);
        INSERT INTO meta VALUES ('schema', '1');
    """)
    # written while sentence 1 was unreadable: positions are one less than now
    db.execute("INSERT INTO sentence VALUES (0, ?, 'corrected', 1, NULL, NULL, NULL, 3, NULL)",
               (words[1],))
    db.execute("INSERT INTO sentence VALUES (7, 'gone words', 'corrected', 0, NULL, NULL, "
               "NULL, 1, NULL)")
    db.execute("INSERT INTO event (idx, kind, at) VALUES (0, 'pick', 1.0)")
    db.commit()
    db.close()
    s = Session(sample, result, open_project(project).store)
    assert s.is_corrected(1)
    assert s.view(1).chosen == 1
    assert not s.is_corrected(0)
    assert s.summary().actions["pick"] == 1
    assert [d.words for d in s.detached()] == ["gone words"]
    assert s.store.meta("schema") == "2"
    old = s.store.db.execute("SELECT COUNT(*) FROM sentence_v1").fetchone()[0]
    assert old == 2  # the old rows are kept as they were
    s.store.close()
    again = open_project(project)  # the migrated schema is one the app made
    assert again.notice == ""
    assert again.store.meta("schema") == "2"
    again.store.close()


def test_the_sentence_list_shows_an_edited_state(sample, tmp_path):
    result = read_conll(sample)
    s = Session(sample, result, ProjectStore(tmp_path / "p.padproject"))
    assert s.state(0) == MACHINE
    s.set_view(0, View(tuple(result.sentences[0].heads), 2, None))
    assert s.state(0) == EDITED
    s.set_status(0, CORRECTED)
    assert s.state(0) == CORRECTED
    s.store.close()


# -- 2. one writer per project ----------------------------------------------------------------
HOLDER = textwrap.dedent("""
    import sys
    from pad_gui.controllers.project_file import open_project
    opened = open_project(sys.argv[1])
    print("writer" if not opened.store.read_only else "reader", flush=True)
    sys.stdin.readline()
""")


def test_a_second_app_process_opens_the_project_read_only(workspace, sample):
    project = sample.with_name("sample.conllu.padproject")
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(project)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "writer"
        assert workspace.open(sample)
        s = workspace.session
        assert s.read_only
        assert "read-only" in workspace.messages[-1]
        assert f"process {holder.pid}" in workspace.messages[-1]
        workspace.toggle_corrected()  # shown here, never written over the writer's state
        s.add_time(0, 30.0)
        assert row(project, "id:sample-01") is None
    finally:
        holder.communicate("\n")
    workspace.close()
    assert workspace.open(sample)
    assert not workspace.session.read_only


def test_two_windows_in_one_process_and_time_booking_never_rewrites_a_status(sample,
                                                                           tmp_path):
    project = tmp_path / "p.padproject"
    result = read_conll(sample)
    a = Session(sample, result, open_project(project).store)
    b = Session(sample, result, open_project(project).store)
    assert not a.read_only
    assert b.read_only
    a.set_status(0, CORRECTED)
    b.add_time(0, 12.0)  # window B still thinks sentence 1 is "machine"
    b.set_view(0, View(tuple(result.sentences[0].heads), 3, None))
    a.add_time(0, 4.0)  # the writer's booking adds time, nothing else
    assert row(project, "id:sample-01")[0] == CORRECTED
    assert row(project, "id:sample-01")[2] == 4.0
    a.store.close()
    b.store.close()


# -- 3. locked, damaged, hostile -------------------------------------------------------------
def test_a_locked_project_costs_a_message_and_no_edit(sample, tmp_path):
    project = tmp_path / "p.padproject"
    s = Session(sample, read_conll(sample), open_project(project).store)
    problems = []
    s.store.on_problem = problems.append
    other = sqlite3.connect(project, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")  # another program holds the file
    s.set_status(1, CORRECTED)
    s.add_time(1, 7.0)
    assert problems
    assert "cannot be written" in problems[0]
    assert "locked" in problems[0]
    assert len(s.store.unsaved) == 2
    other.execute("ROLLBACK")
    other.close()
    s.log(1, "pick")  # the next write saves the waiting ones first
    assert s.store.unsaved == []
    assert row(project, "id:sample-02")[0::2] == (CORRECTED, 7.0)
    s.store.close()


def test_opening_a_project_another_program_locks(workspace, sample):
    project = sample.with_name("sample.conllu.padproject")
    ProjectStore(project).close()
    other = sqlite3.connect(project, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        assert workspace.open(sample)
        assert workspace.session.read_only
        assert "locked by another program" in workspace.messages[-1]
        workspace.toggle_corrected()  # no crash, no freeze
    finally:
        other.execute("ROLLBACK")
        other.close()


def deep_tree_json(depth: int) -> str:
    text = '["X", 0]'
    for _ in range(depth):
        text = f'["X", 0, [{text}]]'
    return text


HOSTILE = {
    "heads the number 5": ("heads", "'5'"),
    "heads that are strings": ("heads", """'["a", "b", "c"]'"""),
    "heads out of range": ("heads", "'[99, 0, 1, 1, 1, 1, 1, 1, 1]'"),
    "a tree nested 3000 deep": ("tree", repr(deep_tree_json(3000))),
    "word indices out of range": ("tree", """'[["S", 0, 2], ["A", 0], ["B", 40]]'"""),
    "a tree that is a number": ("tree", "7"),
    "a candidate that is text": ("chosen", "'first'"),
    "a status of another type": ("status", "3.5"),
    "seconds as bytes": ("seconds", "x'00ff'"),
}


@pytest.mark.parametrize("case", list(HOSTILE))
def test_hostile_rows_are_set_aside_and_never_crash(workspace, sample, case):
    project = sample.with_name("sample.conllu.padproject")
    result = read_conll(sample)
    s = Session(sample, result, ProjectStore(project))
    s.set_view(0, View(tuple(result.sentences[0].heads), 1, None))
    s.set_status(0, CORRECTED)
    s.set_status(1, CORRECTED)
    s.store.close()
    column, value = HOSTILE[case]
    db = sqlite3.connect(project)
    db.execute(f"UPDATE sentence SET {column} = {value} WHERE key = 'id:sample-01'")
    db.commit()
    db.close()
    before = hashlib.sha256(sample.read_bytes()).hexdigest()
    assert workspace.open(sample)
    s = workspace.session
    assert s.is_corrected(1)
    assert not s.is_corrected(0)
    [item] = s.detached()
    assert item.why.startswith("unreadable")
    assert item.saved is None
    workspace.toggle_corrected()
    for idx in range(3):
        workspace.show(idx)
        decoded(workspace, idx)
    assert hashlib.sha256(sample.read_bytes()).hexdigest() == before


@pytest.mark.parametrize("damage", ["random bytes", "truncated", "wrong tables"])
def test_a_damaged_project_is_renamed_aside_and_a_fresh_one_started(workspace, sample,
                                                                    damage):
    project = sample.with_name("sample.conllu.padproject")
    s = Session(sample, read_conll(sample), ProjectStore(project))
    for idx in range(len(s)):
        s.set_status(idx, CORRECTED)
        s.set_view(idx, View(tuple(s.sentences[idx].heads), 1, None))
    s.store.close()
    data = project.read_bytes()
    if damage == "random bytes":
        data = bytes(range(256)) * 40
    elif damage == "truncated":
        data = data[: len(data) // 2 + 100]
    else:
        db = sqlite3.connect(project)
        db.executescript("DROP TABLE sentence; CREATE TABLE sentence (idx INTEGER);")
        db.close()
        data = project.read_bytes()
    project.write_bytes(data)
    before = hashlib.sha256(sample.read_bytes()).hexdigest()
    assert workspace.open(sample)
    asides = list(project.parent.glob("sample.conllu.padproject.damaged-*"))
    assert len(asides) == 1
    assert asides[0].read_bytes() == data
    assert f"kept as {asides[0]}" in workspace.messages[-1]
    assert not workspace.session.read_only
    workspace.toggle_corrected()
    assert row(project, "id:sample-01")[0] == CORRECTED  # the fresh project works
    assert hashlib.sha256(sample.read_bytes()).hexdigest() == before


def test_trees_are_stored_flat_and_read_without_recursion():
    root = tree_from_json(json.loads(deep_tree_json(5)), 1)
    deep = root
    for _ in range(4000):
        deep = type(root)("X", [deep], 0, -1)
    flat = tree_to_json(deep)
    assert max(len(json.dumps(item)) for item in flat) < 20  # no nesting
    back = tree_from_json(json.loads(json.dumps(flat)), 1)
    assert len(tree_to_json(back)) == len(flat)
    with pytest.raises(ValueError, match="cut short"):
        tree_from_json(flat[:-1], 1)


# -- a write the project refuses is never a silent loss ----------------------------------------
@pytest.mark.parametrize("refusal", ["read-only", "RAISE(ABORT) trigger"])
def test_a_write_still_refused_at_close_is_saved_in_a_copy(sample, tmp_path, refusal):
    project = tmp_path / "p.padproject"
    s = Session(sample, read_conll(sample), open_project(project).store)
    problems = []
    s.store.on_problem = problems.append
    if refusal == "read-only":
        s.store.db.execute("PRAGMA query_only = 1")
    else:  # another program adds it while the project is open
        other = sqlite3.connect(project)
        other.executescript("CREATE TRIGGER stop BEFORE INSERT ON sentence BEGIN "
                            "SELECT RAISE(ABORT, 'refused'); END;")
        other.close()
    s.set_status(1, CORRECTED)
    s.add_time(1, 5.0)
    assert s.is_corrected(1)
    assert len(problems) == 1
    assert "cannot be written" in problems[0]
    s.store.close()
    [copy] = tmp_path.glob("p.padproject.unsaved-*")
    assert str(copy) in problems[-1]
    assert row(copy, "id:sample-02")[0::2] == (CORRECTED, 5.0)
    assert row(project, "id:sample-02") is None  # the project itself was never written


def test_save_project_as_writes_the_changes_the_project_refused(workspace, sample, tmp_path):
    w = workspace
    alarms = []
    w.alarm.connect(alarms.append)
    assert w.open(sample)
    w.session.store.db.execute("PRAGMA query_only = 1")  # the project turned read-only
    w.toggle_corrected()
    assert len(alarms) == 1
    assert "Save Project As" in alarms[0]
    elsewhere = tmp_path / "elsewhere.padproject"
    w.save_project_as(elsewhere)
    assert w.session.store.unsaved == []
    assert row(elsewhere, "id:sample-01")[0] == CORRECTED
