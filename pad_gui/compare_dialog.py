"""File > Compare With…: the open project's trees (A) beside another annotation of the same
sentences (B, a Penn export), the brackets one side lacks marked on the other; the annotator
takes a side (the sentence becomes corrected, its origin logged in the project) or takes B
to edit it in the main window. The figures are ``pad agree``'s (EVALB)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from pad_engine.api import LexNode, edits
from pad_gui.controllers.quality import SideBySide
from pad_gui.parse_view import ParseScene, ParseView
from pad_gui.session import Session

Take = Callable[[int, LexNode, str, bool], None]  # idx, tree, origin, then edit it


class CompareDialog(QDialog):
    """``rows``: every sentence in both annotations; ``take`` adjudicates one."""

    def __init__(self, session: Session, other: str, rows: list[SideBySide], take: Take,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.session, self.other, self.take = session, Path(other).name, take
        self.all_rows = rows
        self.rows: list[SideBySide] = []
        self.setWindowTitle(f"Compare with {self.other}")
        self.table = QTableWidget(0, 3)
        self.table.setHorizontalHeaderLabels(["Sentence", "F1", "Exact"])
        self.table.verticalHeader().hide()
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.itemSelectionChanged.connect(self.show_current)
        self.only_differing = QCheckBox("Only sentences that differ")
        self.only_differing.setChecked(True)
        self.only_differing.toggled.connect(self.fill)
        self.summary = QLabel()
        self.scenes, views, titles = [], [], []
        for side in ("A: this project", f"B: {self.other}"):
            scene = ParseScene(self)
            view = ParseView(scene)
            self.scenes.append(scene)
            views.append(view)
            titles.append(QLabel(f"<b>{side}</b> — amber: brackets the other side lacks"))
        trees = QSplitter(Qt.Horizontal)
        for title, view in zip(titles, views):
            pane = QWidget()
            lay = QVBoxLayout(pane)
            lay.setContentsMargins(0, 0, 0, 0)
            lay.addWidget(title)
            lay.addWidget(view, 1)
            trees.addWidget(pane)
        self.views = views
        left = QWidget()
        lay = QVBoxLayout(left)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.only_differing)
        lay.addWidget(self.table, 1)
        split = QSplitter(Qt.Horizontal)
        split.addWidget(left)
        split.addWidget(trees)
        split.setStretchFactor(1, 1)
        split.setSizes([230, 1100])
        box = QDialogButtonBox()
        self.buttons = {}
        for name, text in (("a", "Take &A"), ("b", "Take &B"), ("edit", "&Edit B…")):
            button = box.addButton(text, QDialogButtonBox.ActionRole)
            button.clicked.connect(lambda checked=False, n=name: self.decide(n))
            self.buttons[name] = button
        box.addButton(QDialogButtonBox.Close).clicked.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(split, 1)
        layout.addWidget(box)
        self.fill()

    def fill(self) -> None:
        scored = [r for r in self.all_rows if r.f1 is not None]
        same = sum(1 for r in scored if r.exact)
        self.rows = [r for r in self.all_rows
                     if not (self.only_differing.isChecked() and r.exact)]
        waiting = len(self.all_rows) - len(scored)
        self.summary.setText(f"{len(scored)} sentences in both: {same} the same, "
                             f"{len(scored) - same} differ (EVALB)" +
                             (f"; {waiting} not decoded here yet" if waiting else "") +
                             ". A is the tree this project shows for the sentence.")
        self.table.setRowCount(len(self.rows))
        for r, row in enumerate(self.rows):
            f1 = "-" if row.f1 is None else f"{row.f1:.1f}"
            exact = "-" if row.exact is None else ("yes" if row.exact else "no")
            for c, text in enumerate((str(row.idx + 1), f1, exact)):
                self.table.setItem(r, c, QTableWidgetItem(text))
        self.table.resizeColumnsToContents()
        if self.rows:
            self.table.selectRow(0)

    def current(self) -> SideBySide | None:
        rows = self.table.selectionModel().selectedRows()
        return self.rows[rows[0].row()] if rows else None

    def show_current(self) -> None:
        row = self.current()
        for name, button in self.buttons.items():
            button.setEnabled(row is not None and (name != "a" or row.a is not None))
        if row is None:
            return
        sent = self.session.sentences[row.idx]
        view = self.session.view(row.idx)
        mine = edits.brackets(row.a) if row.a is not None else None
        theirs = edits.brackets(row.b)
        for scene, tree, diff in ((self.scenes[0], row.a, (mine or theirs) - theirs),
                                  (self.scenes[1], row.b, theirs - (mine or theirs))):
            scene.show_sentence(sent.forms, sent.tags, list(view.heads), sent.rels, tree,
                                diff, set())
        for v in self.views:
            v.show_new()

    def decide(self, which: str) -> None:
        row = self.current()
        if row is None:
            return
        tree, origin = (row.a, "A") if which == "a" else (row.b, f"B:{self.other}")
        self.take(row.idx, tree, origin, which == "edit")
        if which == "edit":
            self.accept()
            return
        self.all_rows = [SideBySide(r.idx, tree, r.b, 100.0 if which == "b" else r.f1,
                                    True if which == "b" else r.exact)
                         if r.idx == row.idx else r for r in self.all_rows]
        at = self.table.currentRow()
        self.fill()
        if self.rows:
            self.table.selectRow(min(at, len(self.rows) - 1))
