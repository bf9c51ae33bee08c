"""The open treebank as the app works on it: which sentence is on screen, what the engine is
asked to decode and when, which model decodes, edits as undo steps; its exports in
``exports.Exports``.

Views call the methods and subscribe to the events; undo stays with the view (``step``
hands it each change, and its undo and redo call :meth:`Workspace.apply`).
"""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from pad_engine.api import (
    TEXT_MODEL,
    ConllResult,
    InputError,
    Model,
    PadError,
    check_inputs,
    edits,
    open_for_annotation,
    prepare_outputs,
    read_for_annotation,
)
from pad_gui.controllers import navigation
from pad_gui.controllers.engine import BACKGROUND, NOW, SOON, Converter, EngineThread
from pad_gui.controllers.exports import Exports
from pad_gui.controllers.model_in_use import ModelInUse
from pad_gui.controllers.parser_adaptation import PARSER_META, copy_parser, parser_path
from pad_gui.controllers.project_file import open_project, recover
from pad_gui.controllers.projects import Projects
from pad_gui.controllers.reattach import Change, HeadChoice, Reattach
from pad_gui.controllers.timekeeping import TimeKeeper
from pad_gui.events import Event
from pad_gui.session import CORRECTED, MACHINE, Session, View
from pad_gui.store import Detached
from pad_gui.worker import Worker

PREFETCH = 3  # sentences after the current one decoded ahead of the background pass
SHORT, LONG = 5000, 10000  # ms a status message stays


@dataclass(frozen=True)
class Step:
    """One undo step: a change, its menu text, the node to select after it."""

    change: Change
    text: str
    select: edits.Path | None = None


