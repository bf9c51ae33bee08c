"""The annotation project file: trees round-trip, rows stay with their sentences."""

from __future__ import annotations

from pad_engine.io.conll import read_conll
from pad_engine.resources import resource_path
from pad_engine.trees.lextree import LexNode, to_line
from pad_gui.controllers.project_rows import tree_from_json, tree_to_json
from pad_gui.session import CORRECTED, Session, View
from pad_gui.store import ProjectStore

TREE = LexNode("TOP", [LexNode("S", [LexNode("NP", [LexNode("PRP", [], 0, 0)], 0, -1),
                                     LexNode("VP", [LexNode("VBD", [], 0, 1)], 0, -1)], 1, -1)],
               0, -1)


def test_tree_json_round_trip():
    back = tree_from_json(tree_to_json(TREE))
    assert to_line(back, ["She", "left"]) == to_line(TREE, ["She", "left"])
    assert back.children[0].head == 1


def test_rows_only_apply_to_the_same_words(tmp_path):
    store = ProjectStore(tmp_path / "p.padproject")
    store.save_view("id:a", 0, "She left", 2, [2, 0], TREE, None, "(TOP ...)")
    store.save_status("id:a", 0, "She left", CORRECTED, None, "(TOP ...)")
    store.add_seconds("id:a", 0, "She left", 12.5)
    store.save_status("id:b", 1, "Other words", CORRECTED, None, None)
    store.close()
    again = ProjectStore(tmp_path / "p.padproject")
    saved = again.load(["id:a", "id:b"], ["She left", "Changed words"], [2, 2])
    assert list(saved) == [0]
    assert saved[0].chosen == 2
    assert saved[0].seconds == 12.5
    assert saved[0].heads == [2, 0]
    [aside] = again.detached()  # the changed sentence's row is kept, not dropped
    assert aside.words == "Other words"
    assert "changed" in aside.why
    again.close()


def test_session_saves_as_it_goes_and_summarizes(tmp_path):
    result = read_conll(resource_path("sample", "sample.conllu"))
    path = tmp_path / "p.padproject"
    session = Session(tmp_path / "sample.conllu", result, ProjectStore(path))
    n1 = len(result.sentences[1])
    session.set_view(1, View(tuple(result.sentences[1].heads), 0, None))
    session.log(1, "relabel")
    session.add_time(1, 30.0)
    session.set_status(1, CORRECTED)
    session.add_time(2, 10_000.0)  # a long pause counts as a break
    session.set_status(2, CORRECTED)
    reopened = Session(tmp_path / "sample.conllu", result, ProjectStore(path))
    assert reopened.is_corrected(1)
    assert reopened.is_corrected(2)
    summary = reopened.summary()
    assert summary.corrected == 2
    assert summary.as_proposed == 2
    assert summary.actions["relabel"] == 1
    assert summary.tokens == n1 + len(result.sentences[2])
    assert summary.seconds == 330.0
    assert summary.tokens_per_hour == summary.tokens / (330 / 3600)
