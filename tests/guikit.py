"""Test helpers around the app's sample: its path and its head-marked tree format (also what
the edit tests write their trees in). The GUI tests' fixtures, a tiny model trained on the
sample's trees and settings kept apart from the user's, are in conftest.py."""

from __future__ import annotations

from nltk import Tree

from pad_engine.resources import resource_path
from pad_engine.trees.lextree import LexNode

SAMPLE = resource_path("sample", "sample.conllu")


def head_marked(line: str) -> tuple[LexNode, list[str]]:
    """A tree from the head-marked Penn format: a trailing ``*`` marks the one head child of
    every phrase."""
    words: list[str] = []

    def build(t: Tree) -> LexNode:
        if isinstance(t[0], str):
            words.append(t[0])
            return LexNode(t.label().rstrip("*"), [], 0, len(words) - 1)
        kids = [build(c) for c in t]
        heads = [i for i, c in enumerate(t) if c.label().endswith("*")]
        assert len(heads) == 1, t
        return LexNode(t.label().rstrip("*"), kids, heads[0], -1)

    return build(Tree.fromstring(line)), words


def answer_open_dialog(path, encoding: str | None = None) -> None:
    """Answer the File > Open dialog about to appear as a person would: type an encoding
    into its box (if given), pick ``path``, press Open."""

    from PySide6.QtWidgets import QLineEdit

    def answer(dialog) -> None:
        if encoding is not None:
            dialog.encoding_box.setCurrentText(encoding)
        # The file name field, not selectFile(): Qt ignores selectFile() while that field
        # has the keyboard focus, which it has once the dialog is up.
        dialog.findChild(QLineEdit, "fileNameEdit").setText(str(path))
        assert dialog.selectedFiles() == [str(path)], dialog.selectedFiles()
        dialog.accept()

    _when_open_dialog(answer)


def type_into_open_dialog(path) -> None:
    """Answer the File > Open dialog about to appear with the keyboard alone: type the file's
    path into its file name field, press Enter."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication, QLineEdit

    def answer(dialog) -> None:
        field = QApplication.focusWidget()
        assert isinstance(field, QLineEdit), field  # the dialog starts in its file name field
        QTest.keyClicks(field, str(path))
        QTest.keyClick(field, Qt.Key_Return)

    _when_open_dialog(answer)


def _when_open_dialog(answer) -> None:
    from pad_gui.dialogs import OpenDialog

    when_modal(OpenDialog, answer)


def when_modal(kind: type, answer, timeout_ms: int = 30000) -> None:
    """Call ``answer(dialog)`` once a modal dialog of type ``kind`` is up.

    Polls rather than firing once after a fixed delay: on a loaded machine the dialog may
    take longer to appear, and a missed dialog would wait for a click forever. If none comes
    within ``timeout_ms``, whatever modal is up is closed and the test fails instead of
    hanging."""
    from PySide6.QtCore import QDeadlineTimer, QTimer
    from PySide6.QtWidgets import QApplication

    deadline = QDeadlineTimer(timeout_ms)
    timer = QTimer()
    timer.setInterval(20)

    def check() -> None:
        dialog = QApplication.activeModalWidget()
        if isinstance(dialog, kind):
            _stop(timer)
            answer(dialog)
            if dialog.isVisible():  # an answer that missed would leave the app waiting
                dialog.reject()
                raise AssertionError(f"the answer left the {kind.__name__} open")
        elif deadline.hasExpired():
            _stop(timer)
            if dialog is not None:
                dialog.close()
            raise AssertionError(f"no {kind.__name__} appeared within {timeout_ms} ms")

    timer.timeout.connect(check)
    timer.start()
    _pending.append(timer)  # the timer lives until it has answered


_pending: list = []


def _stop(timer) -> None:
    timer.stop()
    _pending.remove(timer)
