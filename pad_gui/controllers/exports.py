"""What File > Export writes: Penn trees (one line per sentence) and the d-parses.

The Penn export is a job for the engine thread, because a sentence nobody has looked at
yet may still need decoding; the CoNLL export only writes what the session holds.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from pad_engine.api import Engine, PadError, to_line, write_conll, write_text
from pad_gui.controllers.engine import K_BEST
from pad_gui.session import Session

if TYPE_CHECKING:  # the workspace owns its exports
    from pad_gui.controllers.workspace import Workspace

SAID_MS = 10000  # how long the status bar says what an export did


def proposed(source: Path | None, name: str) -> str:
    """Where an export dialog starts: ``name`` in the opened file's folder (the home folder
    without a file, or when that folder cannot be written, as the installed sample's), never
    the opened file itself."""
    folder = source.parent if source is not None else None
    if folder is None or not os.access(folder, os.W_OK):
        folder = Path.home()
    target = folder / name
    if source is not None and target == source:
        target = target.with_name(f"{target.stem}.pad{target.suffix}")
    return str(target)


def penn_job(session: Session, path: str, corrected_only: bool
             ) -> Callable[[Engine], tuple[int, list[str]]]:
    """A job writing, for every (or every corrected) sentence, its edited tree or picked
    candidate; a sentence without a tree gets an empty line so that lines stay aligned with
    sentences. The job returns the number of trees written and the problems."""
    todo = []
    for i in range(len(session)):
        if corrected_only and not session.is_corrected(i):
            continue
        view = session.view(i)
        todo.append((session.with_heads(i, view.heads), session.shown_tree(i, view),
                     view.chosen))

    def job(engine: Engine) -> tuple[int, list[str]]:
        refuse_input(session, path)
        lines, problems = [], []
        for sent, tree, chosen in todo:
            if tree is None:
                try:
                    found = engine.candidates(sent, k=K_BEST)  # the list the user saw
                    tree = found[min(chosen, len(found) - 1)].tree
                except PadError as e:
                    problems.append(f"{sent.path}:{sent.line}: {e}")
                    lines.append("")
                    continue
            lines.append(to_line(tree, sent.forms))
        write_text(path, "".join(line + "\n" for line in lines))
        return len(lines) - len(problems), problems

    return job


def penn_message(what: str, result: tuple[int, list[str]] | Exception) -> str:
    """What a finished Penn export tells the annotator."""
    if isinstance(result, Exception):
        return f"Export of {what} failed: {result}"
    written, problems = result
    message = f"Exported {written} {what}"
    if problems:
        message += f"; {len(problems)} without a tree (empty lines): {problems[0]}"
    return message


def write_dependencies(session: Session, path: str) -> str:
    """Write the treebank with the corrected arcs (all else byte-exact, DEPS following
    HEAD and DEPREL); says what it did."""
    refuse_input(session, path)
    sentences = []
    for i in range(len(session)):
        sent = session.with_heads(i, session.view(i).heads)
        sent.rels = root_relations(session.sentences[i].heads, sent.heads, sent.rels)
        sentences.append(sent)
    changed = sum(session.arcs_changed(i) for i in range(len(session)))
    write_conll(sentences, path)
    return f"Exported {len(sentences)} sentences ({changed} with corrected arcs)"


def root_relations(old: list[int], new: list[int], rels: list[str]) -> list[str]:
    """DEPREL fitting the new heads: a word that became the root is ``root``, the old root
    now under another word an unspecified ``dep`` (in the file's letter case)."""
    out = list(rels)
    for m, (was, now) in enumerate(zip(old, new)):
        if not out or was == now or m >= len(out):
            continue
        upper = out[m].isupper()
        if now == 0:
            out[m] = "ROOT" if upper else "root"
        elif was == 0 and out[m].lower() == "root":
            out[m] = "DEP" if upper else "dep"
    return out


def write_detached(session: Session, path: str) -> str:
    """Write the corrections that lost their sentence, one block each (what it was, why it
    is detached, its Penn tree): nothing the annotator confirmed is only in the project."""
    refuse_input(session, path)
    items = session.detached()
    blocks = []
    for d in items:
        lines = [f"# words = {d.words}", f"# status = {d.status}", f"# why = {d.why}"]
        if d.applied:
            lines.append(f"# applied to = {d.applied}")
        blocks.append("\n".join([*lines, d.penn or ""]) + "\n\n")
    write_text(path, "".join(blocks))
    return f"Exported {len(items)} detached corrections to {path}"


def refuse_input(session: Session, path: str) -> None:
    """ValueError when ``path`` is the treebank or the project file (by name, a symlink or a
    hard link): an export over either would destroy it."""
    for source in (session.path, session.store.path):
        try:
            if os.path.samefile(path, source):
                raise ValueError(f"{path} is {source}: refusing to overwrite it, choose "
                                 "another file")
        except OSError:
            continue  # one of them does not exist: not the same file


class Exports:
    """File > Export for the workspace's session; ``done``: what each finished export
    wrote, in order (each also said in the status bar)."""

    def __init__(self, workspace: Workspace):
        self.workspace = workspace
        self.done: list[str] = []

    def penn(self, path: str, corrected_only: bool) -> None:
        """Write one Penn tree per line (see :func:`penn_job`), on the engine thread."""
        w = self.workspace
        if w.session is None:
            return
        what = "corrected Penn trees" if corrected_only else "Penn trees"
        w.engine.submit(penn_job(w.session, path, corrected_only),
                        lambda result: self._said(penn_message(what, result)))
        w.message.emit(f"Exporting to {path}…", 0)

    def conll(self, path: str) -> None:
        """The treebank with corrected arcs written back (everything else byte-exact)."""
        self._write(write_dependencies, path)

    def detached(self, path: str) -> None:
        """The corrections that lost their sentence, as text (:func:`write_detached`)."""
        self._write(write_detached, path)

    def _write(self, write: Callable[[Session, str], str], path: str) -> None:
        if self.workspace.session is None:
            return
        try:
            message = write(self.workspace.session, path)
        except (OSError, ValueError, PadError) as e:
            message = f"Export failed: {e}"
        self._said(message)

    def _said(self, message: str) -> None:
        self.done.append(message)
        self.workspace.message.emit(message, SAID_MS)
