"""File > Detached Corrections…: corrections whose sentence changed in the file or left it
(or whose row could not be read). They are never dropped: the annotator applies one to the
sentence on screen or exports them all. What they are lives in ``Session.detached``."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QDialog,
    QFileDialog,
    QTableWidgetItem,
    QWidget,
)

from pad_gui.controllers.exports import proposed
from pad_gui.controllers.workspace import Workspace
from pad_gui.dialogs import table_layout

HEADERS = ("Words", "Status", "Why it is detached", "Applied to")


class DetachedDialog(QDialog):
    """The detached corrections of the open project."""

    def __init__(self, workspace: Workspace, parent: QWidget | None = None):
        super().__init__(parent)
        self.workspace = workspace
        self.items = []
        self.setWindowTitle("Detached corrections")
        self.resize(760, 360)
        self.table, self.note, (self.apply_button, self.export_button) = table_layout(
            self, HEADERS, "These corrections no longer match a sentence of the file. Select "
                           "one and apply it to the sentence on screen (same number of words), "
                           "or export them all.",
            [("Apply to Sentence on Screen", self.apply_selected),
             ("Export All…", self.export_dialog)])
        workspace.opened.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        s = self.workspace.session
        self.items = s.detached() if s is not None else []
        self.table.setRowCount(len(self.items))
        for r, d in enumerate(self.items):
            for c, text in enumerate((d.words, d.status, d.why, d.applied or "")):
                self.table.setItem(r, c, QTableWidgetItem(text))
        if self.items:
            self.table.selectRow(0)
        self.table.resizeColumnsToContents()

    def apply_selected(self) -> None:
        rows = self.table.selectionModel().selectedRows()
        if rows and self.workspace.apply_detached(self.items[rows[0].row()]):
            self.refresh()

    def export_dialog(self) -> None:
        session = self.workspace.session
        start = proposed(session.path if session else None, "detached-corrections.txt")
        path, _ = QFileDialog.getSaveFileName(self, "Export detached corrections", start,
                                              "Text (*.txt)")
        if path:
            self.workspace.exports.detached(path)
