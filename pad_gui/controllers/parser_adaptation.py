"""Retraining the d-parser on the corrected arcs (Model > Retrain's parser box).

When the open file's arcs were predicted by a text model, every corrected sentence is a gold
d-parse of the annotator's own domain. The bundled text model is adapted to all of them on a
worker thread and cross-validated (UAS) beside the parser in use on the same held-out
sentences. Only when it scores better (beyond the noise of the held-out sentences:
``pad_engine.significance``), or the annotator picks it, does it re-predict the
arcs of the sentences nobody touched (never a corrected or edited one, whose arcs are first
written into the project so that they stay), which are then decoded again.

The parser in use is saved beside the project (``PROJECT.padparser``, written atomically),
and the project names it, so reopening the file predicts with it; a damaged or missing one
is reported and the bundled parser takes its place (``Workspace.open``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

from pad_engine.api import (
    CONFIDENCE,
    Cancelled,
    PadError,
    ParserComparison,
    TextModel,
    adapt_parser,
    check_output,
    compare_parsers,
    load_parser,
    predict_arcs,
    read_bytes,
    write_bytes,
)
from pad_gui.controllers.messages import Adapted, FoldDone
from pad_gui.events import Event
from pad_gui.session import MACHINE, Session
from pad_gui.worker import Worker

MIN_SENTENCES = 2  # cross-validation needs two
PARSER_META = "parser"  # project meta: the adapted parser's file name, when one is in use
ADAPTED_META = "parser_sentences"  # the keys of the sentences it was adapted on


def parser_path(project: str | Path) -> Path:
    """Where a project's adapted parser lives: beside it."""
    project = Path(project)
    return project.with_name(project.name + ".padparser")


def copy_parser(project: str | Path, target: str | Path) -> Path | None:
    """Copy ``project``'s adapted parser beside ``target`` (Save Project As), atomically;
    the copy's path, or None when the project has none."""
    source = parser_path(project)
    if not source.exists():
        return None
    out = parser_path(target)
    write_bytes(out, read_bytes(source, "text model"))
    return out


def _candidate(project: Path) -> Path:
    return project.with_name(project.name + ".padparser-new")


def adapted_keys(session: Session) -> set[str] | None:
    """The keys of the sentences the parser in use was adapted on (None: the bundled one)."""
    if session.store.meta(PARSER_META) is None:
        return None
    try:
        keys = json.loads(session.store.meta(ADAPTED_META) or "[]")
    except (ValueError, RecursionError):  # a project's text is not trusted: nested 100,000 deep
        return set()
    return {k for k in keys if isinstance(k, str)} if isinstance(keys, list) else set()


def adapt_work(session: Session, corrected: list[int], untouched: list[int],
               candidate: Path | None) -> Callable[[Worker], tuple]:
    """The work of one run: reports Adapted and FoldDone;
    returns (comparison, predictions of ``untouched``); the adapted parser is written to
    ``candidate`` (so that putting it in use is a rename, not seconds of writing)."""
    sentences = [session.as_viewed(i) for i in corrected]  # corrected heads and tags
    earlier = adapted_keys(session)
    adapted_on = None if earlier is None else {
        n for n, i in enumerate(corrected) if session.keys[i] in earlier}
    rest = [session.sentences[i] for i in untouched]

    def work(worker: Worker) -> tuple:
        base = load_parser()
        model = adapt_parser(base, sentences, cancel=worker.is_cancelled,
                             progress=lambda d, t: worker.report(Adapted(d, t)))
        result = compare_parsers(base, sentences, None if adapted_on is None else base,
                                 adapted_on, cancel=worker.is_cancelled,
                                 progress=lambda d, t: worker.report(FoldDone(d, t)))
        predicted = predict_arcs(model, rest)
        if candidate is not None:
            model.save(candidate)
        return model, result, predicted

    return work


