"""Undo: one stack per sentence in one group, so Edit > Undo always undoes on the sentence
on screen. Every step replaces a sentence's whole View, so undoing it restores the tree,
the d-parse and the picked candidate together (side effects included, in one step)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QUndoCommand, QUndoGroup, QUndoStack

from pad_engine.api import edits
from pad_gui.controllers.workspace import Step
from pad_gui.session import View

Apply = Callable[[int, View, edits.Path | None], None]


class ViewCommand(QUndoCommand):
    """Switch one sentence from ``before`` to ``after``; ``apply`` shows and saves a View."""

    def __init__(self, apply: Apply, step: Step):
        super().__init__(step.text)
        self.apply = apply
        self.step = step

    def redo(self) -> None:
        c = self.step.change
        self.apply(c.idx, c.after, self.step.select)

    def undo(self) -> None:
        c = self.step.change
        self.apply(c.idx, c.before, None)


class UndoStacks:
    """The undo stacks of the open treebank's sentences (made as they are visited)."""

    def __init__(self, group: QUndoGroup, apply: Apply):
        self.group = group
        self.apply = apply
        self._stacks: dict[int, QUndoStack] = {}

    def _stack(self, idx: int) -> QUndoStack:
        if idx not in self._stacks:
            self._stacks[idx] = QUndoStack(self.group)
        return self._stacks[idx]

    def activate(self, idx: int) -> None:
        """Edit > Undo and Redo act on sentence ``idx`` from now on."""
        self.group.setActiveStack(self._stack(idx))

    def push(self, step: Step) -> None:
        """Do ``step`` (the command's redo applies it) as one undoable step."""
        self._stack(step.change.idx).push(ViewCommand(self.apply, step))

    def clear(self) -> None:
        for stack in self._stacks.values():
            self.group.removeStack(stack)
            stack.deleteLater()
        self._stacks.clear()
