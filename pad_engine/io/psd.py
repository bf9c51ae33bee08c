"""Penn-Helsinki parsed corpora (``.psd``: IcePaHC, FarPaHC, the Penn parsed corpora of
historical English) as Penn trees the rest of PAD Studio reads.

Their bracketing is Penn's, with conventions of their own, undone here:

* every tree is ``( (IP-MAT ...) (ID CORPUS,.12))``: the ``ID`` names the tree (CoNLL files
  derived from the corpus cite it in ``# X_ID``/``# X_IDs``/``# sent_id``), and ``CODE``,
  ``METADATA``, ``REF`` and ``LB`` nodes hold no words of the text: they are dropped;
* empty categories are leaves of phrases, ``(NP-SBJ *T*-2)``, ``(WNP-1 0)``,
  ``(NP-SBJ *exp*)``, ``*con*``, ``*pro*``, ``*ICH*-3``: they become ``-NONE-`` leaves, which
  :func:`pad_engine.io.penn.normalize` removes with the phrases left empty;
* a word split into clitics is written ``orð$ $ið``: the parts are joined back into the word
  (``orðið``, with the first part's tag), as CoNLL files of the same text have it;
* IcePaHC writes every word with its lemma, ``orðið-orð``; where most words of a file are
  written so, the lemma is cut off; punctuation is ``,-,`` in both styles;
* indices on labels (``NP-SBJ-1``, ``NP=2``) are cut by normalization as in the PTB.

The head table ``icepahc`` (pad_engine/data/headrules/icepahc.txt) lexicalizes such trees.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from nltk import Tree

from pad_engine.trees.lextree import penn_words

NON_TEXT = frozenset({"ID", "CODE", "METADATA", "REF", "LB"})
_EMPTY = re.compile(r"(0|\*\w*\*|\*)(-\d+)*")
_LEMMA_SHARE = 0.9  # share of a file's words written word-lemma above which lemmas are cut


@dataclass
class PsdTree:
    """One tree of a ``.psd`` file as a Penn tree rooted in TOP, and its ``ID`` if any."""

    tree: Tree
    id: str | None


def is_psd(trees: list[Tree], path: str | None = None) -> bool:
    """Whether trees read from ``path`` follow the Penn-Helsinki conventions: a ``.psd`` file,
    or trees whose top level holds an ``ID`` node."""
    if path is not None and path.lower().endswith(".psd"):
        return True
    return any(isinstance(c, Tree) and c.label() == "ID" for t in trees[:5] for c in t)


def from_psd(trees: list[Tree]) -> list[PsdTree]:
    """The trees (as the reader returns them, rooted in TOP) in Penn Treebank form."""
    ids = [_take_id(t) for t in trees]
    leaves = [_preterminals(t) for t in trees]
    words = [p[0] for ps in leaves for p in ps if p.label() != "-NONE-"]
    lemmas = bool(words) and sum(_lemma_split(w) is not None for w in words) \
        > _LEMMA_SHARE * len(words)
    for pre in leaves:
        _unsplit(pre, lemmas)
    return [PsdTree(tree, ident) for tree, ident in zip(trees, ids)]


def _take_id(tree: Tree) -> str | None:
    """Remove the top-level ID node and return its text."""
    for i, child in enumerate(tree):
        if isinstance(child, Tree) and child.label() == "ID":
            del tree[i]
            return " ".join(penn_words(child))
    return None


def _preterminals(tree: Tree) -> list[Tree]:
    """The preterminals left to right, after dropping non-text nodes and marking empty
    categories ``-NONE-`` (iterative: no recursion limit on deep trees)."""
    out = []
    stack = [tree]
    while stack:
        node = stack.pop()
        if len(node) == 1 and isinstance(node[0], str):
            if _EMPTY.fullmatch(node[0]):
                node.set_label("-NONE-")
            out.append(node)
            continue
        node[:] = [c for c in node if not (isinstance(c, Tree) and c.label() in NON_TEXT)]
        stack.extend(c for c in reversed(node) if isinstance(c, Tree))
    return out


def _lemma_split(word: str) -> str | None:
    """The form of ``form-lemma``, or None when the word is not written so."""
    form, dash, lemma = word.rpartition("-")
    return form if dash and form and lemma else None


def _unsplit(pre: list[Tree], lemmas: bool) -> None:
    """Cut lemmas and join ``word$ $clitic`` parts, in place."""
    kept = [p for p in pre if p.label() != "-NONE-"]
    for p in kept:
        form = _lemma_split(p[0])
        if form is not None and (lemmas or form == p[0][len(form) + 1:]):
            p[0] = form
    # a run of parts is joined once, at its end: joining pair by pair copied the word so far
    # at each part (quadratic: an 800 KB tree of 100,000 parts took past 2.7 GB)
    run: list[Tree] = []  # the parts joined so far; all but the last become -NONE-
    pieces: list[str] = []  # the word they make: "".join(pieces)
    for p in kept:
        while pieces and not pieces[-1]:
            pieces.pop()
        if run and pieces and pieces[-1].endswith("$") and p[0].startswith("$"):
            pieces[-1] = pieces[-1][:-1]
            pieces.append(p[0][1:])
            run.append(p)
            continue
        _join(run, pieces)
        run, pieces = [p], [p[0]]
    _join(run, pieces)


def _join(run: list[Tree], pieces: list[str]) -> None:
    if len(run) > 1:
        run[-1][0] = "".join(pieces)
        run[-1].set_label(run[0].label())
        for part in run[:-1]:
            part.set_label("-NONE-")


def conll_ids(comments: list[str], sent_id: str | None) -> list[str]:
    """The tree IDs a CoNLL sentence of a Penn-Helsinki corpus cites: ``# X_IDs = a ; b``,
    ``# X_ID = a``, else its ``sent_id``."""
    for line in comments:
        key, eq, value = line.lstrip("#").partition("=")
        if eq and key.strip() in ("X_IDs", "X_ID"):
            return [v.strip() for v in value.split(";") if v.strip()]
    return [sent_id] if sent_id else []
