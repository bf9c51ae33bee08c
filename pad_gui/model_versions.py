"""Model versions: the models retrained in a project, which one decodes, and their files.

Version 0 is the model the app started with: the one ``--model`` named or else, per file,
the bundled model that fits the file (UD or Collins-style d-parses), or the rule-based
projection when none does (``pad_engine.models.choose``). Every retrain adds a version to the
project file, with the model's own ``.padmodel`` bytes, so switching back, exporting and
reopening need nothing else.
"""

from __future__ import annotations

import datetime
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from pad_engine.atomic import atomic_open
from pad_engine.errors import PadError
from pad_engine.model import Model, default_model_path
from pad_engine.models import Choice, choose
from pad_gui.learning_plot import LearningPlot
from pad_gui.store import BUNDLED, SCRATCH, ModelVersion, ProjectStore

if TYPE_CHECKING:
    from pad_gui.window import MainWindow

HEADERS = ("Version", "Created", "How trained", "Corrected", "Train s", "CV F1", "")


def model_bytes(model: Model) -> bytes:
    """The model's ``.padmodel`` file as bytes (Model.save writes files only)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "model.padmodel"
        model.save(path)
        return path.read_bytes()


def model_from_bytes(data: bytes) -> Model:
    """Inverse of :func:`model_bytes` (raises ModelError on damaged bytes)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "model.padmodel"
        path.write_bytes(data)
        return Model.load(path)


def describe(v: ModelVersion) -> str:
    """How a version was trained, in words."""
    if v.how == SCRATCH:
        return "from scratch"
    return f"continued from version {v.base}"


class ModelControl(QObject):
    """Which model version decodes in a window, and the versions of its project."""

    changed = Signal()  # a version was added, measured or chosen

    def __init__(self, window: MainWindow, startup_path: str | Path | None):
        super().__init__(window)
        self.window = window
        self.startup_path = startup_path
        self.choice: Choice | None = None  # what version 0 is for this file, when chosen
        self.active = BUNDLED
        self.retrain_dialog = None
        self.curve_dialog: QDialog | None = None
        self.versions_dialog: VersionsDialog | None = None

    @property
    def store(self) -> ProjectStore | None:
        s = self.window.session
        return s.store if s is not None else None

    @property
    def startup_name(self) -> str:
        if self.startup_path is not None:
            return Path(self.startup_path).name
        return self.choice.name if self.choice is not None else "bundled model"

    def describe_active(self) -> str:
        """Which model decodes, and why version 0 is the one it is, in words."""
        if self.active != BUNDLED:
            text = f"Model: version {self.active} (retrained in this project)"
        elif self.startup_path is None and self.choice is not None:
            text = f"Model: {self.choice.name}, for {self.choice.reason}"
        else:
            text = f"Model: {self.startup_name}"
        model = self.current_model()
        return text + ("; reads dependency labels" if model is not None and model.labels else "")

    def versions(self) -> list[ModelVersion]:
        return self.store.versions() if self.store is not None else []

    def curve(self) -> list[tuple[int, float]]:
        return self.store.learning_curve() if self.store is not None else []

    def current_model(self) -> Model | None:
        """The model decoding now (None when none could be loaded)."""
        return getattr(self.window.engine.engine, "model", None)  # None: no model, or rules

    def origin(self, version: int) -> int | None:
        """Where a chain of continued trainings started: BUNDLED, or None (from scratch)."""
        by_id = {v.id: v for v in self.versions()}
        while version in by_id:
            v = by_id[version]
            if v.how == SCRATCH:
                return None
            version = v.base if v.base is not None else BUNDLED
        return BUNDLED

    def startup_loader(self) -> Callable[[], object]:
        """Version 0's loader (run on the engine thread): the named model, or the converter
        that fits the open file."""
        if self.startup_path is not None:
            path = self.startup_path
            return lambda: Model.load(path)
        session = self.window.session
        if session is None:
            return lambda: Model.load(default_model_path())
        sentences = session.sentences

        def fitting():
            self.choice = choose(sentences)
            return self.choice.engine

        return fitting

    # -- changes ------------------------------------------------------------------------
    def add(self, how: str, base: int | None, sentences: int, seconds: float, data: bytes,
            model: Model) -> int:
        """Keep a freshly trained model as a new version and decode with it."""
        version = self.store.add_version(how, base, sentences, seconds, data)
        self.use(version, model)
        return version

    def set_cv(self, version: int, f1: float, folds: int) -> None:
        if self.store is not None:
            self.store.set_cv(version, f1, folds)
        self.changed.emit()

    def use(self, version: int, model: Model | None = None) -> None:
        """Decode with ``version`` from now on (uncorrected sentences are re-decoded)."""
        if version == BUNDLED:
            load = self.startup_loader()
            name = "version 0 (" + (self.startup_name if self.startup_path is not None
                                    else "the bundled model that fits this file") + ")"
        elif model is not None:
            load, name = (lambda: model), f"version {version}"
        else:
            data = self.store.version_bytes(version)
            load, name = (lambda: model_from_bytes(data)), f"version {version}"
        previous, store = self.active, self.store
        self.active = version
        if store is not None:
            store.choose_version(version)

        def failed() -> None:  # the engine kept the previous model
            if self.store is store and self.active == version:
                self.active = previous
                if store is not None:
                    store.choose_version(previous)
                self.changed.emit()

        self.window.use_model(load, name, failed)
        self.changed.emit()

    def restore(self) -> None:
        """A project was opened: stop a retrain of the previous one and decode with the
        version this project last chose."""
        if self.retrain_dialog is not None:
            self.retrain_dialog.stop()
        wanted = self.store.chosen_version() if self.store is not None else BUNDLED
        if wanted != self.active or (wanted == BUNDLED and self.startup_path is None):
            self.use(wanted)
        else:
            self.changed.emit()

    def export(self, version: int, path: str | Path) -> None:
        """Write a version's model file (atomically) for ``pad convert --model``."""
        if version == BUNDLED:
            if self.startup_path is None and self.choice is not None and self.choice.path is None:
                raise PadError("the rule-based projection has no model file")
            chosen = self.choice.path if self.choice is not None else None
            data = Path(self.startup_path or chosen or default_model_path()).read_bytes()
        else:
            data = self.store.version_bytes(version)
        with atomic_open(path, "wb") as out:
            out.write(data)

    def shutdown(self) -> None:
        """The window closes: no training thread may outlive it."""
        if self.retrain_dialog is not None:
            self.retrain_dialog.stop()

    # -- dialogs --------------------------------------------------------------------------
    def show_retrain(self) -> None:
        from pad_gui.retrain_dialog import RetrainDialog

        if self.retrain_dialog is None:
            self.retrain_dialog = RetrainDialog(self, self.window)
        _raise(self.retrain_dialog)

    def show_versions(self) -> None:
        if self.versions_dialog is None:
            self.versions_dialog = VersionsDialog(self, self.window)
        _raise(self.versions_dialog)

    def show_curve(self) -> None:
        if self.curve_dialog is None:
            dialog = QDialog(self.window)
            dialog.setWindowTitle("Learning curve")
            plot = LearningPlot(dialog)
            layout = QVBoxLayout(dialog)
            layout.addWidget(plot)
            dialog.plot = plot
            self.changed.connect(lambda: plot.set_points(self.curve()))
            self.curve_dialog = dialog
        self.curve_dialog.plot.set_points(self.curve())
        _raise(self.curve_dialog)

    def export_dialog(self, version: int | None = None) -> None:
        """Ask where to write a version's model file (the current one by default)."""
        version = self.active if version is None else version
        start = f"{self.window.session.path.stem}-v{version}.padmodel" \
            if self.window.session else f"model-v{version}.padmodel"
        path, _ = QFileDialog.getSaveFileName(self.window, "Export model file", start,
                                              "PAD models (*.padmodel)")
        if path:
            self.export_to(version, path)

    def export_to(self, version: int, path: str | Path) -> str:
        """Export and tell the annotator what happened (also returned)."""
        try:
            self.export(version, path)
            message = f"Model version {version} written to {path}"
        except (OSError, KeyError, PadError) as e:
            message = f"Cannot export model version {version}: {e}"
        self.window.statusBar().showMessage(message, 10000)
        return message