class Workspace:
    """Everything the main window shows, without the window.

    Events: ``opened()`` (another session, or none), ``problems(list[InputError])``,
    ``message(text, ms)`` (0: until the next), ``navigated(idx)`` (another sentence is
    on screen), ``redraw(select, fit)`` (draw the sentence on screen again), ``row(idx)``
    (a sentence's status changed), ``ready()`` (a model decodes: see ``converter``),
    ``step(Step)`` (an edit, for the undo stack), ``proposed(word, relation, why)`` (a
    re-attached word's relation, to confirm or change), ``alarm(text)`` (an error the
    annotator must see at once: the project refused a write), ``background(text)`` (what
    runs in the background: a text file's arcs being predicted, or how far decoding is,
    "Decoding 1,234 / 12,544"; "" once nothing runs).
    """

    def __init__(self, engine: EngineThread, projects: Projects,
                 run: Callable[[Worker], None] | None = None):
        self.engine = engine
        self.projects = projects
        self.run = run  # starts a worker whose events come on this thread; None: no worker
        self.reading: Path | None = None  # a text file whose arcs a worker is predicting
        self._reader: Worker | None = None  # that worker
        self.session: Session | None = None
        self.current = -1
        self.least_sure_first = False  # Next uncorrected: file order, or least sure
        self._serials = itertools.count(1)  # numbers each session and model: see Session.key
        self.in_use = ModelInUse()
        self.reattach = Reattach()
        self.choosing = HeadChoice()  # a word's new head, by keyboard
        self.clock = TimeKeeper()
        self.exports = Exports(self)
        self.notice = ""  # what opening the project had to say (read-only, set aside)
        self.opened, self.problems, self.message, self.navigated = (Event() for _ in "1234")
        self.redraw, self.row, self.ready, self.step = (Event() for _ in "1234")
        self.alarm, self.background, self.proposed, self.ambient = (Event() for _ in "1234")
        self._decoded_ids: set[int] = set()  # sentences of the session decoded by this model
        engine.ready.connect(self._engine_ready)
        engine.decoded.connect(self._decoded)

    @property
    def converter(self) -> Converter | None:
        return self.in_use.converter

    @property
    def reattach_scheme(self) -> str:
        """How the model in use re-attaches d-parses before decoding ("" for none): what an
        edited tree's heads are read back through (``edited_heads``)."""
        return getattr(getattr(self.converter, "model", None), "reattach", "")

    @property
    def engine_ready(self) -> bool:
        return self.in_use.ready

    @property
    def model_problem(self) -> str | None:
        return self.in_use.problem

    @property
    def phrase_labels(self) -> list[str]:
        return self.converter.phrase_labels() if self.converter is not None else []

    def decoded_current(self) -> bool:
        """Whether the sentence on screen has its candidates (or its decode error)."""
        s = self.session
        return s is not None and self.current >= 0 and s.decoded(self.current) is not None

    # -- engine ---------------------------------------------------------------------------
    def _engine_ready(self, problem: str, converter: Converter | None,
                      announce: bool = True) -> None:
        """The converter decodes from now on; "Model ready" is ``announce``d unless the
        decoder is still being prepared (then the engine's ready says it later)."""
        self.in_use.decodes_with(converter, problem)
        self._say_decoding()
        if problem:
            self.message.emit(f"No model: {problem} (arcs only)", 0)
        elif announce:  # ambient: it may not hide a warning the annotator has not read yet
            self.ambient.emit("Model ready", 3000)
        self.ready.emit()
        self.redraw.emit(None, False)

    def request(self, idx: int, priority: int) -> None:
        s = self.session
        if s is not None and s.key(idx) not in s.cache:
            self.engine.request(s.key(idx), s.as_viewed(idx), priority)

    def _decoded(self, key, result) -> None:
        s = self.session
        if s is None or key[0] != s.serial:
            return
        s.cache[key] = result
        idx = key[1]
        self._decoded_ids.add(idx)
        self._say_decoding()
        self.row.emit(idx)  # its place in least-sure-first order is known now
        change = self.reattach.decoded(s, key)
        if change is not None:
            self._step(change, *self.reattach.what)
        elif idx == self.current and key == s.key(idx):
            self.redraw.emit(None, True)

    def _say_decoding(self) -> None:
        if self.reading is not None:
            return  # what the read does is said until it ends
        s = self.session
        done, total = len(self._decoded_ids), len(s) if s is not None else 0
        busy = done < total and self.model_problem is None
        self.background.emit(f"Decoding {done:,} / {total:,}" if busy else "")

    def use_model(self, load: Callable[[], Model | Converter], name: str | Callable[[], str],
                  done: Callable[[Converter | Exception], None] | None = None) -> None:
        """Decode with ``load()``'s model from now on: the sentences not corrected are
        decoded again (their candidates refresh); corrected ones keep theirs. ``done``
        gets the converter, or the error when it cannot be loaded (the previous model
        stays). ``name`` may be asked once loaded (what loading chose)."""
        self.engine.drop_pending()
        self.engine.swap_model(load, lambda result: self._model_used(result, name, done))
        s = self.session
        if s is None:
            return
        s.renew(next(self._serials))
        self._decoded_ids = {key[1] for key in s.cache}  # the corrected ones keep theirs
        self._say_decoding()
        pending = self.reattach.pending
        if pending is not None:
            after = pending.after
            self.engine.request(s.key(pending.idx, after), s.as_viewed(pending.idx, after), NOW)
        if self.current >= 0:
            self.request(self.current, NOW)
        for idx in range(len(s)):
            self.request(idx, BACKGROUND)
        self.redraw.emit(None, False)

    def _model_used(self, result: Converter | Exception, name: str | Callable[[], str],
                    done: Callable[[Converter | Exception], None] | None) -> None:
        if done is not None:
            done(result)
        name = name() if callable(name) else name
        if isinstance(result, Exception):
            self.message.emit(f"Cannot use model {name}: {result}", LONG)
            return
        preparing = self.engine.preparing_for(result)
        self._engine_ready("", result, announce=not preparing)
        said = (f"Model {name} loaded: its trees follow once the decoder is prepared"
                if preparing else f"Decoding with model {name}")
        warning = self.label_warning()
        self.message.emit(said + warning, 15000 if warning else SHORT)

    def arcs_note(self) -> str:
        """"; arcs predicted by ..." when the file's arcs are a text model's, not the file's."""
        s = self.session
        if s is None or not s.predicted_by:
            return ""
        return f"; arcs predicted by the text model {s.predicted_by}: check them"

    def label_warning(self) -> str:
        """"; warning" when the model reads labels this file mostly lacks, else ""."""
        if self.converter is None or self.session is None:
            return ""
        warning = self.converter.label_warning(self.session.sentences)
        return f"; {warning}" if warning else ""

    # -- files ----------------------------------------------------------------------------
    def open(self, path: str | Path, project: str | Path | None = None,
             encoding: str | None = None, headrules: str | None = None,
             tokenize: bool = True, start: int = 0) -> bool:
        """Open a treebank (bad sentences are reported as problems; ``encoding`` decodes it,
        None detects; a tree file's arcs are read off by ``headrules``, None: its default;
        text is split into tokens, or with ``tokenize`` False at white space) and its
        project (``project``, else the one last used with this treebank, else
        FILE.padproject), on sentence ``start``. A file whose arcs a text model predicts is
        read by a worker (loading the model takes seconds), saying what it does: True then
        means started."""
        path = Path(path)
        if self.reading is not None:
            self.message.emit(f"Still opening {self.reading.name}: one file at a time", SHORT)
            return False
        parser = parser_path(project if project is not None else
                             self.projects.project_for(path))

        try:  # read once: what it holds says whether a worker reads on
            opened = open_for_annotation(path, encoding)
        except (OSError, PadError) as e:
            return self._cannot_open(path, _why(e))

        def read(progress: Callable[[str], None] | None = None) -> ConllResult:
            # text: arcs predicted by the parser adapted in the project, else the bundled one
            options = {"headrules": headrules, "tokenize": tokenize, "progress": progress}
            if parser.exists():
                return read_for_annotation(opened, encoding, str(parser), TEXT_MODEL,
                                           **options)
            return read_for_annotation(opened, encoding, **options)

        if self.run is not None and opened.predicts_arcs:
            self.reading = path
            self._reader = worker = Worker(lambda job: read(job.report), "pad-open")
            worker.yielded.connect(self.background.emit)
            worker.returned.connect(lambda result: worker.cancelled or self._read(
                path, project, parser, result, start))
            worker.errored.connect(lambda e: worker.cancelled or self._cannot_open(path,
                                                                                 _why(e)))
            worker.finished.connect(self._read_done)
            self.message.emit(f"Opening {path.name}: a text model predicts its arcs…", 0)
            self.run(worker)
            return True
        try:
            result = read()
        except (OSError, PadError) as e:
            return self._cannot_open(path, _why(e))
        return self._read(path, project, parser, result, start)

    def _read_done(self) -> None:
        self.reading = self._reader = None
        self._say_decoding()

    def abandon_reading(self) -> None:
        """The window closes: a file still being read is not opened (its project is not
        created) when the read ends."""
        if self._reader is not None:
            self._reader.cancel()

    def _read(self, path: Path, project: str | Path | None, parser: Path,
              result: ConllResult, start: int = 0) -> bool:
        """Open the file read (its project with it), unless it has no sentence."""
        if not result.sentences:  # nothing to annotate: the file on screen stays, no project
            return self._cannot_open(path, _no_sentences(result.skipped), result.skipped)
        project = self.projects.project_for(path, project)
        closing = self.session is not None
        self.close()  # lets go of this window's own lock first: reopening is no second writer
        try:
            check_inputs([project])  # SQLite would wait forever on a FIFO
            opened = open_project(project)
            opened.store.on_problem = self.alarm.emit
            try:
                session = Session(path, result, opened.store, next(self._serials))
            except sqlite3.Error as e:  # a row SQLite itself cannot read, or a lock
                opened = recover(opened, e)
                opened.store.on_problem = self.alarm.emit
                session = Session(path, result, opened.store, next(self._serials))
        except (sqlite3.Error, OSError, PadError) as e:
            if closing:
                self.opened.emit()  # the previous file is closed: its views go
            return self._cannot_open(path, f"its project {project} cannot be used: {e}")
        self.engine.drop_pending()
        self.session = session
        self._decoded_ids = set()
        self._say_decoding()
        self.projects.opened(path)
        self.opened.emit()
        self.problems.emit(result.skipped)
        if len(session):
            self.show(max(0, min(start, len(session) - 1)))
            for idx in range(len(session)):
                self.request(idx, BACKGROUND)
        bad = f", {len(result.skipped)} malformed (see Problems)" if result.skipped else ""
        warning = self.label_warning()
        detached = len(session.detached())
        if detached:
            warning += (f"; {detached} corrections no longer match a sentence of the file: "
                        "they are kept (File > Detached Corrections)")
        if result.predicted_by and session.store.meta(PARSER_META) and not parser.exists():
            warning = (f"; the d-parser adapted in this project ({parser.name}) is missing: "
                       f"arcs predicted by the bundled one{warning}")
        if result.note:
            warning = f"; {result.note}{warning}"
        if opened.notice:
            warning = f"; {opened.notice}{warning}"
        self.notice = opened.notice
        self.message.emit(f"{len(session)} sentences{bad}" + warning,
                          0 if opened.notice else 15000 if warning else SHORT)
        return True

    def arcs_replaced(self, indices: list[int]) -> None:
        """A new parser gave these sentences new arcs: decode them again."""
        if self.session is None:
            return
        for idx in sorted(indices, key=lambda i: i != self.current):  # the one on screen first
            self.request(idx, NOW if idx == self.current else BACKGROUND)
            self.row.emit(idx)
        self.redraw.emit(None, False)

    def _cannot_open(self, path: Path, why: str, problems: Sequence[InputError] = ()) -> bool:
        """Say why ``path`` did not open; whatever was open stays open."""
        self.problems.emit([InputError(why, str(path)), *problems])
        self.message.emit(f"Cannot open {path}: {why}", 0)
        return False

    def close(self) -> None:
        """Close the session (its work is saved as it is done); time is booked first."""
        if self.session is None:
            return
        self.clock.book(self.session, self.current)
        self.session.store.close()
        self.session = None
        self._say_decoding()
        self.current = -1
        self.reattach.forget()
        self.choosing.end()

    def save_project_as(self, path: str | Path) -> None:
        s = self.session
        if s is None:
            return
        try:
            prepare_outputs([path], [s.path, s.store.path])
            s.store.copy_to(path)
            if s.store.meta(PARSER_META) and copy_parser(s.store.path, path) is None:
                self.message.emit(f"The d-parser adapted in {s.store.path} is missing: "
                                  f"{path} will predict with the bundled one", LONG)
        except (sqlite3.Error, OSError, PadError) as e:
            self.message.emit(f"Cannot save the project as {path}: {e}", LONG)
            return
        waiting, s.store.unsaved = s.store.unsaved, []  # refused here: written there
        s.store.close()
        opened = open_project(path)
        s.store = opened.store
        s.store.on_problem = self.alarm.emit
        s.store.unsaved = waiting
        s.store.flush()
        if s.store.meta(PARSER_META):
            s.store.set_meta(PARSER_META, parser_path(path).name)
        self.projects.remember(s.path, path)
        self.message.emit(f"Project saved as {path}" + (f"; {opened.notice}"
                                                         if opened.notice else ""), SHORT)

    def apply_detached(self, item: Detached) -> bool:
        """Give the sentence on screen a detached correction (one that lost its sentence)."""
        s, idx = self.session, self.current
        if s is None or idx < 0:
            return False
        why = s.apply_detached(item, idx)
        if why is not None:
            self.message.emit(f"Cannot apply it to sentence {idx + 1}: {why}", LONG)
            return False
        self.row.emit(idx)
        if s.key(idx) not in s.cache:
            self.request(idx, NOW)
        self.redraw.emit(None, False)
        self.message.emit(f"Correction applied to sentence {idx + 1}", SHORT)
        return True

    # -- navigation -----------------------------------------------------------------------
    def show(self, idx: int) -> None:
        """Put sentence ``idx`` on screen; it is decoded first, the next few soon after."""
        s = self.session
        if s is None or idx == self.current or not 0 <= idx < len(s):
            return
        self.clock.book(s, self.current)
        self.engine.pause_background()
        self.current = idx
        self.request(idx, NOW)
        for nxt in range(idx + 1, min(idx + 1 + PREFETCH, len(s))):
            self.request(nxt, SOON)
        self.navigated.emit(idx)
        self.redraw.emit(None, True)

    def next_uncorrected(self) -> None:
        """The next uncorrected sentence (see ``navigation``), in file order or with
        ``least_sure_first`` the one the model is least sure of."""
        s = self.session
        if s is None:
            return
        idx = navigation.next_uncorrected(s, self.current, self.least_sure_first)
        if idx is None:
            self.message.emit("Every sentence is corrected", SHORT)
        else:
            self.show(idx)

    def sure_key(self, idx: int) -> tuple | None:
        """Sentence ``idx``'s place in least-sure-first order (None until decoded)."""
        return navigation.sure_key(self.session, idx) if self.session is not None else None

    def toggle_corrected(self) -> None:
        s, idx = self.session, self.current
        if s is None or idx < 0:
            return
        self.clock.book(s, idx)
        s.set_status(idx, MACHINE if s.is_corrected(idx) else CORRECTED)
        self.row.emit(idx)
        self.redraw.emit(None, False)

    def book_time(self) -> None:
        self.clock.book(self.session, self.current)

    # -- edits ----------------------------------------------------------------------------
    def _step(self, change: Change, kind: str, text: str,
              select: edits.Path | None = None) -> None:
        self.session.log(change.idx, kind)
        self.step.emit(Step(change, text, select))
        proposal, self.reattach.proposal = self.reattach.proposal, None
        if kind == "reattach" and proposal is not None:
            self.proposed.emit(*proposal)

    def apply(self, idx: int, view: View, select: edits.Path | None = None) -> None:
        """Show and save ``view`` of sentence ``idx`` (what undo and redo do)."""
        s = self.session
        if s is None:
            return
        s.set_view(idx, view)
        self.row.emit(idx)
        if s.key(idx) not in s.cache:
            self.request(idx, NOW)
        self.show(idx)
        self.redraw.emit(select, False)

    def pick(self, row: int) -> None:
        """Show candidate ``row`` of the sentence on screen (edits of its tree go)."""
        s = self.session
        view = s.view(self.current) if s is not None and self.current >= 0 <= row else None
        if view is not None and (view.tree is not None or view.chosen != row):
            self._step(Change(self.current, view, replace(view, chosen=row, tree=None)), "pick",
                       f"Pick candidate {row + 1}")

    def edit(self, kind: str, text: str, change: Callable, select=None) -> bool:
        """Apply ``change(tree) -> tree`` as one undo step; a refused edit only explains."""
        s, idx = self.session, self.current
        tree = s.shown_tree(idx) if s is not None and idx >= 0 else None
        if tree is None:
            self.message.emit("No tree to edit yet", SHORT)
            return False
        try:
            new = change(tree)
        except ValueError as e:
            self.message.emit(f"Cannot {text.lower()}: {e}", 8000)
            return False
        view = s.view(idx)
        heads = s.heads_after(idx, view, new, self.reattach_scheme)
        self._step(Change(idx, view, replace(view, heads=heads, tree=new)), kind, text, select)
        return True

    def reattach_word(self, dep: int, head: int) -> None:
        """Make ``head`` the head of word ``dep`` and re-decode (one undo step)."""
        if self.session is not None and self.current >= 0:
            self.change(self.reattach.ask(self.session, self.current, dep, head), "reattach",
                        "Re-attach word")

    def change(self, outcome: Change | str | None, kind: str, text: str) -> bool:
        """Do ``outcome`` as one step, at once or once its decode arrives (``Reattach.wait``;
        see ``layers`` for tag and relation edits); a str says why not. False: no change."""
        s, waiting = self.session, self.reattach
        if isinstance(outcome, str):
            self.message.emit(outcome, 8000)
        if not isinstance(outcome, Change) or s is None or waiting.pending is not None:
            return False
        if waiting.wait(s, outcome, kind, text) is waiting.pending:
            after = outcome.after
            self.engine.request(s.key(outcome.idx, after), s.as_viewed(outcome.idx, after), NOW)
            self.message.emit("Re-decoding…", 2000)
        else:
            self._step(outcome, kind, text)
        return True


def _why(error: Exception) -> str:
    return error.problem if isinstance(error, InputError) else str(error)


def _no_sentences(skipped: list[InputError]) -> str:
    return f"none of its {len(skipped)} sentences can be read (see Problems)" if skipped \
        else "it holds no sentence"
