"""Plain text opened through File > Open: split into tokens as ``pad parse --tokenize``
splits it (or kept as its white space splits it, when asked), read by a worker while the
window says what it does (loading the text model takes seconds)."""

from __future__ import annotations

import pytest
from guikit import when_modal
from PySide6.QtWidgets import QApplication, QLineEdit
from test_gui_app import menu_action, new_window

from pad_engine.parsing.text import tokenize
from pad_gui.dialogs import OpenDialog

pytestmark = pytest.mark.usefixtures("isolated_settings")

LINES = ["The cat sat on the mat.", "I saw the man with the telescope.",
         "Mr. Smith didn't pay $1,000.50, did he?"]


def open_text(window, path, keep_tokens: bool) -> None:
    def answer(dialog) -> None:
        dialog.keep_tokens.setChecked(keep_tokens)
        dialog.findChild(QLineEdit, "fileNameEdit").setText(str(path))
        dialog.accept()

    when_modal(OpenDialog, answer)
    menu_action(window, "File", "Open…").trigger()


def test_text_is_tokenized_with_progress_while_the_model_loads(qtbot, tiny_model, tmp_path):
    path = tmp_path / "story.txt"
    path.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    window = new_window(qtbot, tiny_model)
    heard: list[str] = []
    window.workspace.background.connect(heard.append)
    open_text(window, path, keep_tokens=False)
    # the dialog has closed and the window is not waiting for the model: it says so
    assert window.workspace.reading == path
    assert window.session is None
    assert "a text model predicts its arcs" in window.statusBar().currentMessage()
    QApplication.processEvents()
    qtbot.waitUntil(lambda: window.session is not None, timeout=120000)
    assert any(text.startswith("Loading the text model") for text in heard), heard
    assert any(text.startswith("Tagging and parsing 3 sentences") for text in heard), heard
    forms = [s.forms for s in window.session.sentences]
    assert forms == [tokenize(line) for line in LINES]
    assert forms[0][-2:] == ["mat", "."]
    assert forms[1][-2:] == ["telescope", "."]
    assert "did" in forms[2]
    assert "n't" in forms[2]
    qtbot.waitUntil(window.decoded_current, timeout=60000)
    # asked to keep the file's own tokens: split at white space only
    other = tmp_path / "tokens.txt"
    other.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    open_text(window, other, keep_tokens=True)
    qtbot.waitUntil(lambda: window.session.path == other, timeout=120000)
    assert [s.forms for s in window.session.sentences] == [line.split() for line in LINES]
    qtbot.waitUntil(lambda: window.workspace.reading is None, timeout=10000)
    window.close()


def test_a_second_open_while_text_is_read_is_refused_and_said(qtbot, tiny_model, tmp_path):
    path = tmp_path / "story.txt"
    path.write_text(LINES[0] + "\n", encoding="utf-8")
    window = new_window(qtbot, tiny_model)
    assert window.open_path(path)  # started
    assert not window.open_path(path)
    assert "Still opening story.txt" in window.statusBar().currentMessage()
    qtbot.waitUntil(lambda: window.session is not None, timeout=120000)
    window.close()


def test_closing_the_window_while_text_is_read_opens_nothing(qtbot, tiny_model, tmp_path):
    path = tmp_path / "story.txt"
    path.write_text(LINES[0] + "\n", encoding="utf-8")
    window = new_window(qtbot, tiny_model)
    assert window.open_path(path)
    window.close()
    qtbot.waitUntil(lambda: window.workspace.reading is None, timeout=120000)
    assert window.session is None
    assert [p.name for p in tmp_path.iterdir()] == ["story.txt"]  # no project written
