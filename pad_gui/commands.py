"""Undo steps: every edit replaces a sentence's whole View, so undoing it restores the tree,
the d-parse and the picked candidate together (side effects included, in one step)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QUndoCommand

from pad_engine.edits import Path
from pad_gui.session import View


class ViewCommand(QUndoCommand):
    """Switch one sentence from ``before`` to ``after``; ``apply`` shows and saves a View."""

    def __init__(self, apply: Callable[[int, View, Path | None], None], idx: int,
                 before: View, after: View, text: str, select: Path | None = None):
        super().__init__(text)
        self.apply = apply
        self.idx = idx
        self.before = before
        self.after = after
        self.select = select

    def redo(self) -> None:
        self.apply(self.idx, self.after, self.select)

    def undo(self) -> None:
        self.apply(self.idx, self.before, None)
