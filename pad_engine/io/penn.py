"""Penn-bracketed trees: reading, normalizing for training/evaluation, writing one per line.

Every tree this module returns is rooted in a node labelled ``TOP`` whose children are the
tree's original top-level constituents, whatever wrapper the file used (``( (S ...) )``,
``(TOP ...)``, ``(ROOT ...)`` or none). Files are read and split here by counting brackets,
not with nltk's corpus readers: that is faster, gives line numbers for every tree and error,
and works on any path (recent nltk refuses readers outside its data folders).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TextIO

from nltk import Tree

from pad_engine.errors import InputError
from pad_engine.io.encoding import read_text
from pad_engine.io.gate import write_text
from pad_engine.io.psd import from_psd, is_psd
from pad_engine.trees.lextree import escape_word, is_preterminal, strip_label
from pad_engine.trees.walk import fold

_TOKEN = re.compile(r"\(|\)|[^\s()]+")
_WRAPPERS = ("", "TOP", "ROOT")


@dataclass
class PennResult:
    """Trees read from one text, the 1-based line each starts on, and what was skipped."""

    trees: list[Tree] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    skipped: list[InputError] = field(default_factory=list)
    ids: list[str | None] = field(default_factory=list)  # Penn-Helsinki tree IDs, if any
    note: str | None = None  # a warning about the file's encoding, if it was not UTF-8


def read_penn(path: str | os.PathLike[str], *, on_error: str = "raise",
              encoding: str | None = None) -> PennResult:
    """Read every tree of a Penn-bracketed file (see ``parse_penn``): UTF-8 (a BOM
    allowed) or ``encoding``, as ``read_conll`` reads; any line ending. A line that cannot be
    decoded is an error of the tree it is in (the rest of the file still reads). Penn-Helsinki
    trees (``.psd``) come back in Penn Treebank form, with their IDs (``pad_engine.io.psd``)."""
    name = os.fspath(path)
    decoded = read_text(name, encoding, newlines=True)
    result = _parse(decoded.text, name, on_error, decoded.bad)
    result.note = decoded.warning(name)
    if is_psd(result.trees, name):
        converted = from_psd(result.trees)
        result.trees = [t.tree for t in converted]
        result.ids = [t.id for t in converted]
    return result


def parse_penn(text: str, path: str | None = None, *, on_error: str = "raise") -> PennResult:
    """Parse one or many bracketed trees (one or several lines each) from ``text``.

    ``on_error="raise"`` raises the first ``InputError``; ``"skip"`` records it in
    ``skipped`` and goes on with the next tree, so one bad tree does not cost a whole file.
    A leading BOM is ignored.
    """
    return _parse(text.removeprefix("\ufeff"), path, on_error, {})


def _parse(text: str, path: str | None, on_error: str, bad: dict[int, str]) -> PennResult:
    """``bad`` maps line numbers to the problem of a line whose bytes were not UTF-8."""
    if on_error not in ("raise", "skip"):
        raise ValueError(f"on_error must be 'raise' or 'skip', not {on_error!r}")
    result = PennResult()
    lines = text.split("\n")
    first: int | None = 0
    while first is not None:
        first = _scan(lines, first, path, on_error, result, bad)
    return result


def _scan(lines: list[str], first: int, path: str | None, on_error: str, result: PennResult,
          bad: dict[int, str]) -> int | None:
    """Read trees from line index ``first`` on; after an unclosed tree, return the line
    index to resume at (None when done)."""
    stack: list[list] = []  # open nodes: [label, children, line of "(", number of words]
    start = 0  # line number of the current tree's "("
    stray = False  # inside a run of text outside brackets (reported once per run)
    broken = False  # the current tree had an error: report it once, drop the tree
    # The open tree's error waits for the tree to close: if the text ends first, the trees
    # after its start are read again (and their errors found again), so it is dropped then.
    pending: list[InputError] = []

    def report(err: InputError) -> None:
        if on_error == "raise":
            raise err
        result.skipped.append(err)

    def fail(problem: str, line: int) -> None:
        nonlocal broken
        if stack:
            if not broken:
                broken = True
                pending.append(InputError(problem, path, line))
            return
        report(InputError(problem, path, line))

    for number in range(first + 1, len(lines) + 1):
        undecodable = bad.get(number) if bad else None
        for tok in _TOKEN.findall(lines[number - 1]):
            if undecodable is not None and "\ufffd" in tok:  # the replaced bytes
                fail(undecodable, number)
                undecodable = None
                stray = stray or not stack  # said already: not "text outside brackets" too
            if tok == "(":
                stray = False
                if not stack:
                    start = number
                    broken = False
                stack.append([None, [], number, 0])
            elif tok == ")":
                stray = False
                if not stack:
                    fail("unbalanced brackets: ')' without a matching '('", number)
                    continue
                node = None if broken else _make_node(stack[-1], len(stack) == 1, fail)
                stack.pop()
                if stack:
                    stack[-1][1].append(node)
                elif node is not None:
                    result.trees.append(node)
                    result.lines.append(start)
                elif pending:
                    report(pending.pop())
            elif not stack:
                if not stray:
                    fail(f"text outside brackets: {_shown(tok)}", number)
                    stray = True
            elif stack[-1][0] is None:
                stack[-1][0] = tok
            else:
                stack[-1][1].append(tok)
                stack[-1][3] += 1
    if not stack:
        return None
    report(InputError(f"unbalanced brackets: {len(stack)} '(' not closed by the end of the "
                      "text (tree starts here)", path, start))
    # Recover at the next line that opens a tree in column 0: the usual layout of both
    # one-line and indented treebank files, so the missing ')' costs one tree, not the rest.
    return next((i for i in range(start, len(lines)) if lines[i].startswith("(")), None)


def _shown(text: str, limit: int = 40) -> str:
    """``text`` quoted for an error message, cut short: a binary file's run of bytes without
    white space would otherwise make the one-line message megabytes long."""
    return repr(text) if len(text) <= limit else f"{text[:limit]!r}... ({len(text)} characters)"


def _make_node(entry: list, is_root: bool, fail) -> Tree | None:
    """The finished node, or None (after reporting) when it breaks the tree's shape."""
    label, children, line, n_words = entry
    if not is_root:
        if label and children and (n_words == 0 or len(children) == 1):
            return Tree(label, children)  # a phrase or a preterminal: the usual cases
        if not label:
            fail("constituent without a label", line)
            return None
    if not children:
        fail("empty tree '()'" if not label else f"empty constituent ({label})", line)
        return None
    wrapper = (label or "") in _WRAPPERS
    if n_words and (len(children) > 1 or wrapper):
        word = next(c for c in children if isinstance(c, str))
        fail(f"word {word!r} has no preterminal of its own: write it as (TAG {word})", line)
        return None
    if not is_root:
        return Tree(label, children)
    if not wrapper:
        return Tree("TOP", [Tree(label, children)])
    if len(children) == 1 and children[0].label() in _WRAPPERS:
        return Tree("TOP", list(children[0]))  # ( (ROOT ...) ): two wrappers
    return Tree("TOP", children)


