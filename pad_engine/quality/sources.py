"""Reading treebanks as searchable sentences: c-trees with d-parses beside them.

A Penn file gives c-trees; its d-parse is read off them by the head table (as ``pad deps``
does, DEPREL naming parent, dependent and head phrase: ``S:NP>VP``). A CoNLL file gives
d-parses; its c-trees come from a Penn file of the same sentences (``pad convert``'s output)
or are decoded here. When a c-tree and a d-parse come from different files, each phrase's
head word is the word of its span whose head lies outside it (the highest in the d-parse),
so arcs relate phrases however the trees were made.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pad_engine.errors import InputError
from pad_engine.io.conll import read_conll
from pad_engine.io.treefiles import without_empty
from pad_engine.quality.forest import Sentence
from pad_engine.trees.deptree import DepSentence, depths
from pad_engine.trees.headrules import HeadRules, dependencies, lexicalize
from pad_engine.trees.lextree import LexNode, is_preterminal, penn_words
from pad_engine.trees.walk import fold

if TYPE_CHECKING:  # nltk (and scipy with it) is imported when trees are read, not here
    from nltk import Tree

CONLL_SUFFIXES = (".conll", ".conllu", ".conllx")


def is_conll(path: str | os.PathLike[str]) -> bool:
    return Path(path).suffix.lower() in CONLL_SUFFIXES


def penn_sentences(path: str, rules: HeadRules, encoding: str | None = None,
                   warn: Callable[[str], None] | None = None) -> list[Sentence]:
    """The trees of a Penn file, each with the d-parse its head table induces."""
    from pad_engine.io.penn import normalize, read_penn

    result = read_penn(path, encoding=encoding)
    if result.note and warn:
        warn(result.note)
    out = []
    for number, (raw, line) in enumerate(zip(result.trees, result.lines), 1):
        tree = without_empty(raw)
        if tree is None or not len(tree):
            raise InputError("tree has no words once its empty elements are removed", path,
                             line)
        norm = normalize(tree)
        forms, tags, heads, rels = dependencies(norm, rules)
        lex = lexicalize(tree, rules)  # its labels kept; the table reads them untagged
        out.append(Sentence(lex, forms, tags, heads, rels, path, number))
    return out


def paired_sentences(conll: str, penn: str, encoding: str | None = None,
                     warn: Callable[[str], None] | None = None) -> list[Sentence]:
    """A CoNLL file's d-parses with the c-trees of a Penn file of the same sentences."""
    deps = read_conll(conll, encoding=encoding)
    from pad_engine.io.penn import read_penn

    trees = read_penn(penn, encoding=encoding)
    for note in (deps.note, trees.note):
        if note and warn:
            warn(note)
    if len(deps.sentences) != len(trees.trees):
        raise InputError(f"{len(trees.trees)} trees here but {len(deps.sentences)} sentences "
                         f"in {conll}", penn)
    out = []
    for number, (sent, raw, line) in enumerate(zip(deps.sentences, trees.trees, trees.lines),
                                               1):
        tree = without_empty(raw)
        words = 0 if tree is None else len(penn_words(tree))
        if words != len(sent.forms):
            raise InputError(f"tree {number} has {words} words but sentence {number} of "
                             f"{conll} has {len(sent.forms)}", penn, line)
        out.append(dep_sentence(sent, by_dparse(tree, sent.heads), conll, number))
    return out


def decoded_sentences(conll: str, converter=None, encoding: str | None = None,
                      warn: Callable[[str], None] | None = None) -> list[Sentence]:
    """A CoNLL file's d-parses with the c-trees the converter (default: the one that fits
    the file) decodes from them."""
    from pad_engine.decoding.choice import choose

    deps = read_conll(conll, encoding=encoding)
    if deps.note and warn:
        warn(deps.note)
    if converter is None:
        converter = choose(deps.sentences).engine
    return [dep_sentence(s, converter.best(s).tree, conll, number)
            for number, s in enumerate(deps.sentences, 1)]


def dep_sentence(sent: DepSentence, tree: LexNode, file: str, number: int,
                 status: str = "machine") -> Sentence:
    return Sentence(tree, list(sent.forms), list(sent.tags), list(sent.heads),
                    list(sent.rels), file, number, status)


def by_dparse(tree: Tree, heads: Sequence[int]) -> LexNode:
    """Lexicalize an nltk tree by a d-parse: each phrase is headed by the child that holds
    the word of its span highest in the d-parse (leftmost on ties)."""
    depth = depths(heads)
    counter = [0]

    def build(node: Tree, kids: list[tuple[LexNode, int]]) -> tuple[LexNode, int]:
        if is_preterminal(node):
            counter[0] += 1
            w = counter[0] - 1
            return LexNode(node.label(), [], 0, w), w
        best = min(range(len(kids)), key=lambda i: (depth[kids[i][1]], kids[i][1]))
        return LexNode(node.label(), [k for k, _ in kids], best, -1), kids[best][1]

    root, _ = fold(tree, lambda n: [] if is_preterminal(n) else list(n), build)
    return root


def trees_for(path: str, sentences: Sequence[DepSentence], encoding: str | None = None
              ) -> list[LexNode]:
    """Another annotation's c-trees of these sentences (a Penn file, one tree per sentence
    in order, e.g. another annotator's export), lexicalized by the sentences' d-parses."""
    from pad_engine.io.penn import read_penn

    result = read_penn(path, encoding=encoding)
    if len(result.trees) != len(sentences):
        raise InputError(f"{len(result.trees)} trees here but {len(sentences)} sentences in "
                         "the open file", path)
    out = []
    for number, (sent, raw, line) in enumerate(zip(sentences, result.trees, result.lines), 1):
        tree = without_empty(raw)
        words = [] if tree is None else penn_words(tree)
        if len(words) != len(sent.forms):
            raise InputError(f"tree {number} has {len(words)} words but sentence {number} "
                             f"has {len(sent.forms)}", path, line)
        out.append(by_dparse(tree, sent.heads))
    return out


def read_sentences(paths: Sequence[str], trees: Sequence[str] = (), headrules: str = "collins",
                   encoding: str | None = None, warn: Callable[[str], None] | None = None
                   ) -> list[Sentence]:
    """Every sentence of the files: Penn files as they are, CoNLL files with the c-trees of
    ``trees`` (one Penn file per CoNLL file, in order) or decoded."""
    conll = [p for p in paths if is_conll(p)]
    if trees and len(trees) != len(conll):
        raise InputError(f"{len(trees)} --trees files for {len(conll)} CoNLL files")
    paired = dict(zip(conll, trees))
    rules = None
    out: list[Sentence] = []
    for path in paths:
        if Path(path).suffix.lower() == ".padproject":
            raise InputError("a project: search, check or compare it in the app, or export "
                             "its trees (File > Export Penn Trees) and give that file", path)
        if path in paired:
            out += paired_sentences(path, paired[path], encoding, warn)
        elif is_conll(path):
            out += decoded_sentences(path, encoding=encoding, warn=warn)
        else:
            rules = rules or HeadRules.load(headrules)
            out += penn_sentences(path, rules, encoding, warn)
    return out
