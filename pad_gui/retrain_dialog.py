"""Model > Retrain on corrected sentences…: the face of ``controllers.retraining``.

From scratch or from the current model, with or without the file's dependency labels;
Start, progress, Cancel; the learning curve. The run and its messages live in the
controller; this dialog shows them and hands it the annotator's choices.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QGroupBox,
    QLabel,
    QProgressBar,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from pad_gui.controllers.models import BUNDLED
from pad_gui.controllers.retraining import FOLDS, Retraining, labels_offered
from pad_gui.dialogs import job_buttons
from pad_gui.learning_plot import LearningPlot

STEPS = 1000  # progress bar resolution
TRAINING = 1 / (FOLDS + 1)  # the bar's share for training; cross-validation trains FOLDS more


class RetrainDialog(QDialog):
    """The retrain controller's view."""

    def __init__(self, retraining: Retraining, parent: QWidget | None = None):
        super().__init__(parent)
        self.retraining = retraining
        self.models = retraining.models
        self.setWindowTitle("Retrain on corrected sentences")
        self.resize(560, 600)

        box = QGroupBox("Train")
        self.scratch = QRadioButton("From scratch: only the corrected trees")
        self.resume = QRadioButton()
        self.resume.setChecked(True)  # better at 5 to 200 trees (see controllers.retraining)
        self.how = QButtonGroup(self)
        self.how.addButton(self.scratch)
        self.how.addButton(self.resume)
        self.use_labels = QCheckBox("Learn from the dependency labels too (DEPREL column)")
        self.use_labels.setToolTip(
            "The model then reads each word's relation as well as its head: more accurate "
            "where the file's labels are consistent (UD relations on GUM: held-out F1 84.3 "
            "instead of 83.6); it expects files labeled the same way.")
        self.use_parser = QCheckBox("Retrain the d-parser on the corrected arcs too")
        self.use_parser.setToolTip(
            "The arcs of this file were predicted by a text model: adapt it to the corrected "
            "sentences; only if it scores better (cross-validated UAS) does it predict the "
            "arcs of the sentences not yet touched again.")
        self.data_label = QLabel()
        self.data_label.setWordWrap(True)
        lay = QVBoxLayout(box)
        lay.addWidget(self.scratch)
        lay.addWidget(self.resume)
        lay.addWidget(self.use_labels)
        lay.addWidget(self.use_parser)
        lay.addWidget(self.data_label)

        self.progress_bar = QProgressBar()
        self.progress_bar.setRange(0, STEPS)
        self.status_label = QLabel()
        self.status_label.setWordWrap(True)
        self.result_label = QLabel()
        self.result_label.setWordWrap(True)
        self.parser_label = QLabel()
        self.parser_label.setWordWrap(True)
        self.plot = LearningPlot()

        buttons, self.start_button, self.cancel_button, self.close_button = job_buttons(self)
        self.use_new_button = buttons.addButton("Use New Version", QDialogButtonBox.ActionRole)
        self.use_new_button.setToolTip("Decode with the version just trained although it did "
                                       "not score better than the one in use")
        self.use_new_button.clicked.connect(retraining.use_new)
        self.parser = retraining.parser
        self.use_parser_button = buttons.addButton("Use New Parser",
                                                   QDialogButtonBox.ActionRole)
        self.use_parser_button.setToolTip("Predict the untouched sentences' arcs with the "
                                          "d-parser just adapted although it did not score "
                                          "better")
        self.use_parser_button.clicked.connect(self.parser.use_new)

        layout = QVBoxLayout(self)
        layout.addWidget(box)
        layout.addWidget(self.progress_bar)
        layout.addWidget(self.status_label)
        layout.addWidget(self.result_label)
        layout.addWidget(self.parser_label)
        layout.addWidget(QLabel("<b>Learning curve</b>: cross-validated F1 after each retrain"))
        layout.addWidget(self.plot, 1)
        layout.addWidget(buttons)
        self._labels_for = None  # the session the labels box was last set up for
        self._running = None  # what the controls were last set up for
        self.models.changed.connect(self.refresh)
        retraining.workspace.row.connect(lambda idx: self.refresh())  # (un)marked sentence
        retraining.changed.connect(self.refresh)
        self.parser.changed.connect(self.refresh)
        self._parser_for = None  # the session the parser box was last set up for
        self.how.buttonToggled.connect(lambda *_: self.refresh())
        self.refresh()

    @property
    def running(self) -> bool:
        return self.retraining.running or self.parser.running

    @property
    def outcome(self) -> str:
        return self.retraining.outcome

    def refresh(self) -> None:
        """Show the current model, the corrected set, the run and the curve as they are."""
        r, m = self.retraining, self.models
        name = f"version {m.active}" + (f" ({m.startup_name})" if m.active == BUNDLED else "")
        self.resume.setText(f"Continue from the current model: {name}")
        if self.resume.isChecked() and m.current_model() is None and not m.loading:
            self.scratch.setChecked(True)  # the rule-based projection: nothing to continue
        self.use_new_button.setEnabled(not r.running and r.version is not None
                                       and not r.in_use and r.session is r.workspace.session)
        s = r.workspace.session
        trees = len(s.corrected_trees()) if s is not None else 0
        self.data_label.setText(
            f"{trees} corrected sentences with a tree" + (f" (of {len(s)})" if s else "")
            + ". Afterwards the sentences not yet corrected are decoded again with the new "
              "model; corrected ones keep their trees.")
        running = self.running
        if running != self._running:
            self._running = running
            for w in (self.start_button, self.scratch, self.resume):
                w.setEnabled(not running)
            self.cancel_button.setEnabled(running)
        if r.worker is not None and r.worker.cancelled:
            self.cancel_button.setEnabled(False)
        self._refresh_labels(s)
        self._refresh_parser(s)
        self.status_label.setText(r.status)
        self.result_label.setText(r.result)
        self.parser_label.setText(self.parser.status)
        self._show_progress()
        self.plot.set_points(m.curve())

    def _show_progress(self) -> None:
        """One bar for the whole run, never going back: training (per epoch, and per 50
        sentences of larger sets) fills its first part, each fold of the cross-validation
        the rest. Until training reports (preparing the data; compiling the trainer the
        first time) the bar is busy rather than stuck at 0%."""
        r = self.retraining
        if self.parser.running:
            self.progress_bar.setRange(0, STEPS)
            self.progress_bar.setValue(round(STEPS * self.parser.fraction))
            return
        if r.running and r.version is None and r.fraction == 0:
            self.progress_bar.setRange(0, 0)  # busy
            return
        self.progress_bar.setRange(0, STEPS)
        done = r.fraction * TRAINING if r.version is None else \
            TRAINING + r.fraction * (1 - TRAINING)
        if not r.running:  # measured; trained but not cross-validated; nothing new
            done = {"measured": 1.0, "trained": TRAINING}.get(r.outcome, 0.0)
        self.progress_bar.setValue(round(STEPS * done))

    def _refresh_labels(self, session) -> None:
        """Offer labels from scratch where the file has them (ticked the first time); a
        continued model reads labels exactly when its base does."""
        if self.resume.isChecked():
            base = self.models.current_model()
            self.use_labels.setEnabled(False)
            self.use_labels.setChecked(base is not None and base.dep_labels == "deprel")
            self._labels_for = None
            return
        has = labels_offered(session)
        self.use_labels.setEnabled(has and not self.running)
        if session is not self._labels_for or not has:
            self.use_labels.setChecked(has)
            self._labels_for = session

    def _refresh_parser(self, session) -> None:
        """Offer the d-parser where a text model predicted the arcs (ticked the first time
        it is offered for a file)."""
        p = self.parser
        offered = p.offered()
        self.use_parser.setEnabled(offered and not self.running)
        if session is not self._parser_for or not offered:
            self.use_parser.setChecked(offered)
            self._parser_for = session if offered else None
        self.use_parser_button.setEnabled(not p.running and p.model is not None
                                          and not p.in_use and p.session is session)

    def start(self) -> None:
        self.retraining.start(self.resume.isChecked(), self.use_labels.isChecked(),
                              self.use_parser.isChecked() and self.use_parser.isEnabled())

    def cancel(self) -> None:
        self.retraining.cancel()

    def reject(self) -> None:
        """Closing while running cancels first, so no worker outlives the dialog."""
        self.retraining.stop()
        super().reject()