class VersionsDialog(QDialog):
    """Every version of the project's model: when and how trained, its CV F1; use one,
    export one."""

    def __init__(self, control: ModelControl, parent: QWidget | None = None):
        super().__init__(parent)
        self.control = control
        self.setWindowTitle("Model versions")
        self.resize(760, 360)
        self.table = QTableWidget(0, len(HEADERS))
        self.table.setHorizontalHeaderLabels(HEADERS)
        self.table.verticalHeader().hide()
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.doubleClicked.connect(self.use_selected)
        self.note = QLabel()
        self.note.setWordWrap(True)
        buttons = QDialogButtonBox()
        self.use_button = buttons.addButton("Use This Version", QDialogButtonBox.ActionRole)
        self.export_button = buttons.addButton("Export Model File…",
                                               QDialogButtonBox.ActionRole)
        close = buttons.addButton(QDialogButtonBox.Close)
        self.use_button.clicked.connect(self.use_selected)
        self.export_button.clicked.connect(lambda: control.export_dialog(self.selected()))
        close.clicked.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.note)
        layout.addWidget(buttons)
        control.changed.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        versions = self.control.versions()
        rows = [(str(BUNDLED), "", self.control.startup_name, "", "", "", BUNDLED)]
        for v in versions:
            created = datetime.datetime.fromtimestamp(v.created).strftime("%Y-%m-%d %H:%M:%S")
            f1 = f"{v.cv_f1:.2f} ({v.cv_folds}-fold)" if v.cv_f1 is not None else "—"
            rows.append((str(v.id), created, describe(v), str(v.sentences),
                         f"{v.seconds:.1f}", f1, v.id))
        self.table.setRowCount(len(rows))
        for r, (*cells, version) in enumerate(rows):
            cells.append("current" if version == self.control.active else "")
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setData(Qt.UserRole, version)
                self.table.setItem(r, c, item)
            if version == self.control.active:
                self.table.selectRow(r)
        self.table.resizeColumnsToContents()
        self.note.setText("Using another version re-decodes the sentences not yet corrected; "
                          "corrected sentences keep their trees.")

    def selected(self) -> int:
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return self.control.active
        return int(self.table.item(rows[0].row(), 0).data(Qt.UserRole))

    def use_selected(self) -> None:
        version = self.selected()
        if version != self.control.active:
            self.control.use(version)


def _raise(dialog: QDialog) -> None:
    dialog.show()
    dialog.raise_()
    dialog.activateWindow()
