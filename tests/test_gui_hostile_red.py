"""A project file's meta rows are not trusted either: a version
number or a parser's sentence list that another program wrote costs nothing at open."""

from __future__ import annotations

import sqlite3
from types import SimpleNamespace

import pytest
from PySide6.QtCore import Qt
from test_gui_app import new_window

from pad_engine.io.conll import read_conll
from pad_gui.controllers.parser_adaptation import ADAPTED_META, PARSER_META, adapted_keys
from pad_gui.session import CORRECTED, Session
from pad_gui.store import ProjectStore

pytestmark = pytest.mark.usefixtures("isolated_settings")


@pytest.mark.parametrize("value", ["9" * 20, "1" * 40_000, "\u0661"], ids=[
    "20 digits", "40,000 digits", "arabic-indic digit"])
def test_a_hostile_model_version_in_the_project_opens_with_the_bundled_model(
        qtbot, tiny_model, sample, value):
    """meta model_version was int()-ed when it was all digits: 20 digits overflowed the
    SQLite query (OverflowError), 40,000 raised ValueError (int's digit limit): the app
    failed to open the file. Now it is no version of the project: the bundled model."""
    project = sample.with_name("sample.conllu.padproject")
    store = ProjectStore(project)
    Session(sample, read_conll(sample), store).set_status(2, CORRECTED)
    store.close()
    db = sqlite3.connect(project)
    db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('model_version', ?)", (value,))
    db.commit()
    db.close()
    window = new_window(qtbot, tiny_model)
    window.open_path(sample)
    qtbot.waitUntil(window.decoded_current, timeout=30000)
    assert window.session.is_corrected(2)  # the correction made before is there
    window.go_to(1)
    qtbot.mouseClick(window.candidates.mark_button, Qt.LeftButton)
    assert window.session.store.unsaved == []
    window.close()


def test_an_adapted_sentence_list_nested_too_deep_is_no_list():
    meta = {PARSER_META: "x.padparser", ADAPTED_META: "[" * 200_000}
    session = SimpleNamespace(store=SimpleNamespace(meta=meta.get))
    assert adapted_keys(session) == set()
