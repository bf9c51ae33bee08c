"""The main window: the views of the workspace (sentence list, parse view, candidates,
problems), the menus and toolbar built from the action registry (``pad_gui.actions``),
composed over Qt-free controllers (``pad_gui.controllers``). It fits the screen the first
time and remembers its layout, zoom, file and sentence (QSettings) for the next."""

from __future__ import annotations

import html
import itertools
from pathlib import Path

from PySide6.QtCore import QSettings, QStandardPaths, Qt
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence, QUndoGroup
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDockWidget,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMessageBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from pad_engine.api import InputError, edits, removed_brackets
from pad_gui import actions, collector, ui_thread
from pad_gui.batch_dialog import show_batch_dialog
from pad_gui.candidates import CandidatePanel
from pad_gui.controllers.engine import EngineThread
from pad_gui.controllers.exports import proposed
from pad_gui.controllers.models import ModelVersions
from pad_gui.controllers.projects import Projects
from pad_gui.controllers.retraining import Retraining
from pad_gui.controllers.workspace import Workspace
from pad_gui.detached_dialog import DetachedDialog
from pad_gui.dialogs import EffortDialog, HelpDialog, OpenDialog, bring_to_front
from pad_gui.editing import TreeEditor
from pad_gui.model_versions import ModelDialogs
from pad_gui.parse_items import legend_html
from pad_gui.parse_view import ParseScene, ParseView
from pad_gui.qtcompat import protect_singletons
from pad_gui.quality_views import QualityViews
from pad_gui.sentence_list import SentencePanel
from pad_gui.status_labels import CountLabel, NoteLabel, StatusMessages
from pad_gui.undo import UndoStacks

PANEL = (170, 230)  # px the sentence list and the candidates need at least
FRAME = (16, 40)  # px of borders and title bar a window manager may add around the window
# characters of the sentence shown above the tree (the rest in its tooltip, up to the second):
# a sentence of thousands of words would fill the pane and leave the tree a strip
TITLE_CHARS, TITLE_TIP_CHARS = 400, 4000


