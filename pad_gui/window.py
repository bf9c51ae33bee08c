"""The main window: sentence list, parse view, candidates, edits, project, exports."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from pad_resources import resource_path
from PySide6.QtCore import (
    QItemSelectionModel,
    QSettings,
    QStandardPaths,
    Qt,
    QTimer,
)
from PySide6.QtGui import QAction, QFontDatabase, QKeySequence, QUndoGroup, QUndoStack
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDockWidget,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QMessageBox,
    QPushButton,
    QSplitter,
    QTableView,
    QTableWidget,
    QTableWidgetItem,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from pad_engine import edits
from pad_engine.conll import read_conll
from pad_engine.deptree import tree_problem
from pad_engine.errors import InputError, PadError
from pad_engine.lextree import induced_heads
from pad_engine.model import Model
from pad_gui import exports
from pad_gui.batch_dialog import add_batch_action
from pad_gui.commands import ViewCommand
from pad_gui.dialogs import EffortDialog, InsertDialog, label_completer
from pad_gui.model_versions import ModelControl
from pad_gui.parse_view import ParseScene, ParseView
from pad_gui.qtcompat import protect_singletons
from pad_gui.sentence_list import SentenceFilter, SentenceModel
from pad_gui.session import CORRECTED, MACHINE, Session, View
from pad_gui.store import ProjectStore
from pad_gui.worker import BACKGROUND, NOW, SOON, EngineThread

KEYS = """<table>
<tr><td>Up/Down, PageUp/PageDown</td><td>previous/next sentence (in the list)</td></tr>
<tr><td>F8</td><td>next sentence not yet corrected</td></tr>
<tr><td>Ctrl+Enter</td><td>mark the sentence corrected (again: back to machine)</td></tr>
<tr><td>click, Ctrl+click</td><td>select a node, add adjacent siblings</td></tr>
<tr><td>arrow keys, Shift+Left/Right</td><td>parent, head child, siblings; extend the run</td></tr>
<tr><td>F2, type, Enter</td><td>relabel the selected node (type-ahead)</td></tr>
<tr><td>Delete</td><td>delete the selected phrase (children move up)</td></tr>
<tr><td>Insert</td><td>insert a phrase over the selected siblings</td></tr>
<tr><td>H</td><td>make the selected node the head of its parent</td></tr>
<tr><td>drag a word onto a word</td><td>re-attach it there (re-decodes the tree)</td></tr>
<tr><td>Ctrl+Z, Ctrl+Shift+Z</td><td>undo, redo</td></tr>
<tr><td>Ctrl+wheel, Ctrl+0, drag background</td><td>zoom, zoom to fit, pan</td></tr>
</table>"""
MAX_RECENT = 8
PREFETCH = 3  # sentences after the current one decoded ahead of the background pass
MIN_VISIT = 1.0  # seconds
POLL_MS = 15  # how often the engine thread's results are taken in


def default_project_path(treebank: Path) -> Path:
    """``FILE.padproject`` next to the treebank; in the app's data folder when that folder
    is not writable or holds the bundled sample (never write into the package)."""
    treebank = treebank.resolve()
    bundled = resource_path().resolve()
    if os.access(treebank.parent, os.W_OK) and bundled not in treebank.parents:
        return treebank.with_name(treebank.name + ".padproject")
    folder = Path(QStandardPaths.writableLocation(QStandardPaths.AppDataLocation))
    folder.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha1(str(treebank).encode()).hexdigest()[:10]
    return folder / f"{treebank.stem}-{digest}.padproject"


class MainWindow(QMainWindow):
    """PAD Studio's one window."""

    def __init__(self, model_path: str | Path | None = None):
        protect_singletons()
        super().__init__()
        self.setWindowTitle("PAD Studio")
        self.setAcceptDrops(True)
        self.session: Session | None = None
        self.current = -1
        self._serial = 0
        self._since = time.monotonic()
        self._stacks: dict[int, QUndoStack] = {}
        self._pending_reattach: tuple[int, View, View] | None = None
        self._filling = False
        self._jobs: dict[int, str | Callable[[object], None]] = {}  # what, or what to call
        self.labels: list[str] = []
        self.model_problem: str | None = None
        self.exported: list[str] = []  # what each finished export wrote, in order
        self.engine_ready = False
        self.undo_group = QUndoGroup(self)
        self.model_path = model_path
        self.models = ModelControl(self, model_path)

        self._build_widgets()
        self._build_actions()
        self.engine = EngineThread(model_path, self)
        self.engine.start()
        self._poll = QTimer(self)
        self._poll.timeout.connect(self._take_results)
        self._poll.start(POLL_MS)
        self.statusBar().showMessage("Loading the model…")
        self.model_label = QLabel()
        self.statusBar().addPermanentWidget(self.model_label)
        self.models.changed.connect(self._show_model)

    # -- construction ---------------------------------------------------------------------
    def _build_widgets(self) -> None:
        self.model = SentenceModel()
        self.proxy = SentenceFilter(self)
        self.proxy.setSourceModel(self.model)
        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Filter sentences…")
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(self.proxy.setFilterFixedString)
        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.horizontalHeader().setStretchLastSection(True)
        for col, width in enumerate((44, 36, 72)):
            self.table.setColumnWidth(col, width)
        self.table.selectionModel().currentRowChanged.connect(self._on_row_changed)
        self.next_button = QPushButton("Next uncorrected (F8)")
        left = QWidget()
        lay = QVBoxLayout(left)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(self.filter)
        lay.addWidget(self.table)
        lay.addWidget(self.next_button)

        self.scene = ParseScene(self)
        self.view = ParseView(self.scene)
        self.view.reattach_requested.connect(self.reattach)
        self.scene.selectionChanged.connect(self._on_node_selection)
        self.label_edit = QLineEdit()
        self.label_edit.setPlaceholderText("Select a phrase; type a label, Enter to relabel")
        self.label_edit.returnPressed.connect(self._relabel_from_editor)
        self.title = QLabel()
        self.title.setWordWrap(True)
        center = QWidget()
        lay = QVBoxLayout(center)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(self.title)
        row = QHBoxLayout()
        row.addWidget(QLabel("Label:"))
        row.addWidget(self.label_edit, 1)
        lay.addLayout(row)
        lay.addWidget(self.view, 1)

        self.candidates = QListWidget()
        self.candidates.setFont(QFontDatabase.systemFont(QFontDatabase.FixedFont))
        self.candidates.currentRowChanged.connect(self._on_candidate_row)
        self.candidate_note = QLabel()
        self.candidate_note.setWordWrap(True)
        self.mark_button = QPushButton("Mark corrected (Ctrl+Enter)")
        self.mark_button.setCheckable(True)
        right = QWidget()
        lay = QVBoxLayout(right)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(QLabel("Candidates: model score, brackets not in the first"))
        lay.addWidget(self.candidates, 1)
        lay.addWidget(self.candidate_note)
        lay.addWidget(self.mark_button)

        split = QSplitter()
        split.addWidget(left)
        split.addWidget(center)
        split.addWidget(right)
        split.setSizes([330, 1000, 290])
        split.setStretchFactor(1, 1)
        self.setCentralWidget(split)

        self.problems = QTableWidget(0, 3)
        self.problems.setHorizontalHeaderLabels(["File", "Line", "Problem"])
        self.problems.horizontalHeader().setStretchLastSection(True)
        self.problems.verticalHeader().hide()
        self.problems.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.problems_dock = QDockWidget("Problems", self)
        self.problems_dock.setObjectName("problems")
        self.problems_dock.setWidget(self.problems)
        self.addDockWidget(Qt.BottomDockWidgetArea, self.problems_dock)
        self.problems_dock.hide()

    def _action(self, menu, text: str, slot, shortcut=None, tip: str = "") -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            if isinstance(shortcut, list):
                action.setShortcuts(shortcut)
            else:
                action.setShortcut(shortcut)
        if tip:
            action.setStatusTip(tip)
        action.triggered.connect(slot)
        menu.addAction(action)
        self.addAction(action)
        return action

    def _build_actions(self) -> None:
        bar = self.menuBar()
        m = bar.addMenu("&File")
        self._action(m, "&Open…", self.open_dialog, QKeySequence.Open,
                     "Open a CoNLL-X or CoNLL-U file")
        self.recent_menu = m.addMenu("Open &Recent")
        self._action(m, "Save Project &As…", self.save_project_as, None,
                     "Keep this treebank's annotation project in another file")
        m.addSeparator()
        self._action(m, "Export &Penn Trees…", lambda: self.export_penn(None, False),
                     QKeySequence("Ctrl+Shift+E"),
                     "Every sentence: the corrected tree, else the picked candidate")
        self._action(m, "Export &Corrected Set…", lambda: self.export_penn(None, True), None,
                     "Only the sentences marked corrected")
        self._action(m, "Export &Dependencies (CoNLL)…", lambda: self.export_conll(None), None,
                     "The file with the corrected arcs written back")
        m.addSeparator()
        add_batch_action(m, self, self.model_path)
        m.addSeparator()
        self._action(m, "&Quit", self.close, QKeySequence.Quit)

        m = bar.addMenu("&Edit")
        undo = self.undo_group.createUndoAction(self, "&Undo")
        undo.setShortcut(QKeySequence.Undo)
        redo = self.undo_group.createRedoAction(self, "&Redo")
        redo.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        for action in (undo, redo):
            m.addAction(action)
            self.addAction(action)
        m.addSeparator()
        self._action(m, "Re&label Node", self.focus_label, QKeySequence("F2"))
        self._action(m, "&Delete Node", self.delete_node, QKeySequence.Delete,
                     "Remove the selected phrase; its children move up")
        self._action(m, "&Insert Node…", self.insert_node, QKeySequence("Insert"),
                     "A new phrase over the selected adjacent siblings")
        self._action(m, "Make &Head of Parent", self.make_head, QKeySequence("H"),
                     "The selected node becomes its parent's head child")
        m.addSeparator()
        self.mark_action = self._action(m, "&Mark Corrected", self.toggle_corrected,
                                        [QKeySequence("Ctrl+Return"), QKeySequence("Ctrl+Enter")])
        self.mark_button.clicked.connect(self.toggle_corrected)

        m = bar.addMenu("&View")
        self._action(m, "&Next Uncorrected", self.next_uncorrected, QKeySequence("F8"))
        self.next_button.clicked.connect(self.next_uncorrected)
        m.addSeparator()
        self._action(m, "Zoom &In", lambda: self.view.zoom(1.25), QKeySequence.ZoomIn)
        self._action(m, "Zoom &Out", lambda: self.view.zoom(0.8), QKeySequence.ZoomOut)
        self._action(m, "Zoom to &Fit", self.view.zoom_to_fit, QKeySequence("Ctrl+0"))
        self._action(m, "&Actual Size", self.view.reset_zoom, QKeySequence("Ctrl+1"))
        m.addSeparator()
        self._action(m, "&Effort Summary…", self.show_effort, QKeySequence("Ctrl+I"))
        m.addAction(self.problems_dock.toggleViewAction())

        self._build_model_menu(bar.addMenu("&Model"))

        m = bar.addMenu("&Help")
        self._action(m, "&Keys and Mouse", self.show_keys, QKeySequence.HelpContents)
        self._refresh_recent()

    def _build_model_menu(self, m) -> None:
        """Model: retrain on the corrected sentences, the learning curve, model versions."""
        retrain = self._action(m, "&Retrain on Corrected Sentences…", self.models.show_retrain,
                               QKeySequence("Ctrl+R"),
                               "Train a new model on the sentences marked corrected")
        self._action(m, "&Learning Curve…", self.models.show_curve, None,
                     "Cross-validated F1 against the number of corrected trees")
        self._action(m, "Model &Versions…", self.models.show_versions, None,
                     "The models retrained in this project; use or export one")
        self._action(m, "&Export Model File…", lambda: self.models.export_dialog(), None,
                     "Write the current model for pad convert --model")
        retrain.setIconText("Retrain…")
        toolbar = QToolBar("Model", self)
        toolbar.setObjectName("model-toolbar")
        toolbar.addAction(retrain)
        self.addToolBar(toolbar)

    def use_model(self, load: Callable[[], Model], name: str,
                  failed: Callable[[], None] | None = None) -> None:
        """Decode with ``load()``'s model from now on: the sentences not corrected are
        decoded again (their candidates refresh); corrected ones keep theirs. If it cannot
        be loaded, the previous model stays and ``failed`` is called."""
        self.engine.drop_pending()
        self._serial += 1
        self._jobs[self.engine.swap_model(load)] = \
            lambda error: self._on_model_used(error, name, failed)
        s = self.session
        if s is None:
            return
        s.renew(self._serial)
        if self._pending_reattach is not None:
            idx, _, after = self._pending_reattach
            self.engine.request(s.key(idx, after), s.with_heads(idx, after.heads), NOW)
        if self.current >= 0:
            self._request(self.current, NOW)
        for idx in range(len(s)):
            self._request(idx, BACKGROUND)
        self._render()

    def _on_model_used(self, error: Exception | None, name: str,
                       failed: Callable[[], None] | None) -> None:
        if error is not None:
            self.statusBar().showMessage(f"Cannot use model {name}: {error}", 10000)
            if failed is not None:
                failed()
            return
        self._on_engine_ready("")
        self._show_model()
        warning = self._label_warning()
        self.statusBar().showMessage(f"Decoding with model {name}" + warning,
                                     15000 if warning else 5000)

    def _show_model(self) -> None:
        text = self.models.describe_active()
        self.model_label.setText(text if len(text) < 90 else text[:88] + "…")
        self.model_label.setToolTip(text)

    # -- engine ---------------------------------------------------------------------------
    def _on_engine_ready(self, problem: str) -> None:
        self.engine_ready = True
        self.model_problem = problem or None
        if problem:
            self.statusBar().showMessage(f"No model: {problem} (arcs only)")
        else:
            self.labels = self.engine.engine.labels()
            self.label_edit.setCompleter(label_completer(self.labels, self.label_edit))
            self._show_model()
            self.statusBar().showMessage("Model ready", 3000)
        if self.current >= 0:
            self._render()

    def _request(self, idx: int, priority: int) -> None:
        s = self.session
        if s is not None and s.key(idx) not in s.cache:
            self.engine.request(s.key(idx), s.with_heads(idx, s.view(idx).heads), priority)

    def _take_results(self) -> None:
        for kind, key, result in self.engine.take_results():
            if kind == "decoded":
                self._on_decoded(key, result)
            elif kind == "ready":
                self._on_engine_ready(key)
            else:
                self._on_job_done(key, result)

    def _on_decoded(self, key, result) -> None:
        s = self.session
        if s is None or key[0] != s.serial:
            return
        s.cache[key] = result
        _, idx, heads = key
        pending = self._pending_reattach
        if pending is not None and pending[0] == idx and pending[2].heads == heads:
            self._pending_reattach = None
            self._push(idx, pending[1], pending[2], "reattach", "Re-attach word")
            return
        if idx == self.current and heads == s.view(idx).heads:
            self._render(fit=True)

    def decoded_current(self) -> bool:
        """Whether the sentence on screen has its candidates (or its decode error)."""
        s = self.session
        return s is not None and self.current >= 0 and s.decoded(self.current) is not None

    # -- files ----------------------------------------------------------------------------
    def open_dialog(self) -> None:
        start = str(self.session.path.parent) if self.session else ""
        path, _ = QFileDialog.getOpenFileName(
            self, "Open treebank", start,
            "CoNLL files (*.conllu *.conll *.conllx *.txt);;All files (*)")
        if path:
            self.open_path(path)

    def open_path(self, path: str | Path, project: str | Path | None = None) -> bool:
        """Open a treebank (bad sentences go to the Problems panel) and its project
        (``project``, else the one last used with this treebank, else FILE.padproject)."""
        path = Path(path)
        try:
            result = read_conll(path, on_error="skip")
        except (OSError, InputError) as e:
            return self._cannot_open(path, str(e))
        if project is None:
            mapped = QSettings().value(f"projects/{path.resolve()}")
            project = Path(mapped) if mapped else default_project_path(path)
        else:
            QSettings().setValue(f"projects/{path.resolve()}", str(Path(project).resolve()))
        try:
            session = Session(path, result, ProjectStore(project), self._serial + 1)
        except (sqlite3.Error, OSError, ValueError) as e:
            return self._cannot_open(path, f"its project {project} cannot be used: {e}")
        self._close_session()
        self._serial += 1
        self.engine.drop_pending()
        self.session = session
        self.model.set_session(self.session)
        self.models.restore()
        self._show_problems(result.skipped)
        self.setWindowTitle(f"{path.name} — PAD Studio")
        self._remember_recent(path)
        if len(self.session):
            self.go_to(0)
            for idx in range(len(self.session)):
                self._request(idx, BACKGROUND)
        else:
            self.scene.clear()
        bad = f", {len(result.skipped)} malformed (see Problems)" if result.skipped else ""
        warning = self._label_warning()
        self.statusBar().showMessage(f"{len(self.session)} sentences{bad}" + warning,
                                     15000 if warning else 5000)
        return True

    def _label_warning(self) -> str:
        """"; warning" when the model reads labels this file mostly lacks, else ""."""
        engine = self.engine.engine if self.engine_ready else None
        if engine is None or self.session is None:
            return ""
        warning = engine.label_warning(self.session.sentences)
        return f"; {warning}" if warning else ""

    def _cannot_open(self, path: Path, why: str) -> bool:
        self._show_problems([InputError(why, str(path))])
        self.statusBar().showMessage(f"Cannot open {path}: {why}")
        return False

    def _close_session(self) -> None:
        if self.session is None:
            return
        self._count_time()
        self.session.store.close()
        self.session = None
        self.current = -1
        for stack in self._stacks.values():
            self.undo_group.removeStack(stack)
            stack.deleteLater()
        self._stacks.clear()
        self._pending_reattach = None

    def _show_problems(self, errors: list[InputError]) -> None:
        self.problems.setRowCount(len(errors))
        for r, e in enumerate(errors):
            for c, value in enumerate((e.path or "", "" if e.line is None else str(e.line),
                                       e.problem)):
                self.problems.setItem(r, c, QTableWidgetItem(value))
        self.problems.resizeColumnToContents(1)
        self.problems_dock.setVisible(bool(errors))

    @staticmethod
    def _recent() -> list[str]:
        recent = QSettings().value("recent") or []
        return [recent] if isinstance(recent, str) else list(recent)  # one entry reads as str

    def _remember_recent(self, path: Path) -> None:
        recent = [p for p in self._recent() if p != str(path.resolve())]
        QSettings().setValue("recent", [str(path.resolve()), *recent][:MAX_RECENT])
        self._refresh_recent()

    def _refresh_recent(self) -> None:
        self.recent_menu.clear()
        recent = self._recent()
        for p in recent:
            action = self.recent_menu.addAction(p)
            action.triggered.connect(lambda checked=False, p=p: self.open_path(p))
        self.recent_menu.setEnabled(bool(recent))

    def save_project_as(self) -> None:
        if self.session is None:
            return
        path, _ = QFileDialog.getSaveFileName(self, "Save project as", str(
            self.session.store.path), "PAD projects (*.padproject)")
        if not path:
            return
        store = self.session.store.copy_to(path)
        self.session.store.close()
        self.session.store = store
        QSettings().setValue(f"projects/{self.session.path.resolve()}", str(Path(path)))
        self.statusBar().showMessage(f"Project saved as {path}", 5000)

    def dragEnterEvent(self, event) -> None:
        if any(u.isLocalFile() for u in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:
        files = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if files:
            event.acceptProposedAction()
            self.open_path(files[0])

    def closeEvent(self, event) -> None:
        self.models.shutdown()
        self._poll.stop()
        self._close_session()
        self.engine.stop()
        super().closeEvent(event)

    # -- navigation -----------------------------------------------------------------------
    def go_to(self, idx: int) -> None:
        """Select sentence ``idx`` in the list (clearing a filter that hides it)."""
        source = self.model.index(idx, 0)
        proxied = self.proxy.mapFromSource(source)
        if not proxied.isValid():
            self.filter.clear()
            proxied = self.proxy.mapFromSource(source)
        self.table.selectionModel().setCurrentIndex(
            proxied, QItemSelectionModel.ClearAndSelect | QItemSelectionModel.Rows)
        self.table.scrollTo(proxied)

    def next_uncorrected(self) -> None:
        s = self.session
        if s is None:
            return
        n = len(s)
        for step in range(1, n + 1):
            idx = (self.current + step) % n
            if not s.is_corrected(idx):
                self.go_to(idx)
                return
        self.statusBar().showMessage("Every sentence is corrected", 5000)

    def _on_row_changed(self, current, previous) -> None:
        if not current.isValid() or self.session is None:
            return
        idx = self.proxy.mapToSource(current).row()
        if idx == self.current:
            return
        self._count_time()
        self.engine.pause_background()
        self.current = idx
        if idx not in self._stacks:
            self._stacks[idx] = QUndoStack(self.undo_group)
        self.undo_group.setActiveStack(self._stacks[idx])
        self._request(idx, NOW)
        for nxt in range(idx + 1, min(idx + 1 + PREFETCH, len(self.session))):
            self._request(nxt, SOON)
        self._render(fit=True)

    def _count_time(self) -> None:
        """Book the time since the last booking to the sentence on screen (a glance of
        under a second while scrolling past is not annotation work)."""
        now = time.monotonic()
        if self.session is not None and self.current >= 0 and now - self._since >= MIN_VISIT:
            self.session.add_time(self.current, now - self._since)
        self._since = now

    # -- drawing --------------------------------------------------------------------------
    def _render(self, select: edits.Path | None = None, fit: bool = False) -> None:
        s, idx = self.session, self.current
        if s is None or idx < 0:
            return
        sent, view = s.sentences[idx], s.view(idx)
        decoded = s.decoded(idx)
        tree = s.shown_tree(idx)
        diff: Counter = Counter()
        if tree is not None and isinstance(decoded, list) and decoded and (
                view.tree is not None or view.chosen > 0):
            diff = edits.brackets(tree) - edits.brackets(decoded[0].tree)
        changed = {m for m, (a, b) in enumerate(zip(view.heads, sent.heads), 1) if a != b}
        lifted = {}
        if isinstance(decoded, list) and decoded and view.tree is None:
            lifted = {lift.dependent: lift.new_head for lift in decoded[0].lifted}
        self.scene.show_sentence(sent.forms, sent.tags, list(view.heads), sent.rels, tree,
                                 diff, changed, lifted)
        if select is not None:
            self.scene.select_path(select)
        if fit:
            self.view.fit_width()
        state = "corrected" if s.is_corrected(idx) else "machine"
        sid = f" · {sent.sent_id}" if sent.sent_id else ""
        self.title.setText(f"<b>Sentence {idx + 1}</b> of {len(s)}{sid} · {len(sent)} words"
                           f" · {state}<br>{s.text(idx)}")
        self._fill_candidates(decoded, view)
        self.mark_button.setChecked(s.is_corrected(idx))
        self.mark_button.setText("Corrected ✓ (Ctrl+Enter)" if s.is_corrected(idx)
                                 else "Mark corrected (Ctrl+Enter)")
        self._on_node_selection()

    def _fill_candidates(self, decoded, view: View) -> None:
        self._filling = True
        self.candidates.clear()
        if isinstance(decoded, list):
            first = decoded[0].tree if decoded else None
            for i, c in enumerate(decoded):
                differs = len(edits.new_brackets(first, c.tree)) if i else 0
                more = f"   +{differs} bracket{'s' * (differs > 1)}" if differs else ""
                how = f"  ({c.how})" if c.how not in ("pruned", "exact") else ""
                item = QListWidgetItem(f"{i + 1:2d}.  {c.score:8.2f}{how}{more}")
                item.setToolTip(c.penn(self.session.sentences[self.current].forms))
                self.candidates.addItem(item)
            if view.tree is None and decoded:
                self.candidates.setCurrentRow(min(view.chosen, len(decoded) - 1))
            note = ("Edited tree (pick a candidate to discard the edits)"
                    if view.tree is not None else "")
            if decoded and decoded[0].lifted and view.tree is None:
                arcs = ", ".join(f"word {x.dependent} from {x.original_head} to {x.new_head}"
                                 for x in decoded[0].lifted)
                note = (f"Non-projective d-parse: the trees lift {arcs} (dashed arcs). "
                        "Re-attach to change it.")
        elif isinstance(decoded, PadError):
            note = f"No tree: {decoded}"
        elif self.model_problem:
            note = f"No model: {self.model_problem}"
        else:
            note = "Decoding…"
        self.candidate_note.setText(note)
        self._filling = False

    # -- editing --------------------------------------------------------------------------
    def _push(self, idx: int, before: View, after: View, kind: str, text: str,
              select: edits.Path | None = None) -> None:
        """One undo step; logs the action and saves (the command's redo applies it)."""
        self.session.log(idx, kind)
        self._stacks[idx].push(ViewCommand(self._apply, idx, before, after, text, select))

    def _apply(self, idx: int, view: View, select: edits.Path | None) -> None:
        s = self.session
        if s is None:
            return
        s.set_view(idx, view)
        self.model.refresh(idx)
        if s.key(idx) not in s.cache:
            self._request(idx, NOW)
        if idx != self.current:
            self.go_to(idx)
        self._render(select)

    def _on_candidate_row(self, row: int) -> None:
        s = self.session
        if self._filling or s is None or row < 0:
            return
        view = s.view(self.current)
        if view.tree is None and view.chosen == row:
            return
        after = View(view.heads, row, None)
        self._push(self.current, view, after, "pick", f"Pick candidate {row + 1}")

    def _edit(self, kind: str, text: str, change, select=None) -> bool:
        """Apply ``change(tree) -> tree`` as one undo step; a refused edit only explains."""
        s, idx = self.session, self.current
        tree = s.shown_tree(idx) if s is not None and idx >= 0 else None
        if tree is None:
            self.statusBar().showMessage("No tree to edit yet", 5000)
            return False
        try:
            new = change(tree)
        except ValueError as e:
            self.statusBar().showMessage(f"Cannot {text.lower()}: {e}", 8000)
            return False
        view = s.view(idx)
        heads = tuple(induced_heads(new, len(s.sentences[idx])))
        self._push(idx, view, View(heads, view.chosen, new), kind, text, select)
        return True

    def _selected(self) -> list[edits.Path]:
        return self.scene.selected_paths()

    def _one_selected(self, what: str) -> edits.Path | None:
        paths = self._selected()
        if len(paths) != 1:
            self.statusBar().showMessage(f"Select one node to {what}", 5000)
            return None
        return paths[0]

    def _on_node_selection(self) -> None:
        # The items' own nodes, not a look-up by path: while the scene is being rebuilt the
        # selection can still hold items of the previous tree.
        items = self.scene.selected_items()
        if len(items) == 1:
            self.label_edit.setText(items[0].node.label)
        else:
            self.label_edit.clear()
        self.scene.hover(None)

    def focus_label(self) -> None:
        self.label_edit.setFocus()
        self.label_edit.selectAll()

    def _relabel_from_editor(self) -> None:
        if self.relabel(self.label_edit.text()):
            self.view.setFocus()

    def relabel(self, label: str) -> bool:
        """Relabel the selected node (what typing in the label box and Enter does)."""
        path = self._one_selected("relabel")
        return path is not None and self._edit(
            "relabel", "Relabel", lambda t: edits.relabel(t, path, label), path)

    def delete_node(self) -> None:
        path = self._one_selected("delete")
        if path is not None:
            self._edit("delete", "Delete node", lambda t: edits.delete_node(t, path), path[:-1])

    def make_head(self) -> None:
        path = self._one_selected("make head")
        if path is None:
            return
        if not path:
            self.statusBar().showMessage("The root has no parent", 5000)
            return
        self._edit("head", "Change head",
                   lambda t: edits.set_head_child(t, path[:-1], path[-1])[0], path)

    def insert_node(self) -> None:
        paths = self._selected()
        tree = self.session.shown_tree(self.current) if self.session else None
        if not paths or tree is None:
            self.statusBar().showMessage("Select adjacent sibling nodes to insert over", 5000)
            return
        parent = paths[0][:-1] if paths[0] else None
        indices = [p[-1] for p in paths if p and p[:-1] == parent]
        if parent is None or len(indices) != len(paths) or \
                indices != list(range(indices[0], indices[-1] + 1)):
            self.statusBar().showMessage("Select adjacent siblings (same parent) to insert over",
                                         5000)
            return
        first, last = indices[0], indices[-1]
        node = edits.node_at(tree, parent)
        members = [c.label for c in node.children[first:last + 1]]
        fixed = node.head - first if first <= node.head <= last else None
        dialog = InsertDialog(self.labels, members, fixed, self)
        if dialog.exec() != QDialog.Accepted:
            return
        label, head = dialog.label.text(), dialog.head.currentIndex()
        self._edit("insert", "Insert node",
                   lambda t: edits.insert_node(t, parent, first, last, label,
                                               None if fixed is not None else head),
                   parent + (first,))

    def reattach(self, dep: int, head: int) -> None:
        """Make ``head`` the head of word ``dep`` and re-decode (one undo step)."""
        s, idx = self.session, self.current
        if s is None or idx < 0 or self._pending_reattach is not None:
            return
        view = s.view(idx)
        heads = list(view.heads)
        heads[dep - 1] = head
        problem = tree_problem(heads)
        if problem is not None:
            self.statusBar().showMessage(f"Cannot re-attach word {dep} to {head}: {problem}",
                                         8000)
            return
        after = View(tuple(heads))
        if s.key(idx, after) in s.cache:
            self._push(idx, view, after, "reattach", "Re-attach word")
            return
        self._pending_reattach = (idx, view, after)
        self.engine.request(s.key(idx, after), s.with_heads(idx, after.heads), NOW)
        self.statusBar().showMessage("Re-decoding…", 2000)

    def toggle_corrected(self) -> None:
        s, idx = self.session, self.current
        if s is None or idx < 0:
            return
        self._count_time()
        s.set_status(idx, MACHINE if s.is_corrected(idx) else CORRECTED)
        self.model.refresh(idx)
        self._render()

    def show_keys(self) -> None:
        self.keys_box = QMessageBox(QMessageBox.Information, "Keys and mouse", KEYS, parent=self)
        self.keys_box.setModal(False)
        self.keys_box.show()

    def show_effort(self) -> None:
        if self.session is None:
            return
        self._count_time()
        self.effort_dialog = EffortDialog(self.session, self)
        self.effort_dialog.show()

    # -- export ---------------------------------------------------------------------------
    def _ask(self, title: str, suffix: str, filters: str) -> str:
        start = str(self.session.path.with_suffix(suffix))
        path, _ = QFileDialog.getSaveFileName(self, title, start, filters)
        return path

    def export_penn(self, path: str | None, corrected_only: bool) -> None:
        """Write one Penn tree per line (see ``exports.penn_job``), on the engine thread."""
        s = self.session
        if s is None:
            return
        if path is None:
            path = self._ask("Export Penn trees", ".mrg", "Penn trees (*.mrg *.ptb *.txt)")
            if not path:
                return
        what = "corrected Penn trees" if corrected_only else "Penn trees"
        self._jobs[self.engine.submit(exports.penn_job(s, path, corrected_only))] = what
        self.statusBar().showMessage(f"Exporting to {path}…")

    def _on_job_done(self, job: int, result) -> None:
        what = self._jobs.pop(job, "job")
        if callable(what):
            what(result)
            return
        if isinstance(result, Exception):
            message = f"Export of {what} failed: {result}"
        else:
            written, problems = result
            message = f"Exported {written} {what}"
            if problems:
                message += f"; {len(problems)} without a tree (empty lines): {problems[0]}"
        self.statusBar().showMessage(message, 10000)
        self.exported.append(message)

    def export_conll(self, path: str | None) -> None:
        """The treebank with corrected arcs written back (everything else byte-exact)."""
        s = self.session
        if s is None:
            return
        if path is None:
            path = self._ask("Export dependencies", ".corrected.conllu",
                             "CoNLL files (*.conllu *.conll)")
            if not path:
                return
        try:
            message = exports.write_dependencies(s, path)
        except (OSError, ValueError) as e:
            message = f"Export failed: {e}"
        self.statusBar().showMessage(message, 10000)
        self.exported.append(message)
