"""A file that cannot be opened (empty, binary, not one readable sentence), opened through
File > Open as a person would: the window stays on the last good file (or stays empty), the
status bar and the Problems panel say why, and no project is written beside it."""

from __future__ import annotations

import pytest
import test_gui_app
from guikit import answer_open_dialog
from test_gui_app import menu_action, new_window

from pad_engine.api import InputError, read_for_annotation
from pad_engine.parsing import annotation

pytestmark = pytest.mark.usefixtures("isolated_settings")
window = test_gui_app.window  # the sample open with the tiny model

BINARY = b"PK\x03\x04\x14\x00\x00\x00\x08\x00\xff\xfe\x00\x00garbage\x00\n\x89PNG\r\n"
BAD_SENTENCES = ("1\tOnly\tthree\n\n"  # too few columns, then a cycle
                 "1\tA\t_\tX\tDT\t_\t2\tdep\t_\t_\n2\tB\t_\tX\tNN\t_\t1\tdep\t_\t_\n")


def open_by_menu(window, path) -> None:
    answer_open_dialog(path)
    menu_action(window, "File", "Open…").trigger()


def screen(window) -> tuple:
    """What the window shows of the file on screen."""
    return (window.windowTitle(), window.title.text(), window.candidates.list.count(),
            window.sentences.model.rowCount(), window.scene.items() != [])


@pytest.mark.parametrize(("content", "why"), [
    (b"", "the file is empty"),
    (b"  \n\n\t\n", "the file is empty"),
    (BINARY, "a binary file"),
    (BAD_SENTENCES.encode(), "none of its 2 sentences can be read"),
])
def test_a_failed_open_keeps_the_last_good_file(window, qtbot, tmp_path, content, why):
    before = screen(window)
    good = window.session
    folder = tmp_path / "failed"
    folder.mkdir()
    path = folder / "bad.conllu"
    path.write_bytes(content)
    open_by_menu(window, path)
    assert window.session is good
    assert screen(window) == before
    message = window.statusBar().currentMessage()
    assert message.startswith(f"Cannot open {path}")
    assert why in message
    assert window.problems_dock.isVisible()
    assert window.problems.item(0, 0).text() == str(path)
    assert why in window.problems.item(0, 2).text()
    assert [p.name for p in folder.iterdir()] == ["bad.conllu"]  # no project written
    window.go_to(1)  # the file on screen still works
    assert window.current == 1


def test_a_failed_open_in_an_empty_window_leaves_it_empty(qtbot, tiny_model, tmp_path):
    window = new_window(qtbot, tiny_model)
    path = tmp_path / "empty.conllu"
    path.write_bytes(b"")
    open_by_menu(window, path)
    assert window.session is None
    assert screen(window) == ("PAD Studio", "", 0, 0, False)
    assert "the file is empty" in window.statusBar().currentMessage()
    assert [p.name for p in tmp_path.iterdir()] == ["empty.conllu"]
    window.close()


def test_an_empty_or_binary_file_is_refused_before_a_text_model_loads(tmp_path, monkeypatch):
    def no_model(*args, **kwargs):
        raise AssertionError("a text model was loaded for a file with nothing to parse")

    monkeypatch.setattr(annotation, "load_text_model", no_model)
    for content, why in ((b"", "empty"), (BINARY, "binary")):
        path = tmp_path / "x.txt"
        path.write_bytes(content)
        with pytest.raises(InputError, match=why):
            read_for_annotation(path)