def normalize(tree: Tree, *, keep_empty: bool = False) -> Tree:
    """The tree as training and evaluation see it (and EVALB compares it).

    Removes ``-NONE-`` preterminals and every constituent left empty (unless ``keep_empty``),
    strips function tags and indices from phrase labels, and roots the result in ``TOP``.
    POS tags are kept as they are; unary chains are kept (collapsing them hurts the model).
    A tree with nothing but empty elements comes back as a childless ``TOP``. Iterative, as
    every walker here: a tree may nest deeper than Python recurses.
    """

    def visit(node: Tree, kids: list[Tree | None]) -> Tree | None:
        if is_preterminal(node):
            if node.label() == "-NONE-" and not keep_empty:
                return None
            return Tree(node.label(), [node[0]])
        kept = [k for k in kids if k is not None]
        return Tree(strip_label(node.label()), kept) if kept else None

    def children(node: Tree) -> list[Tree]:
        return [] if is_preterminal(node) else list(node)

    tops = list(tree) if tree.label() in _WRAPPERS else [tree]
    normalized = (fold(top, children, visit) for top in tops)
    return Tree("TOP", [c for c in normalized if c is not None])


def tree_to_line(tree: Tree) -> str:
    """The tree on one line, ``(TOP (S (NP (NNP Pierre)) ...))``, single spaces.

    Built directly rather than with ``pformat`` (this is on the conversion hot path), without
    recursion; words are written with :func:`pad_engine.trees.lextree.escape_word`.
    """
    parts: list[str] = []
    stack: list[Tree | str] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            parts.append(node)
        elif is_preterminal(node):
            parts.append(f"({node.label()} {escape_word(node[0])})")
        else:
            parts.append("(" + node.label())
            stack.append(")")
            for child in reversed(node):
                stack.append(child)
                stack.append(" ")
    return "".join(parts)


def write_penn(trees: Iterable[Tree], path_or_textio: str | os.PathLike[str] | TextIO) -> None:
    """Write one tree per line; to a path atomically (a failed write leaves the old file)."""
    text = "".join(tree_to_line(t) + "\n" for t in trees)
    if hasattr(path_or_textio, "write"):
        path_or_textio.write(text)
    else:
        write_text(path_or_textio, text)
