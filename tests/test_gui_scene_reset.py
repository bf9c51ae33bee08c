"""Switching files (or sentences) while the parse view holds a selection, a hover, a keyboard
re-attachment or a word drag: the view and the scene let go of every item of the scene
they cleared, so nothing later touches a deleted Qt item (opening a file with a node
selected once raised a RuntimeError from ``ParseScene.hover``)."""

from __future__ import annotations

import shutil

import pytest
import test_gui_app
from guikit import SAMPLE, answer_open_dialog
from PySide6.QtCore import Qt
from test_gui_app import click_node, key, menu_action, node_item, word_pos

pytestmark = pytest.mark.usefixtures("isolated_settings")
window = test_gui_app.window  # the sample open with the tiny model


def _select_one(qtbot, window) -> None:
    click_node(qtbot, window, (0, 0))


def _select_siblings(qtbot, window) -> None:
    click_node(qtbot, window, (0, 0))
    click_node(qtbot, window, (0, 1), Qt.ControlModifier)


def _hover(qtbot, window) -> None:
    click_node(qtbot, window, (0, 0))
    item = node_item(window, (0, 1))  # the pointer over another phrase
    qtbot.mouseMove(window.view.viewport(), window.view.mapFromScene(item.scenePos()))
    lit = [w.index - 1 for w in window.scene.words if w.lit]
    assert lit == [item.head_word]


def _reattach_by_keys(qtbot, window) -> None:
    click_node(qtbot, window, (0, 0))
    key(qtbot, window, Qt.Key_A)
    assert window.workspace.choosing.choice is not None


def _drag_a_word(qtbot, window) -> None:
    viewport = window.view.viewport()
    qtbot.mousePress(viewport, Qt.LeftButton, Qt.NoModifier, word_pos(window, 2))
    qtbot.mouseMove(viewport, word_pos(window, 4))
    assert window.view._rubber is not None


STATES = {"one node": _select_one, "siblings": _select_siblings, "hover": _hover,
          "keyboard re-attach": _reattach_by_keys, "word drag": _drag_a_word}


@pytest.mark.parametrize("state", list(STATES))
def test_switching_files_with_the_view_busy(window, qtbot, tmp_path, state):
    STATES[state](qtbot, window)
    other = tmp_path / "other.conllu"
    shutil.copy(SAMPLE, other)
    answer_open_dialog(other)
    menu_action(window, "File", "Open…").trigger()  # raised inside Qt's slots before the fix
    assert window.session.path == other
    qtbot.waitUntil(window.decoded_current, timeout=30000)
    scene = window.scene
    assert all(item.scene() is scene for item in [*scene.nodes, *scene.words, *scene.arcs])
    assert window.view._rubber is None
    assert window.workspace.choosing.choice is None
    # what a person does next on the new file works on its items
    viewport = window.view.viewport()
    qtbot.mouseMove(viewport, word_pos(window, 3))
    qtbot.mouseRelease(viewport, Qt.LeftButton, Qt.NoModifier, word_pos(window, 3))
    click_node(qtbot, window, (0, 0))
    assert window.label_edit.text() == node_item(window, (0, 0)).node.label
    scene.hover(None)


def test_clearing_the_scene_drops_its_items(window, qtbot):
    """Whoever clears the scene, it forgets its items first (one place clears)."""
    _select_siblings(qtbot, window)
    window.scene.clear()
    assert (window.scene.nodes, window.scene.words, window.scene.arcs) == ([], [], [])
    assert window.label_edit.text() == ""
    window.scene.hover(None)
