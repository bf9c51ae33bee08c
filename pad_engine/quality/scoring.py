"""Scoring the consistency check against injected errors (``pad bench-check`` and its test)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pad_engine.errors import InputError
from pad_engine.quality.consistency import Entry, find_inconsistencies
from pad_engine.quality.forest import Sentence
from pad_engine.quality.inject import Injected

PENN_SUFFIXES = (".mrg", ".ptb", ".psd", ".tree", ".trees")


def penn_files(paths: Sequence[str]) -> list[str]:
    """The paths, a folder standing for its Penn files (sorted)."""
    out = []
    for p in map(Path, paths):
        if p.is_dir():
            found = sorted(str(f) for f in p.iterdir() if f.suffix.lower() in PENN_SUFFIXES)
            if not found:
                raise InputError("no Penn tree files (.mrg, .ptb, .psd) in this folder",
                                 str(p))
            out += found
        else:
            out.append(str(p))
    return out


def found_errors(sentences: Sequence[Sentence], injected: Sequence[Injected], top: int
                 ) -> tuple[list[Injected], list[Entry]]:
    """The injected errors that one of the first ``top`` entries flags (a suspect in that
    sentence over a span whose bracket the error changed), and those entries."""
    entries = find_inconsistencies(sentences, use_rels=False, limit=top)
    flagged = {(o.sentence, o.start, o.end) for e in entries for o in e.suspects}
    found = [e for e in injected if any((e.sentence, a, b) in flagged for a, b in e.spans)]
    return found, entries
