"""The Model menu's windows: retrain, the learning curve, the versions of the project's
model (use one, export one). What they show and change lives in ``controllers.models`` and
``controllers.retraining``."""

from __future__ import annotations

import datetime

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QFileDialog,
    QMainWindow,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from pad_gui.controllers.exports import proposed
from pad_gui.controllers.models import BUNDLED, ModelVersions, describe
from pad_gui.controllers.retraining import Retraining
from pad_gui.dialogs import bring_to_front, table_layout
from pad_gui.learning_plot import LearningPlot
from pad_gui.retrain_dialog import RetrainDialog

HEADERS = ("Version", "Created", "How trained", "Corrected", "Train s",
           "CV F1 (vs the version in use then, same folds)", "")


class ModelDialogs:
    """Opens the Model menu's windows, one of each per main window."""

    def __init__(self, models: ModelVersions, retraining: Retraining, window: QMainWindow):
        self.models = models
        self.retraining = retraining
        self.window = window
        self.retrain: RetrainDialog | None = None
        self.curve: QDialog | None = None
        self.versions: VersionsDialog | None = None

    def show_retrain(self) -> None:
        if self.retrain is None:
            self.retrain = RetrainDialog(self.retraining, self.window)
        bring_to_front(self.retrain)

    def show_versions(self) -> None:
        if self.versions is None:
            self.versions = VersionsDialog(self.models, self, self.window)
        bring_to_front(self.versions)

    def show_curve(self) -> None:
        if self.curve is None:
            dialog = QDialog(self.window)
            dialog.setWindowTitle("Learning curve")
            plot = LearningPlot(dialog)
            layout = QVBoxLayout(dialog)
            layout.addWidget(plot)
            dialog.plot = plot
            self.models.changed.connect(lambda: plot.set_points(self.models.curve()))
            self.curve = dialog
        self.curve.plot.set_points(self.models.curve())
        bring_to_front(self.curve)

    def export_dialog(self, version: int | None = None) -> None:
        """Ask where to write a version's model file (the current one by default)."""
        version = self.models.active if version is None else version
        session = self.models.workspace.session
        start = proposed(session.path, f"{session.path.stem}-v{version}.padmodel") if session \
            else proposed(None, f"model-v{version}.padmodel")
        path, _ = QFileDialog.getSaveFileName(self.window, "Export model file", start,
                                              "PAD models (*.padmodel)")
        if path:
            self.models.export(version, path)


class VersionsDialog(QDialog):
    """Every version of the project's model: when and how trained, its CV F1; use one,
    export one."""

    def __init__(self, models: ModelVersions, dialogs: ModelDialogs,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.models = models
        self.setWindowTitle("Model versions")
        self.resize(760, 360)
        self.table, self.note, (self.use_button, self.export_button) = table_layout(
            self, HEADERS, "Using another version re-decodes the sentences not yet corrected; "
                           "corrected sentences keep their trees.",
            [("Use This Version", self.use_selected),
             ("Export Model File…", lambda: dialogs.export_dialog(self.selected()))])
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.doubleClicked.connect(self.use_selected)
        models.changed.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        bundled = self.models.bundled_f1()
        f1 = f"{bundled[0]:.2f} (on the last folds)" if bundled else ""
        rows = [(str(BUNDLED), "", self.models.startup_name, "", "", f1, BUNDLED)]
        for v in self.models.versions():
            created = datetime.datetime.fromtimestamp(v.created).strftime("%Y-%m-%d %H:%M:%S")
            f1 = f"{v.cv_f1:.2f} ({v.cv_folds}-fold)" if v.cv_f1 is not None else "—"
            if v.cv_f1 is not None and v.against_f1 is not None:
                f1 += f" vs {v.against_f1:.2f} (version {v.against})"
            rows.append((str(v.id), created, describe(v), str(v.sentences),
                         f"{v.seconds:.1f}", f1, v.id))
        self.table.setRowCount(len(rows))
        for r, (*cells, version) in enumerate(rows):
            cells.append("current" if version == self.models.active else "")
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setData(Qt.UserRole, version)
                self.table.setItem(r, c, item)
            if version == self.models.active:
                self.table.selectRow(r)
        self.table.resizeColumnsToContents()

    def selected(self) -> int:
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return self.models.active
        return int(self.table.item(rows[0].row(), 0).data(Qt.UserRole))

    def use_selected(self) -> None:
        version = self.selected()
        if version != self.models.active:
            self.models.use(version)

