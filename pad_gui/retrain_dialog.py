"""Model > Retrain on corrected sentences…: the face of ``controllers.retraining``.

From scratch or from the current model, with or without the file's dependency labels;
Start, progress, Cancel; the learning curve; once a run ends, what the new version would
change and the choice: Review… (``review_view``), Use New Version, Keep Current. The run
and its messages live in the controller; this dialog shows them and hands it the
annotator's choices.
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
from pad_gui.controllers.retraining import (
    FOLDS,
    LABELS_WHY,
    Retraining,
    labels_offered,
    tagged_labels,
)
from pad_gui.dialogs import bring_to_front, job_buttons
from pad_gui.learning_plot import LearningPlot
from pad_gui.review_view import ReviewDialog

STEPS = 1000  # progress bar resolution
# The bar's shares: training, then cross-validation (FOLDS trainings more), then comparing
# on the uncorrected sentences (about one training's time).
TRAINING = COMPARING = 1 / (FOLDS + 2)
CROSS_VALIDATING = 1 - TRAINING - COMPARING


class RetrainDialog(QDialog):
    """The retrain controller's view."""

    def __init__(self, retraining: Retraining, parent: QWidget | None = None):
        super().__init__(parent)
        self.retraining = retraining
        self.models = retraining.models
        self.setWindowTitle("Retrain on corrected sentences")
        self.resize(720, 680)  # its seven buttons in a row; within a 1366x768 screen

        box = QGroupBox("Train")
        self.scratch = QRadioButton("From scratch: only the corrected trees")
        self.resume = QRadioButton()
        self.resume.setChecked(True)  # better at 5 to 200 trees (see controllers.retraining)
        self.how = QButtonGroup(self)
        self.how.addButton(self.scratch)
        self.how.addButton(self.resume)
        self.use_labels = QCheckBox("Learn from the dependency labels (DEPREL)")
        self.use_labels.setToolTip(
            "The model then reads each word's relation instead of the rule-based projection "
            "of its d-parse, and expects files labeled the same way. " + LABELS_WHY)
        self.labels_why = QLabel(LABELS_WHY)
        self.labels_why.setWordWrap(True)
        self.labels_why.setIndent(24)  # under the box's text, beside the box it explains
        self.labels_why.setStyleSheet("color: #666")
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
        lay.addWidget(self.labels_why)
        lay.addWidget(self.use_parser)
        lay.addWidget(self.data_label)
        self.tags_note = QLabel()  # function tags in the corrected trees: not scored
        self.tags_note.setWordWrap(True)
        lay.addWidget(self.tags_note)

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
        self.use_new_button.setToolTip("Decode with the version just trained: the uncorrected "
                                       "sentences it changes get its trees")
        self.use_new_button.clicked.connect(retraining.use_new)
        self.keep_button = buttons.addButton("Keep Current", QDialogButtonBox.ActionRole)
        self.keep_button.setToolTip("Leave the version in use as it is; the new one stays "
                                    "in Model Versions")
        self.keep_button.clicked.connect(retraining.keep_current)
        self.review_button = buttons.addButton("Review…", QDialogButtonBox.ActionRole)
        self.review_button.setToolTip("Step through the uncorrected sentences whose trees "
                                      "the new version changes")
        self.review_button.clicked.connect(self.show_review)
        self.review: ReviewDialog | None = None
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
        # a sentence (un)marked; the background pass says so of every sentence it decodes,
        # so a hidden dialog waits until it is shown (it reads every corrected tree)
        retraining.workspace.row.connect(lambda idx: self.isVisible() and self.refresh())
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
        self.use_new_button.setEnabled(not r.running and r.current and not r.in_use)
        self.keep_button.setEnabled(r.undecided)
        self.review_button.setEnabled(r.undecided and bool(r.review))
        if self.review is not None and not self.review_button.isEnabled():
            self.review.close()  # decided, or another run or project
        s = r.workspace.session
        trees = [t for t, _, _ in s.corrected_trees()] if s is not None else []
        self.data_label.setText(
            f"{len(trees)} corrected sentences with a tree" + (f" (of {len(s)})" if s else "")
            + ". Afterwards you see which sentences not yet corrected the new model would "
              "change, before it decodes them; corrected ones keep their trees.")
        tagged, labels = tagged_labels(trees)
        self.tags_note.setText(
            f"{tagged} corrected tree{'s carry' if tagged > 1 else ' carries'} function tags "
            f"or indices ({', '.join(labels)}): kept in the trees and exports, and learned as "
            "labels of their own, but not scored: the F1 compares bare labels (PP-TMP as PP)."
            if tagged else "")
        self.tags_note.setVisible(bool(tagged))
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
        if r.review is not None:  # compared: the run is done
            done = 1.0
        elif r.version is None:
            done = r.fraction * TRAINING
        elif r.comparing:
            done = TRAINING + CROSS_VALIDATING + r.fraction * COMPARING
        else:
            done = TRAINING + r.fraction * CROSS_VALIDATING
        if not r.running and r.review is None:  # cancelled or failed after training, or
            # nothing new: what was done stays shown
            done = {"measured": 1 - COMPARING, "trained": TRAINING}.get(r.outcome, 0.0)
        self.progress_bar.setValue(round(STEPS * done))

    def _refresh_labels(self, session) -> None:
        """Offer labels from scratch where the file has them, unticked (:data:`LABELS_WHY`);
        a continued model reads labels exactly when its base does."""
        if self.resume.isChecked():
            base = self.models.current_model()
            self.use_labels.setEnabled(False)
            self.use_labels.setChecked(base is not None and base.reads_deprel)
            self._labels_for = None
            return
        has = labels_offered(session)
        self.use_labels.setEnabled(has and not self.running)
        if session is not self._labels_for or not has:
            self.use_labels.setChecked(False)
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

    def showEvent(self, event) -> None:
        """Shown again: the sentences marked meanwhile count."""
        self.refresh()
        super().showEvent(event)

    def show_review(self) -> None:
        """Review…: the uncorrected sentences the new version changes, one at a time."""
        r = self.retraining
        if r.review is None:
            return
        if self.review is None or self.review.review is not r.review:
            if self.review is not None:
                self.review.close()
            self.review = ReviewDialog(r, self)
        bring_to_front(self.review)

    def start(self) -> None:
        self.retraining.start(self.resume.isChecked(), self.use_labels.isChecked(),
                              self.use_parser.isChecked() and self.use_parser.isEnabled())

    def cancel(self) -> None:
        self.retraining.cancel()

    def reject(self) -> None:
        """Closing while running cancels first, so no worker outlives the dialog."""
        self.retraining.stop()
        super().reject()
