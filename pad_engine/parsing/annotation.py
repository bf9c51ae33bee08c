"""Files an annotator opens: d-parsed CoNLL as it is, Penn and ``.psd`` trees with the
d-parses a head table reads off them, and text or CoNLL without heads with arcs the text
pipeline predicts, so that the app shows arcs and c-parses for all of them.

The predicted sentences are CoNLL sentences like any other (their lines carry the predicted
HEAD and DEPREL, so exporting them writes the d-parse the annotator corrected), and the
result's note says that the arcs are predicted and by which text model.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable
from dataclasses import dataclass

from pad_engine.errors import InputError, ModelError
from pad_engine.io.conll import ConllResult, parse_conll, parse_decoded
from pad_engine.io.encoding import Decoded
from pad_engine.io.encoding import read_text as read_file
from pad_engine.io.treefiles import is_tree_file, read_tree_file
from pad_engine.parsing.pipeline import TextPipeline, load_text_model
from pad_engine.parsing.text import conll_lines, read_text

TEXT_MODEL = "ud"  # UD relations and tags: they pair with the bundled UD PAD model


def has_heads(text: str) -> bool:
    """Whether the text is CoNLL whose first word line has a HEAD (not "_")."""
    for line in io.StringIO(text):  # line by line: the first word line decides
        cols = line.split("\t")
        if len(cols) >= 8 and cols[0].strip().isdigit():
            return cols[6].strip() != "_"
    return False


def refuse_unreadable(text: str, name: str) -> None:
    """Raise InputError for a file with nothing to annotate (empty, or binary: NUL bytes),
    before a text model is loaded to predict arcs for it."""
    if not text.strip():
        raise InputError("the file is empty", name)
    if "\x00" in text[:65536]:
        raise InputError("a binary file (it holds NUL bytes), not a treebank or text", name)


@dataclass(frozen=True)
class Opened:
    """A file read once for annotation, and what it holds: ``trees`` (Penn or ``.psd``),
    ``conll`` (its d-parses given) or ``text`` (plain text or CoNLL without heads: a text
    model must predict its arcs, a read that takes seconds, worth a progress report)."""

    name: str
    decoded: Decoded
    kind: str

    @property
    def predicts_arcs(self) -> bool:
        return self.kind == "text"


def open_for_annotation(path: str | os.PathLike[str], encoding: str | None = None) -> Opened:
    """Read a file and tell what it holds; an empty or binary file raises InputError."""
    name = os.fspath(path)
    decoded = read_file(name, encoding)
    refuse_unreadable(decoded.text, name)
    kind = ("trees" if is_tree_file(name, decoded.text) else
            "conll" if has_heads(decoded.text) else "text")
    return Opened(name, decoded, kind)


def read_for_annotation(path: str | os.PathLike[str] | Opened, encoding: str | None = None,
                        text_model: str = TEXT_MODEL, fallback: str | None = None,
                        headrules: str | None = None, *, tokenize: bool = True,
                        progress: Callable[[str], None] | None = None) -> ConllResult:
    """The sentences of a file with their d-parses: read (CoNLL with heads) or predicted
    (plain text, one sentence per line; CoNLL with HEAD "_"). Bad sentences are skipped and
    named, as by ``read_conll(on_error="skip")``; an empty or binary file raises InputError.
    A ``text_model`` that cannot be loaded raises ModelError, or with a ``fallback`` (a
    bundled text model's short name) is named in the result's note and the fallback
    predicts instead. A Penn or ``.psd`` file gives its own trees, its d-parses read off
    them by ``headrules`` (``pad_engine.io.treefiles``). Plain text is split into tokens as
    ``pad parse --tokenize`` splits it, or with ``tokenize`` False at white space only;
    ``progress`` hears what a long read is doing. A file :func:`open_for_annotation` read
    already is not read again."""
    say = progress or (lambda text: None)
    opened = path if isinstance(path, Opened) else open_for_annotation(path, encoding)
    name, decoded = opened.name, opened.decoded
    if opened.kind == "trees":
        return read_tree_file(name, encoding, headrules)
    if opened.kind == "conll":  # parse what is decoded already: the file is read once
        return parse_decoded(decoded, name, on_error="skip")
    unusable = ""
    say(f"Loading the text model {text_model}…")
    try:
        model, model_path = load_text_model(text_model)
    except ModelError as e:
        if fallback is None:
            raise
        model, model_path = load_text_model(fallback)
        unusable = f"the text model cannot be used ({e}): arcs predicted by the bundled " \
                   f"one, {model_path.name}"
    pipeline = TextPipeline(model)
    read = read_text(decoded.text, name, tokenized=not tokenize)
    skipped = [item for item in read if isinstance(item, InputError)]
    items = [item for item in read if not isinstance(item, InputError)]
    say(f"Tagging and parsing {len(items):,} sentences with {model_path.name}…")
    blocks, lines = [], []
    for item, a in zip(items, pipeline.analyze_many(items)):
        blocks.append(conll_lines(item, a.tags, a.heads, a.rels))
        lines.append(item.line)
    result = parse_conll("".join(blocks), name, on_error="skip")
    if len(result.sentences) == len(lines):  # line numbers of the file, not of the CoNLL made
        for sent, line in zip(result.sentences, lines):
            sent.line = line
    result.skipped = skipped + result.skipped
    result.predicted_by = model_path.name
    note = f"{name}: arcs predicted by the text model {model_path.name}: check them"
    result.note = "; ".join(n for n in (decoded.warning(name), unusable, note) if n)
    return result
