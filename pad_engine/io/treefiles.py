"""Penn (``.mrg``) and Penn-Helsinki (``.psd``) files opened for annotation: the file's own
trees are what the annotator corrects, and the d-parse the app draws as arcs is read off
each tree by a head table (as ``pad deps`` does).

Each tree keeps its phrase labels whole (function tags and indices, ``NP-SBJ-1``); its empty
elements (``-NONE-``: traces, null complementizers, ``.psd``'s ``*con*``) are removed with
the phrases they leave empty, since the d-parse and the words on screen have none. A tree
with no words left is skipped and named, like a malformed one.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pad_engine.errors import InputError
from pad_engine.io.conll import ConllResult, format_conllx
from pad_engine.trees.deptree import DepSentence
from pad_engine.trees.headrules import HeadRules, dependencies, lexicalize
from pad_engine.trees.lextree import LexNode, is_preterminal
from pad_engine.trees.walk import fold

if TYPE_CHECKING:
    from nltk import Tree

TREE_SUFFIXES = (".mrg", ".psd", ".ptb", ".penn")
DEFAULT_HEADRULES = "collins"  # Penn Treebank trees
PSD_HEADRULES = "icepahc"  # Penn-Helsinki trees


@dataclass
class TreeFileResult(ConllResult):
    """A tree file read for annotation: the sentences (words, tags, the head table's
    d-parse) and, index for index, the file's own lexicalized trees."""

    trees: list[LexNode] = field(default_factory=list)
    headrules: str = ""


def is_tree_file(path: str, text: str) -> bool:
    """Whether a file holds bracketed trees: by its suffix, or text that starts with a
    bracket, holds no tab (CoNLL has tabs) and reads as trees throughout (a line of text
    may start with a bracket too: "(Reuters) Shares fell")."""
    if path.lower().endswith(TREE_SUFFIXES):
        return True
    if not text.lstrip("\ufeff \t\r\n").startswith("(") or "\t" in text[:65536]:
        return False
    from pad_engine.io.penn import parse_penn  # nltk: only when a file may hold trees

    found = parse_penn(text, path, on_error="skip")
    return bool(found.trees) and not found.skipped


def read_tree_file(path: str | os.PathLike[str], encoding: str | None = None,
                   headrules: str | None = None) -> TreeFileResult:
    """The trees of a Penn or ``.psd`` file with their d-parses (``headrules``: a shipped
    table's name or a table file; None: collins, icepahc for Penn-Helsinki trees). Bad trees are
    skipped and named; a table that cannot be read raises InputError."""
    from pad_engine.io.penn import read_penn
    from pad_engine.io.psd import is_psd

    name = os.fspath(path)
    read = read_penn(name, on_error="skip", encoding=encoding)
    table = headrules or (PSD_HEADRULES if is_psd(read.trees, name) else DEFAULT_HEADRULES)
    rules = HeadRules.load(table)
    said = f"the file's own trees, their arcs read off them by the {table} head table"
    note = "; ".join(n for n in (read.note, said) if n)
    result = TreeFileResult([], list(read.skipped), note=note, headrules=table)
    ids = read.ids or [None] * len(read.trees)
    for tree, line, ident in zip(read.trees, read.lines, ids):
        kept = without_empty(tree)
        if kept is None:
            result.skipped.append(InputError("the tree has no words once its empty elements "
                                             "are removed", name, line))
            continue
        words, tags, heads, rels = dependencies(kept, rules)
        try:
            lines = format_conllx(words, tags, heads, rels).rstrip("\n").split("\n")
        except ValueError as e:
            result.skipped.append(InputError(str(e), name, line))
            continue
        result.sentences.append(DepSentence(words, tags, heads, rels, lines, name, line,
                                            ident))
        result.trees.append(lexicalize(kept, rules))
    return result


def without_empty(tree: Tree) -> Tree | None:
    """The tree without ``-NONE-`` preterminals and the phrases left empty, its labels kept
    as they are (``pad_engine.io.penn.normalize`` also strips function tags); None when no
    word is left."""
    from nltk import Tree

    def visit(node: Tree, kids: list[Tree | None]) -> Tree | None:
        if is_preterminal(node):
            return None if node.label() == "-NONE-" else Tree(node.label(), [node[0]])
        kept = [k for k in kids if k is not None]
        return Tree(node.label(), kept) if kept else None

    return fold(tree, lambda n: [] if is_preterminal(n) else list(n), visit)