class MainWindow(QMainWindow):
    """PAD Studio's one window. ``remember``: whether its layout, zoom, file and sentence
    are kept for the next start (not for a ``--screenshot`` run)."""

    def __init__(self, model_path: str | Path | None = None, remember: bool = True):
        protect_singletons()
        super().__init__()
        collector.install()  # Qt objects die on this thread, not wherever Python collects
        self.setWindowTitle("PAD Studio")
        self.setAcceptDrops(True)
        self.model_path = model_path
        self.remember = remember
        data = Path(QStandardPaths.writableLocation(QStandardPaths.AppDataLocation))
        self.engine = EngineThread(model_path)
        self.workspace = w = Workspace(self.engine, Projects(QSettings(), data),
                                       lambda job: ui_thread.start(job, self, 50))
        self.models = ModelVersions(w, model_path)
        self.retraining = Retraining(self.models, lambda job: ui_thread.start(job, self, 50))
        self.model_dialogs = ModelDialogs(self.models, self.retraining, self)
        self.detached_dialog: DetachedDialog | None = None
        self.undo_group = QUndoGroup(self)
        self.undo = UndoStacks(self.undo_group, w.apply)
        self._build_widgets()
        self.editor = TreeEditor(w, self.scene, self.view, self.label_edit)
        self.editor.add_fields(self.edit_row)
        self.quality = QualityViews(self)
        self.scene.selectionChanged.connect(self._on_node_selection)
        self.qactions: dict[str, QAction] = {}
        self._build_actions()
        self.statusBar().showMessage("Loading the model…")  # not a warning: Model ready replaces it
        self.messages = StatusMessages(self.statusBar())
        w.message.connect(self.messages.show)
        w.ambient.connect(self.messages.show_ambient)
        self.view.message.connect(lambda text: self.messages.show(text, 10000))
        w.problems.connect(self._show_problems)
        w.alarm.connect(self._alarm)
        self.background = CountLabel()  # a file read, how many sentences are decoded
        self.statusBar().addPermanentWidget(self.background)
        w.background.connect(self.background.setText)
        self.preparing = NoteLabel()  # the decoder compiling on a first start, and meanwhile
        self.statusBar().addPermanentWidget(self.preparing)
        self.engine.preparing.connect(self.preparing.say)
        self.alarm_box: QMessageBox | None = None
        self.closing = False
        w.opened.connect(self._opened)
        w.navigated.connect(self._navigated)
        w.redraw.connect(self._render)
        w.row.connect(self.sentences.model.refresh)
        w.step.connect(self.undo.push)
        self.models.changed.connect(self._show_model)
        self.restore_layout()
        ui_thread.start(self.engine.worker, self)

    @property
    def session(self):
        return self.workspace.session

    @property
    def current(self) -> int:
        return self.workspace.current

    @property
    def engine_ready(self) -> bool:
        return self.workspace.engine_ready

    @property
    def model_label(self) -> QLabel:
        """Which model decodes and why, in full."""
        return self.candidates.model

    def decoded_current(self) -> bool:
        return self.workspace.decoded_current()

    # -- construction ---------------------------------------------------------------------
    def _build_widgets(self) -> None:
        self.sentences = SentencePanel(self.workspace.show)
        self.scene = ParseScene(self)
        self.view = ParseView(self.scene, self.workspace.choosing)
        self.workspace.choosing.changed.connect(self.scene.show_choice)
        self.view.reattach_requested.connect(self.workspace.reattach_word)
        self.label_edit = QLineEdit()
        self.label_edit.setPlaceholderText("Select a phrase; type a label, Enter to relabel")
        self.title = QLabel()
        self.title.setWordWrap(True)
        self.legend = QLabel(legend_html())
        self.legend.setWordWrap(True)
        center = QWidget()
        lay = QVBoxLayout(center)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(self.title)
        self.edit_row = row = QHBoxLayout()
        row.addWidget(QLabel("Label:"))
        row.addWidget(self.label_edit, 1)
        lay.addLayout(row)
        lay.addWidget(self.view, 1)
        lay.addWidget(self.legend)
        self.candidates = CandidatePanel(self.workspace.pick)

        self.splitter = split = QSplitter()
        split.setObjectName("panels")
        for widget in (self.sentences, center, self.candidates):
            split.addWidget(widget)
        split.setChildrenCollapsible(False)
        self.sentences.setMinimumWidth(PANEL[0])
        self.candidates.setMinimumWidth(PANEL[1])
        self._panels_unset = True  # sized when first shown, at the width it is shown at
        split.setStretchFactor(1, 1)
        self.setCentralWidget(split)
        # Tab and Shift+Tab walk the four panels (the rest is reached by its own key)
        panels = (self.sentences.table, self.view, self.candidates.list, self.label_edit)
        for a, b in itertools.pairwise(panels):
            QWidget.setTabOrder(a, b)

        self.problems = QTableWidget(0, 3)
        self.problems.setHorizontalHeaderLabels(["File", "Line", "Problem"])
        self.problems.horizontalHeader().setStretchLastSection(True)
        self.problems.verticalHeader().hide()
        self.problems.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.problems.setFocusPolicy(Qt.ClickFocus)
        self.problems_dock = QDockWidget("Problems", self)
        self.problems_dock.setObjectName("problems")
        self.problems_dock.setWidget(self.problems)
        self.addDockWidget(Qt.BottomDockWidgetArea, self.problems_dock)
        self.problems_dock.hide()

    def _slots(self) -> dict:
        """What each action of the registry does (``actions.ACTIONS``)."""
        w, ed, md, view = self.workspace, self.editor, self.model_dialogs, self.view
        return {
            "open": self.open_dialog,
            "save-project-as": self.save_project_as,
            "export-penn": lambda: self._export(".mrg", False),
            "export-corrected": lambda: self._export(".mrg", True),
            "export-conll": lambda: self._export(".corrected.conllu"),
            "batch": lambda: show_batch_dialog(self, self.model_path, self.models),
            "detached": self.show_detached,
            "compare": lambda: self.quality.compare_with(),
            "search": self.quality.show_search,
            "consistency": self.quality.show_consistency,
            "quit": self.close,
            "relabel": ed.focus_label,
            "edit-tag": ed.focus_tag,
            "edit-relation": ed.focus_relation,
            "delete": ed.delete_node,
            "insert": ed.insert_node,
            "make-head": ed.make_head,
            "reattach": view.start_reattach,
            "select-root": self.select_root,
            "revert-label": ed.revert_label,
            "mark-corrected": w.toggle_corrected,
            "next-uncorrected": w.next_uncorrected,
            "least-sure": self.least_sure_first,
            "filter": self.sentences.focus_filter,
            "zoom-in": lambda: view.zoom(1.25),
            "zoom-out": lambda: view.zoom(0.8),
            "fit-width": view.fit_width,
            "actual-size": view.reset_zoom,
            "zoom-selection": view.zoom_to_selection,
            "go-to-word": view.ask_word,
            "collapse": view.toggle_collapsed,
            "effort": self.show_effort,
            "retrain": md.show_retrain,
            "learning-curve": md.show_curve,
            "model-versions": md.show_versions,
            "export-model": lambda: md.export_dialog(),
            "keys": self.show_keys,
        }

    def _qaction(self, decl: actions.Action, slot, key: str | None = None) -> QAction:
        """A QAction for ``decl`` (only ``key`` when given: one of a family like 1-9)."""
        special = {"undo": lambda: self.undo_group.createUndoAction(self, decl.text),
                   "redo": lambda: self.undo_group.createRedoAction(self, decl.text),
                   "problems": self.problems_dock.toggleViewAction}
        action = special[decl.name]() if decl.name in special else QAction(decl.text, self)
        action.setCheckable(decl.checkable)
        if decl.name not in special:
            action.triggered.connect(slot)
        action.setText(decl.text)
        keys = [key] if key is not None else list(decl.keys)
        action.setShortcuts([QKeySequence(k) for k in keys])
        action.setStatusTip(decl.description[:1].upper() + decl.description[1:])
        owner = {actions.TREE: self.view, actions.LABEL: self.label_edit}.get(decl.scope, self)
        if owner is not self:
            action.setShortcutContext(Qt.WidgetWithChildrenShortcut)
        owner.addAction(action)
        return action

    def _build_actions(self) -> None:
        """Menus, toolbar and shortcuts, all from ``actions.ACTIONS``."""
        slots = self._slots()
        menus = {name: self.menuBar().addMenu("&" + name) for name in actions.MENUS}
        groups: dict[str, int] = {}
        toolbar = QToolBar("Main", self)
        toolbar.setObjectName("main-toolbar")
        self.addToolBar(toolbar)
        for decl in actions.ACTIONS:
            menu = menus.get(decl.menu)
            if menu is not None and groups.setdefault(decl.menu, decl.group) != decl.group:
                menu.addSeparator()
                groups[decl.menu] = decl.group
            if decl.name == "recent":
                self.recent_menu = menu.addMenu(decl.text)
                continue
            if decl.name == "pick":  # one action per key: the key says which candidate
                for n, key in enumerate(decl.keys):
                    self._qaction(decl, lambda checked=False, n=n: self.pick(n), key)
                continue
            action = self._qaction(decl, slots.get(decl.name))
            self.qactions[decl.name] = action
            if menu is not None:
                menu.addAction(action)
            if decl.toolbar:
                action.setIconText(decl.toolbar)
                toolbar.addAction(action)
        self.candidates.mark_button.clicked.connect(self.workspace.toggle_corrected)
        self.sentences.next_button.clicked.connect(self.workspace.next_uncorrected)
        self._refresh_recent()

    def pick(self, row: int) -> None:
        """Keys 1-9: show that candidate (when the list has it)."""
        if row < self.candidates.list.count():
            self.workspace.pick(row)

    def select_root(self) -> None:
        self.view.setFocus()
        self.scene.select_root()

    def least_sure_first(self, on: bool = False) -> None:
        """View > Least Sure First: Next uncorrected and the list's order both follow it."""
        self.workspace.least_sure_first = bool(on)
        self.sentences.proxy.order(self.workspace.sure_key if on else None)
        if self.workspace.current >= 0:
            self.sentences.select(self.workspace.current)

    # -- the workspace's events -----------------------------------------------------------
    def _opened(self) -> None:
        self.undo.clear()
        s = self.session
        self.sentences.model.set_session(s)
        self.scene.clear()
        self._show_model()  # what the panel says may depend on the file (predicted arcs)
        if s is None:  # closed, nothing in its place: nothing of the last file stays
            self.setWindowTitle("PAD Studio")
            self.title.clear()
            self.candidates.clear()
        else:
            self.setWindowTitle(f"{s.path.name} — PAD Studio")
            self.sentences.table.setFocus()  # the keyboard starts in the list
            if self.remember:
                QSettings().setValue("last/file", str(s.path.resolve()))
        self._refresh_recent()

    def _navigated(self, idx: int) -> None:
        self.undo.activate(idx)
        self.sentences.select(idx)
        if self.remember:
            QSettings().setValue("last/sentence", idx)

    def _on_node_selection(self) -> None:
        self.editor.selection_changed()

    def _show_model(self) -> None:
        text = self.models.describe_active()
        if self.models.loading:
            text += " (loading…)"
        text += self.workspace.arcs_note() + self.workspace.label_warning()
        self.model_label.setText(text)
        self.model_label.setToolTip(text)  # also where it was before it was shown in full

    def _show_problems(self, errors: list[InputError]) -> None:
        self.problems.setRowCount(len(errors))
        for r, e in enumerate(errors):
            for c, value in enumerate((e.path or "", "" if e.line is None else str(e.line),
                                       e.problem)):
                self.problems.setItem(r, c, QTableWidgetItem(value))
        self.problems.resizeColumnToContents(1)
        self.problems_dock.setVisible(bool(errors))

    def _render(self, select: edits.Path | None = None, fit: bool = False) -> None:
        s, idx = self.session, self.current
        if s is None or idx < 0:
            return
        sent, view = s.sentences[idx], s.view(idx)
        decoded = s.decoded(idx)
        tree = s.shown_tree(idx)
        diff, edited = s.marks(idx)
        changed = {m for m, (a, b) in enumerate(zip(view.heads, sent.heads), 1) if a != b}
        changed |= {m for m, (a, b) in enumerate(zip(s.rels(idx), sent.rels), 1) if a != b}
        lifted = {}
        if isinstance(decoded, list) and decoded and view.tree is None:
            lifted = {lift.dependent: lift.new_head for lift in decoded[0].lifted}
        first = decoded[0].tree if isinstance(decoded, list) and decoded else None
        removed = removed_brackets(first, tree) if view.tree is None and first and tree else ()
        self.scene.show_sentence(sent.forms, s.tags(idx), list(view.heads), s.rels(idx), tree,
                                 diff, changed, lifted, edited, removed)
        self.workspace.choosing.show(sent.forms, view.heads)
        if select is not None:
            self.scene.select_path(select)
        if fit:
            self.view.show_new()
        state = s.state(idx)
        sid = f" · {sent.sent_id}" if sent.sent_id else ""
        text = s.text(idx)
        shown = text if len(text) <= TITLE_CHARS else text[:TITLE_CHARS].rsplit(" ", 1)[0] + " …"
        self.title.setText(f"<b>Sentence {idx + 1}</b> of {len(s)}{html.escape(sid)} · "
                           f"{len(sent)} words · {state}<br>{html.escape(shown)}")
        self.title.setToolTip("" if shown == text else html.escape(text[:TITLE_TIP_CHARS]))
        self.candidates.show_candidates(decoded, view, sent.forms, s.is_corrected(idx),
                                        self.workspace.model_problem, s.from_file.get(idx))
        self.editor.selection_changed()

    # -- files ----------------------------------------------------------------------------
    def open_dialog(self) -> None:
        start = str(self.session.path.parent) if self.session else ""
        dialog = OpenDialog(self, start)
        chosen = dialog.exec() and dialog.selectedFiles()
        self.activateWindow()  # the keyboard comes back to this window, not to nowhere
        if chosen:
            self.open_path(chosen[0], encoding=dialog.encoding(), headrules=dialog.headrules(),
                           tokenize=dialog.tokenize())

    def open_path(self, path: str | Path, project: str | Path | None = None,
                  encoding: str | None = None, headrules: str | None = None,
                  tokenize: bool = True, start: int = 0) -> bool:
        """Open a treebank and its project (see ``Workspace.open``)."""
        return self.workspace.open(path, project, encoding, headrules, tokenize, start)

    def go_to(self, idx: int) -> None:
        """Put sentence ``idx`` on screen (selected in the list)."""
        self.workspace.show(idx)

    def _refresh_recent(self) -> None:
        self.recent_menu.clear()
        recent = self.workspace.projects.recent()
        for p in recent:
            action = self.recent_menu.addAction(p)
            action.triggered.connect(lambda checked=False, p=p: self.open_path(p))
        self.recent_menu.setEnabled(bool(recent))

    def save_project_as(self) -> None:
        if self.session is None:
            return
        path, _ = QFileDialog.getSaveFileName(self, "Save project as", str(
            self.session.store.path), "PAD projects (*.padproject)")
        if path:
            self.workspace.save_project_as(path)

    def _export(self, suffix: str, corrected_only: bool | None = None) -> None:
        """Ask where, then export Penn trees (all or corrected) or, with no
        ``corrected_only``, the dependencies."""
        if self.session is None:
            return
        penn = corrected_only is not None
        title, filters = (("Export Penn trees", "Penn trees (*.mrg *.ptb *.txt)") if penn else
                          ("Export dependencies", "CoNLL files (*.conllu *.conll)"))
        path, _ = QFileDialog.getSaveFileName(self, title, proposed(
            self.session.path, self.session.path.with_suffix(suffix).name), filters)
        if path and penn:
            self.workspace.exports.penn(path, corrected_only)
        elif path:
            self.workspace.exports.conll(path)

    def dragEnterEvent(self, event) -> None:
        if any(u.isLocalFile() for u in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:
        files = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if files:
            event.acceptProposedAction()
            self.open_path(files[0])

    # -- the layout, remembered -----------------------------------------------------------
    def restore_layout(self) -> None:
        """The size, position, panels and zoom of the last session; the first time, fit the
        screen (its available part: no task bar or dock hidden behind the window)."""
        settings = QSettings()
        geometry = settings.value("window/geometry")
        if geometry is None or not self.restoreGeometry(geometry):
            self.fit_screen()
        state = settings.value("window/state")
        if state is not None:
            self.restoreState(state)
        panels = settings.value("window/panels")
        self._panels_unset = panels is None or not self.splitter.restoreState(panels)
        if settings.value("view/fitting", "true") == "false":
            self.view.set_zoom(float(settings.value("view/zoom", 1.0)))

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._panels_unset:
            self._panels_unset = False
            width = self.splitter.width()
            side = (max(PANEL[0], width // 5), max(PANEL[1], width * 18 // 100))
            self.splitter.setSizes([side[0], width - sum(side), side[1]])

    def fit_screen(self) -> None:
        """Cover the screen's available area, leaving room for a window manager's frame."""
        screen = self.screen() or QGuiApplication.primaryScreen()
        room = screen.availableGeometry()
        self.resize(max(400, room.width() - FRAME[0]), max(300, room.height() - FRAME[1]))
        self.move(room.topLeft())

    def save_layout(self) -> None:
        settings = QSettings()
        settings.setValue("window/geometry", self.saveGeometry())
        settings.setValue("window/state", self.saveState())
        settings.setValue("window/panels", self.splitter.saveState())
        settings.setValue("view/fitting", "true" if self.view.fitting else "false")
        settings.setValue("view/zoom", self.view.factor)

    def closeEvent(self, event) -> None:
        if self.remember:
            self.save_layout()
        self.retraining.stop()
        self.closing = True
        self.workspace.abandon_reading()
        self.workspace.close()
        self.engine.stop()
        super().closeEvent(event)

    def _alarm(self, text: str) -> None:
        """The project refused a write: an error dialog at once, not a line in the status
        bar (window-modal and not waited for, so the edit in hand completes; on its own
        when the window is closing, so that it stays up)."""
        self.alarm_box = QMessageBox(QMessageBox.Warning, "Project not saved", text,
                                     parent=None if self.closing else self)
        if self.closing:
            self.alarm_box.show()
        else:
            self.alarm_box.open()

    # -- help and effort ------------------------------------------------------------------
    def show_keys(self) -> None:
        self.keys_box = HelpDialog("Keys and mouse", actions.help_html(), self)
        bring_to_front(self.keys_box)

    def show_detached(self) -> None:
        if self.detached_dialog is None:
            self.detached_dialog = DetachedDialog(self.workspace, self)
        self.detached_dialog.refresh()
        self.detached_dialog.show()

    def show_effort(self) -> None:
        if self.session is None:
            return
        self.workspace.book_time()
        self.effort_dialog = EffortDialog(self.session, self)
        bring_to_front(self.effort_dialog)
