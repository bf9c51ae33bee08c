"""What File > Export writes: Penn trees (one line per sentence) and the d-parses.

The Penn export is a job for the engine thread, because a sentence nobody has looked at
yet may still need decoding; the CoNLL export only writes what the session holds.
"""

from __future__ import annotations

from collections.abc import Callable

from pad_engine.api import Engine
from pad_engine.atomic import atomic_write_text
from pad_engine.conll import write_conll
from pad_engine.errors import PadError
from pad_engine.lextree import to_line
from pad_gui.session import Session
from pad_gui.worker import K_BEST


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
        atomic_write_text(path, "".join(line + "\n" for line in lines))
        return len(lines) - len(problems), problems

    return job


def write_dependencies(session: Session, path: str) -> str:
    """Write the treebank with the corrected arcs (all else byte-exact); says what it did."""
    sentences = [session.with_heads(i, session.view(i).heads) for i in range(len(session))]
    changed = sum(session.arcs_changed(i) for i in range(len(session)))
    write_conll(sentences, path)
    return f"Exported {len(sentences)} sentences ({changed} with corrected arcs)"