class ParserAdaptation:
    """One parser adaptation at a time, and what it shows: ``status`` (text), ``fraction``
    done, ``outcome`` ("measured", "cancelled", "error") and ``in_use``.
    Event: ``changed()``."""

    def __init__(self, workspace, launch: Callable[[Worker], None]):
        self.workspace = workspace
        self.launch = launch
        self.worker: Worker | None = None
        self.session: Session | None = None
        self.model: TextModel | None = None
        self.comparison: ParserComparison | None = None
        self.in_use = False
        self.outcome = ""
        self.status = ""
        self.fraction = 0.0
        self._run: tuple[list[int], list[int], list] | None = None  # corrected, untouched, arcs
        self.changed = Event()
        workspace.opened.connect(self.stop)

    @property
    def running(self) -> bool:
        return self.worker is not None

    def offered(self) -> bool:
        """Whether the open file's arcs are a text model's and enough sentences corrected."""
        s = self.workspace.session
        return s is not None and bool(s.predicted_by) and len(self._corrected(s)) >= \
            MIN_SENTENCES

    @staticmethod
    def _corrected(session: Session) -> list[int]:
        return [i for i in range(len(session)) if session.is_corrected(i)]

    def _say(self, status: str, fraction: float | None = None) -> None:
        self.status = status
        if fraction is not None:
            self.fraction = fraction
        self.changed.emit()

    def start(self) -> None:
        """Adapt the bundled parser to the corrected sentences' arcs as they are now."""
        s = self.workspace.session
        if self.running or s is None:
            return
        if not self.offered():
            return self._say("The d-parser is retrained only on files whose arcs a text "
                             f"model predicted, with {MIN_SENTENCES} corrected sentences or "
                             "more.")
        corrected = self._corrected(s)
        untouched = [i for i in range(len(s)) if s.state(i) == MACHINE]
        candidate = None if s.read_only else _candidate(s.store.path)
        self.session, self.model, self.comparison, self.in_use = s, None, None, False
        self.outcome, self._run = "", (corrected, untouched, [])
        self.worker = Worker(adapt_work(s, corrected, untouched, candidate), "pad-adapt")
        self.worker.yielded.connect(self._report)
        self.worker.returned.connect(lambda result: self._finish(*result))
        self.worker.errored.connect(self._failed)
        self.worker.finished.connect(self._ended)
        self._say(f"D-parser: adapting to the arcs of {len(corrected)} corrected sentences…",
                  0.0)
        self.launch(self.worker)

    def cancel(self) -> None:
        if self.worker is not None:
            self.worker.cancel()
            self._say("D-parser: cancelling…")

    def stop(self) -> None:
        """Cancel and wait for the run (another project opens, or the window closes); a
        written parser nobody put in use is removed, not left beside the project."""
        if self.worker is not None:
            self.cancel()
            self.worker.stop()
        s = self.session
        if s is not None and not self.in_use and not s.read_only:
            _candidate(s.store.path).unlink(missing_ok=True)
        self.session = None

    def _report(self, message: Adapted | FoldDone) -> None:
        if self.worker is None or self.worker.cancelled:
            return
        match message:
            case Adapted(done, total):
                self._say(f"D-parser: adapting, {done} of {total} sentence steps…",
                          0.2 * done / total)
            case FoldDone(done, total):
                self._say(f"D-parser: cross-validating, fold {done} of {total} done…",
                          0.2 + 0.8 * done / total)

    def _finish(self, model: TextModel, result: ParserComparison, predicted: list) -> None:
        if self.workspace.session is not self.session:
            return
        self.model, self.comparison, self.outcome = model, result, "measured"
        self._run = (*self._run[:2], predicted)
        side = (f"new d-parser UAS <b>{result.new:.2f}</b>, d-parser in use "
                f"<b>{result.current:.2f}</b> ({result.folds}-fold cross-validated, all words, "
                f"on the same {result.sentences} corrected sentences)")
        if result.better:
            self._use()
            self._say(f"D-parser done: {side}. The new d-parser scores better: it predicted "
                      "the arcs of the sentences not yet touched again.", 1.0)
        elif result.new > result.current:
            self._say(f"D-parser done: {side}. The gain is within the noise of so few held-out "
                      f"sentences (higher in {result.confidence:.0%} of their resamplings; a "
                      f"d-parser goes into use by itself at {CONFIDENCE:.0%}): the arcs stay as "
                      "they are (Use New Parser puts it in use anyway).", 1.0)
        else:
            self._say(f"D-parser done: {side}. It does not score better: the arcs stay as "
                      "they are (Use New Parser puts it in use anyway).", 1.0)

    def use_new(self) -> None:
        """Put the adapted parser in use although it did not score better."""
        if self.model is not None and not self.in_use and \
                self.workspace.session is self.session:
            self._use()
            self._say("The new d-parser predicted the arcs of the sentences not yet touched "
                      "again, as you chose.")

    def _use(self) -> None:
        s = self.session
        corrected, untouched, predicted = self._run
        self.in_use = True
        for idx in range(len(s)):  # the annotator's arcs stay, also when reopened
            if s.state(idx) != MACHINE:
                s.pin_heads(idx)
        saved = ""
        if not s.read_only:
            path = parser_path(s.store.path)
            try:
                check_output(path)  # never a FIFO or a device beside the project
                os.replace(_candidate(s.store.path), path)
            except (OSError, PadError) as e:
                saved = f" (it could not be saved beside the project: {e})"
            else:
                s.store.set_meta(PARSER_META, path.name)
                s.store.set_meta(ADAPTED_META, json.dumps([s.keys[i] for i in corrected]))
                s.predicted_by = path.name
        changed = s.repredict({i: arcs for i, arcs in zip(untouched, predicted)
                               if s.state(i) == MACHINE})
        self.workspace.arcs_replaced(changed)
        self.workspace.message.emit(f"The adapted d-parser re-predicted {len(changed)} "
                                    f"sentences' arcs{saved}", 10000)

    def _failed(self, error: Exception) -> None:
        if isinstance(error, Cancelled):
            return
        self.outcome = "error"
        why = str(error) if isinstance(error, PadError) else f"{type(error).__name__}: {error}"
        self._say(f"D-parser failed: {why}")

    def _ended(self) -> None:
        self.worker = None
        if self.outcome == "":
            self.outcome = "cancelled"
            self._say("D-parser: cancelled; the arcs stay as they are.", 0.0)
        else:
            self.changed.emit()
