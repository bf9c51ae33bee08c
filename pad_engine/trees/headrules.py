"""Head rules: which child heads each phrase, read from editable text tables.

Applying a head table to a Penn tree lexicalizes it, and the d-parse follows (the head word
of every non-head child depends on the head word of the head child). Tables live in
``pad_engine/data/headrules/*.txt``; their format is documented in the header of each shipped
table and in ``HeadRules.parse``. Two tables ship: ``collins`` (Collins 1999) and
``content`` (content words head, so the d-parses look like Universal Dependencies).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pad_engine.errors import InputError
from pad_engine.io.gate import TABLE_BYTES, read_bytes
from pad_engine.io.limits import line_problem
from pad_engine.trees.lextree import LexNode, is_preterminal, positioned, strip_label
from pad_engine.trees.walk import fold

if TYPE_CHECKING:  # nltk (and scipy with it) is imported where trees are read, not here
    from nltk import Tree

SHIPPED = ("collins", "content", "icepahc")
_DIRECTIONS = {"left": (False, False), "right": (True, False),
               "left-any": (False, True), "right-any": (True, True)}


@dataclass(frozen=True)
class _Spec:
    """One label pattern: ``NP``, ``VB*`` (prefix), ``*`` (any), each optionally ``:CLASS``."""

    label: str
    prefix: bool
    words: frozenset[str] | None  # the head word (lower-cased) must be in this class

    def matches(self, label: str, word: str | None) -> bool:
        if self.prefix:
            if not label.startswith(self.label):
                return False
        elif label != self.label:
            return False
        return self.words is None or (word is not None and word.lower() in self.words)


@dataclass(frozen=True)
class _Step:
    """One table line: search ``specs`` from one side, if some child matches ``condition``."""

    from_right: bool
    any_order: bool  # True: the first child matching any spec; False: by spec priority
    specs: tuple[_Spec, ...]
    condition: tuple[_Spec, ...]
    ranks: dict[str, int] | None  # spec rank by label, when every spec is a plain label


class HeadRules:
    """A head table; ``head_child`` picks the head child of one phrase."""

    def __init__(self, rules: dict[str, list[_Step]], default: list[_Step],
                 skip: frozenset[str], coordination: frozenset[str], source: str):
        self._rules = rules
        self._default = default
        self._skip = skip
        self._coordination = coordination
        self.source = source

    @classmethod
    def load(cls, name_or_path: str | os.PathLike[str]) -> HeadRules:
        """A shipped table by name ("collins", "content") or a table file by path."""
        name = os.fspath(name_or_path)
        if name in SHIPPED:
            from pad_engine.resources import resource_path

            path = str(resource_path("headrules", name + ".txt"))
        else:
            path = name
            if not os.path.lexists(path):
                raise InputError(f"no head-rule table {name!r}: no such file, and the shipped "
                                 f"tables are {', '.join(SHIPPED)}")
        data = read_bytes(path, "head table", TABLE_BYTES)  # never a FIFO (a model names it)
        try:
            return cls.parse(data.decode("utf-8"), path)
        except UnicodeDecodeError as err:
            raise InputError(f"not UTF-8 text ({err.reason} at byte {err.start})", path) from None

    @classmethod
    def parse(cls, text: str, path: str | None = None) -> HeadRules:
        """Read a table. Lines (blank lines and lines starting with ``#`` are ignored)::

            @skip LABEL ...            never pick these by position (punctuation)
            @coordination LABEL ...    a head right after one of these moves to the left conjunct
            @words CLASS WORD ...      a case-insensitive word class, for SPEC:CLASS
            PARENT DIRECTION [SPEC ...] [if SPEC ...]

        DIRECTION is ``left``/``right`` (Collins: for each SPEC in priority order, the first
        matching child from that side) or ``left-any``/``right-any`` (the first child from that
        side matching any SPEC). Several lines for one PARENT are tried in order; a line with
        ``if`` applies only when some child matches one of the SPECs after it; a line without
        SPECs takes the first child from its side. When no line finds a child, the head is
        the first child from the side of the parent's last line. PARENT ``*`` gives the rules
        of labels the table does not list. SPEC is a label, ``PREFIX*`` or ``*``, optionally
        followed by ``:CLASS`` (the child's head word must be in the class).
        """
        rules: dict[str, list[_Step]] = {}
        classes: dict[str, set[str]] = {}
        skip: set[str] = set()
        coordination: set[str] = set()
        found = line_problem(text.split("\n"))
        if found:
            raise InputError(found[1], path, found[0])
        for number, raw in enumerate(text.splitlines(), 1):
            fields = raw.split()
            if not fields or fields[0].startswith("#"):
                continue

            def fail(problem: str, number: int = number) -> InputError:
                return InputError(problem, path, number)

            head, rest = fields[0], fields[1:]
            if head.startswith("@"):
                if head == "@skip":
                    skip.update(rest)
                elif head == "@coordination":
                    coordination.update(rest)
                elif head == "@words":
                    if len(rest) < 2:
                        raise fail("@words needs a class name and at least one word")
                    classes.setdefault(rest[0], set()).update(w.lower() for w in rest[1:])
                else:
                    raise fail(f"unknown directive {head!r} "
                               "(known: @skip, @coordination, @words)")
                continue
            if not rest:
                raise fail(f"rule for {head!r} has no direction "
                           f"(one of {', '.join(_DIRECTIONS)})")
            if rest[0] not in _DIRECTIONS:
                raise fail(f"unknown direction {rest[0]!r} (one of {', '.join(_DIRECTIONS)})")
            from_right, any_order = _DIRECTIONS[rest[0]]
            words = rest[1:]
            condition: list[str] = []
            if "if" in words:
                cut = words.index("if")
                words, condition = words[:cut], words[cut + 1:]
                if not condition:
                    raise fail("'if' must be followed by at least one label")
            specs = tuple(_spec(w, classes, fail) for w in words)
            plain = all(not s.prefix and s.words is None for s in specs)
            ranks = {s.label: i for i, s in reversed(list(enumerate(specs)))} if plain else None
            step = _Step(from_right, any_order, specs,
                         tuple(_spec(w, classes, fail) for w in condition), ranks)
            rules.setdefault(head, []).append(step)
        default = rules.pop("*", None) or [_Step(False, False, (), (), {})]
        return cls(rules, default, frozenset(skip), frozenset(coordination), path or "<input>")

    def head_child(self, parent_label: str, child_labels: list[str],
                   child_words: list[str] | None = None) -> int:
        """Index of the head child of a phrase. Labels are looked up without function tags;
        ``child_words`` are the children's head words, needed only by ``SPEC:CLASS`` patterns
        (without them such patterns never match)."""
        n = len(child_labels)
        if n < 2:
            return 0
        labels = [strip_label(label) for label in child_labels]
        steps = self._rules.get(strip_label(parent_label), self._default)
        for step in steps:
            if step.condition and not any(
                spec.matches(labels[i], child_words[i] if child_words else None)
                for spec in step.condition for i in range(n)
            ):
                continue
            head = self._search(step, labels, child_words)
            if head is not None:
                break
        else:
            head = self._by_position(labels, steps[-1].from_right)
        if head >= 2 and labels[head - 1] in self._coordination:
            left = head - 2
            while left >= 0 and labels[left] in self._skip:
                left -= 1
            if left >= 0:
                head = left
        return head

    def _search(self, step: _Step, labels: list[str], words: list[str] | None) -> int | None:
        n = len(labels)
        order = range(n - 1, -1, -1) if step.from_right else range(n)
        if not step.specs:
            return self._by_position(labels, step.from_right)
        if step.ranks is not None:  # plain labels: one pass over the children
            if step.any_order:
                return next((i for i in order if labels[i] in step.ranks), None)
            best, best_rank = None, len(step.specs)
            for i in order:
                rank = step.ranks.get(labels[i], best_rank)
                if rank < best_rank:
                    best, best_rank = i, rank
                    if rank == 0:
                        break
            return best
        if step.any_order:
            for i in order:
                word = words[i] if words else None
                if any(spec.matches(labels[i], word) for spec in step.specs):
                    return i
            return None
        for spec in step.specs:
            for i in order:
                if spec.matches(labels[i], words[i] if words else None):
                    return i
        return None

    def _by_position(self, labels: list[str], from_right: bool) -> int:
        order = range(len(labels) - 1, -1, -1) if from_right else range(len(labels))
        for i in order:
            if labels[i] not in self._skip:
                return i
        return order[0]


def _spec(text: str, classes: dict[str, set[str]], fail) -> _Spec:
    label, words = text, None
    cut = text.rfind(":")
    if cut > 0:
        label, name = text[:cut], text[cut + 1:]
        if name not in classes:
            raise fail(f"unknown word class {name!r} in {text!r} (define it first with @words)")
        words = frozenset(classes[name])
    if not label:
        raise fail(f"empty label in {text!r}")
    if label.endswith("*"):
        return _Spec(label[:-1], True, words)
    return _Spec(label, False, words)


def head_children(tree: Tree, rules: HeadRules) -> dict[tuple[int, ...], int]:
    """The head child of every phrase (preterminals excluded), keyed by nltk tree position.

    A position is as long as its node is deep, so this costs time and memory quadratic in
    the tree's depth: :func:`lexicalize` is the linear way to a lexicalized tree."""
    positions: dict[tuple[int, ...], int] = {}
    _lexicalize(tree, rules, [], [], None, None, positions)
    return positions


def lexicalize(tree: Tree, rules: HeadRules) -> LexNode:
    """The tree with the head child of every phrase, as ``from_penn(tree, head_children(tree,
    rules))`` makes it, in time and memory linear in the tree's size whatever its depth."""
    words: list[str] = []

    def visit(node: Tree, found: list[tuple[LexNode, int]]) -> tuple[LexNode, int]:
        if is_preterminal(node):
            words.append(node[0])
            return LexNode(node.label(), [], 0, len(words) - 1), len(words) - 1
        h = rules.head_child(node.label(), [child.label() for child in node],
                             [words[w] for _, w in found])
        return LexNode(node.label(), [kid for kid, _ in found], h, -1), found[h][1]

    return fold(tree, _children, visit)[0]


def _children(node: Tree) -> list[Tree]:
    return [] if is_preterminal(node) else list(node)


def dependencies(tree: Tree, rules: HeadRules) -> tuple[list[str], list[str], list[int], list[str]]:
    """The d-parse a head table induces on a normalized tree: (words, tags, heads, rels).

    ``heads`` are 1-based, 0 for the head word of the whole tree. The relation of a dependent
    names where it attaches: ``PARENT:DEPENDENT>HEAD``, the labels (without function tags) of
    the phrase, of the dependent's maximal projection and of the head child; e.g. a subject
    gets ``S:NP>VP``. The root word gets ``ROOT``.
    """
    words: list[str] = []
    tags: list[str] = []
    heads: list[int] = []
    rels: list[str] = []
    _lexicalize(tree, rules, words, tags, heads, rels, None)
    return words, tags, heads, rels


def _lexicalize(tree: Tree, rules: HeadRules, words: list[str], tags: list[str],
                heads: list[int] | None, rels: list[str] | None,
                positions: dict[tuple[int, ...], int] | None) -> int:
    """Walk bottom-up (iteratively: trees may nest deeper than Python recurses); return the
    index of the tree's head word."""

    def visit(item: tuple[Tree, tuple[int, ...]], found: list[int]) -> int:
        node, pos = item
        if is_preterminal(node):
            words.append(node[0])
            tags.append(node.label())
            if heads is not None:
                heads.append(0)
                rels.append("ROOT")
            return len(words) - 1
        labels = [child.label() for child in node]
        h = rules.head_child(node.label(), labels, [words[w] for w in found])
        if positions is not None:
            positions[pos] = h
        if heads is not None:
            head_word = found[h] + 1
            where = f"{strip_label(node.label())}:"
            to = f">{strip_label(labels[h])}"
            for i, w in enumerate(found):
                if i != h:
                    heads[w] = head_word
                    rels[w] = where + strip_label(labels[i]) + to
        return found[h]

    if positions is None:  # no positions: they would cost memory quadratic in the depth
        return fold((tree, ()), lambda item: [(c, ()) for c in _children(item[0])], visit)
    return fold((tree, ()), positioned, visit)
