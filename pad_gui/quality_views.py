"""The treebank-quality views in the main window: the search and consistency panels (docks,
made when first asked for) and the compare dialog, wired to the workspace and its undo."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QUndoCommand, QUndoStack
from PySide6.QtWidgets import QDockWidget, QFileDialog, QMainWindow, QWidget

from pad_engine.api import LexNode, PadError, edits
from pad_gui.compare_dialog import CompareDialog
from pad_gui.consistency_panel import ConsistencyPanel
from pad_gui.controllers.engine import SOON
from pad_gui.controllers.quality import Finding, adjudicate, compare, majority_changes
from pad_gui.controllers.reattach import Change
from pad_gui.controllers.workspace import Step
from pad_gui.search_panel import SearchPanel

DOCK_HEIGHT = 270  # px: at 768 px high the tree keeps most of the window


class BulkCommand(QUndoCommand):
    """Several sentences change at once (a finding's majority applied): one undo step."""

    def __init__(self, views: QualityViews, changes: list[Change], text: str):
        super().__init__(text)
        self.views = views
        self.changes = changes

    def redo(self) -> None:
        self.views.set_views([(c.idx, c.after) for c in self.changes])

    def undo(self) -> None:
        self.views.set_views([(c.idx, c.before) for c in self.changes])


class QualityViews:
    """What View > Search Treebank, View > Consistency Check and File > Compare With… show."""

    def __init__(self, window: QMainWindow):
        self.window = window
        self.workspace = window.workspace
        self.bulk = QUndoStack(window.undo_group)  # steps over several sentences
        self.search: SearchPanel | None = None
        self.consistency: ConsistencyPanel | None = None
        self.compare_dialog: CompareDialog | None = None
        self.docks: list[QDockWidget] = []

    def _dock(self, title: str, name: str, widget: QWidget) -> QDockWidget:
        dock = QDockWidget(title, self.window)
        dock.setObjectName(name)
        dock.setWidget(widget)
        self.window.addDockWidget(Qt.BottomDockWidgetArea, dock)
        others = [d for d in self.docks if d.isVisible()]
        if others:  # tabs, so that the tree keeps its height
            self.window.tabifyDockWidget(others[0], dock)
        else:
            self.window.resizeDocks([dock], [DOCK_HEIGHT], Qt.Vertical)
        self.docks.append(dock)
        return dock

    def show_search(self) -> None:
        if self.search is None:
            self.search = SearchPanel(lambda: self.workspace.session, self.go)
            self.search_dock = self._dock("Search", "search", self.search)
        self.search_dock.show()
        self.search_dock.raise_()
        self.search.query.setFocus(Qt.ShortcutFocusReason)
        self.search.query.selectAll()

    def show_consistency(self) -> None:
        if self.consistency is None:
            self.consistency = ConsistencyPanel(lambda: self.workspace.session,
                                                self.workspace.show, self.apply_majority)
            self.consistency_dock = self._dock("Consistency", "consistency", self.consistency)
        self.consistency_dock.show()
        self.consistency_dock.raise_()
        self.consistency.run_button.setFocus(Qt.ShortcutFocusReason)

    def go(self, idx: int, path: edits.Path) -> None:
        """Show sentence ``idx`` with the node at ``path`` selected."""
        self.workspace.show(idx)
        self.window.scene.select_path(path)
        self.window.view.setFocus(Qt.OtherFocusReason)

    def apply_majority(self, finding: Finding) -> None:
        session = self.workspace.session
        changes, refused = majority_changes(session, finding, self.workspace.reattach_scheme)
        note = ("; not " + "; ".join(refused)) if refused else ""
        if changes:
            for c in changes:
                session.log(c.idx, "consistency")
            self.bulk.push(BulkCommand(self, changes, f"Apply majority to {len(changes)} "
                                                      "sentences"))
            self.window.undo_group.setActiveStack(self.bulk)  # Ctrl+Z undoes it now
        self.workspace.message.emit(f"Majority bracketing given to {len(changes)} "
                                    f"sentences{note}", 8000)

    def set_views(self, views: list[tuple[int, object]]) -> None:
        """Show and save each sentence's view; the first is put on screen."""
        session = self.workspace.session
        for idx, view in views:
            session.set_view(idx, view)
            self.workspace.row.emit(idx)
            self.workspace.request(idx, SOON)  # candidates for changed arcs, if any
        if views:
            self.workspace.show(views[0][0])
            self.workspace.redraw.emit(None, False)
            self.window.undo_group.setActiveStack(self.bulk)

    def compare_with(self, path: str | None = None) -> None:
        session = self.workspace.session
        if session is None:
            return
        if path is None:
            path, _ = QFileDialog.getOpenFileName(
                self.window, "Compare with another annotation", str(session.path.parent),
                "Penn trees (*.mrg *.ptb *.txt *.tree);;All files (*)")
            if not path:
                return
        try:
            rows = compare(session, path)
        except PadError as err:
            self.workspace.message.emit(f"Cannot compare: {err}", 10000)
            return
        self.compare_dialog = CompareDialog(session, path, rows, self.take, self.window)
        self.compare_dialog.resize(self.window.width() - 40, self.window.height() - 60)
        self.compare_dialog.show()

    def take(self, idx: int, tree: LexNode, origin: str, edit: bool) -> None:
        """Adjudicate sentence ``idx`` (one undo step of that sentence)."""
        change = adjudicate(self.workspace.session, idx, tree, origin, corrected=not edit,
                            scheme=self.workspace.reattach_scheme)
        self.workspace.step.emit(Step(change, f"Take {origin[:1]}"))
        self.workspace.row.emit(idx)
        if edit:
            self.window.view.setFocus(Qt.OtherFocusReason)
