"""The search language: a Tregex subset over c-trees plus arcs of the d-parse.

A pattern is a node description followed by relations to other patterns, every relation
about the first node (``NP < DT < NN``: an NP with a DT child and an NN child; parentheses
nest: ``S < (NP < DT)``). Parsed here into a small tree of :class:`Pattern`; the matcher
(``quality.match``) and the tests' brute-force matcher both read that tree.

Node descriptions: ``NP`` (a label, with or without function tags: ``NP`` matches
``NP-SBJ-1``), ``NP|VP`` (either), ``/^V/`` (a regular expression searched in the full
label), ``__`` (any node), ``!NP`` (any node but an NP); ``=name`` after a description names
the node, ``=name`` alone is that same node again. Words are nodes too (the only child of
their preterminal, labeled with the word).

Relations (``!`` before one negates it): ``<`` child, ``<<`` descendant, ``>`` parent,
``>>`` ancestor, ``$`` sister, ``.`` immediately precedes, ``..`` precedes, ``,``
immediately follows, ``,,`` follows; arcs between head words: ``-rel->`` (B's head word
depends on A's with DEPREL ``rel``: its whole value or the part before ":"), ``-/re/->``
(a DEPREL that the expression finds), ``-->`` (any DEPREL), and ``<-rel-``, ``<-/re/-``,
``<--`` the other way (A's head word depends on B's).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pad_engine.errors import InputError

TREE_RELATIONS = ("<<", "<", ">>", ">", "$", "..", ".", ",,", ",")
ARC_DOWN, ARC_UP = "->", "<-"  # arcs head to dependent, dependent to head
_STOP = set(" \t\n()<>$!=|/@")  # what ends a bare label


@dataclass(frozen=True)
class Test:
    """A DEPREL or label test: exact (or the part before the separator) or a regex."""

    text: str
    regex: re.Pattern | None = None

    def matches(self, value: str, cut: str) -> bool:
        if self.regex is not None:
            return self.regex.search(value) is not None
        return value == self.text or value.split(cut, 1)[0] == self.text


@dataclass(frozen=True)
class Node:
    """Which tree nodes a description accepts. ``labels`` empty with no ``regex``: any node
    (``__``); ``ref``: the node named so earlier."""

    labels: tuple[str, ...] = ()
    regex: re.Pattern | None = None
    negated: bool = False
    name: str | None = None
    ref: str | None = None

    @property
    def any(self) -> bool:
        return not self.labels and self.regex is None and self.ref is None

    def accepts(self, label: str, basic: str) -> bool:
        """Whether a node with ``label`` (``basic``: without function tags) is described."""
        if self.regex is not None:
            ok = self.regex.search(label) is not None
        elif self.labels:
            ok = label in self.labels or basic in self.labels
        else:
            ok = True
        return ok != self.negated


@dataclass(frozen=True)
class Clause:
    """One relation of a pattern's node to a sub-pattern: ``relation`` is one of
    :data:`TREE_RELATIONS`, ``ARC_DOWN`` or ``ARC_UP`` (with ``deprel``, None for any)."""

    relation: str
    target: Pattern
    negated: bool = False
    deprel: Test | None = None


@dataclass(frozen=True)
class Pattern:
    node: Node
    clauses: tuple[Clause, ...] = field(default_factory=tuple)


class QueryError(InputError):
    """A query that does not parse: the problem and the 1-based column it is at."""

    def __init__(self, problem: str, column: int, query: str = ""):
        rest = query[column - 1:column + 11]
        at = f" (at {rest!r})" if rest else " (at the end)" if query else ""
        super().__init__(f"column {column}{at}: {problem}", "query")
        self.column = column


def parse_query(text: str) -> Pattern:
    """The pattern a query describes; :class:`QueryError` names the column of a mistake."""
    parser = _Parser(text)
    pattern = parser.pattern(set())
    parser.skip()
    if parser.i < len(text):
        parser.fail(f"unexpected {text[parser.i]!r}" + (
            " (close only what you opened)" if text[parser.i] == ")" else ""))
    return pattern


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.i = 0
        self.names: set[str] = set()

    def fail(self, problem: str, at: int | None = None) -> None:
        raise QueryError(problem, (self.i if at is None else at) + 1, self.text)

    def skip(self) -> None:
        while self.i < len(self.text) and self.text[self.i].isspace():
            self.i += 1

    def peek(self, s: str) -> bool:
        return self.text.startswith(s, self.i)

    def pattern(self, scope: set[str]) -> Pattern:
        """A node (or a parenthesized pattern) and every relation after it."""
        head = self.unit(scope)
        clauses = list(head.clauses)
        while True:
            self.skip()
            if self.i >= len(self.text) or self.peek(")"):
                return Pattern(head.node, tuple(clauses))
            clauses.append(self.clause(scope))

    def unit(self, scope: set[str]) -> Pattern:
        """A bare node, or a whole pattern in parentheses."""
        self.skip()
        if not self.peek("("):
            return Pattern(self.node(scope))
        start = self.i
        self.i += 1
        inner = self.pattern(scope)
        self.skip()
        if not self.peek(")"):
            self.fail(f"expected ')' to close the '(' at column {start + 1}")
        self.i += 1
        return inner

    def clause(self, scope: set[str]) -> Clause:
        negated = self.peek("!")
        if negated:
            self.i += 1
            self.skip()
        start = self.i
        relation, deprel = self.relation()
        self.skip()
        if self.i >= len(self.text) or self.peek(")"):
            self.fail(f"expected a node after the relation at column {start + 1}")
        inner = set(scope) if negated else scope  # names under a negation stay there
        target = self.unit(inner)
        return Clause(relation, target, negated, deprel)

    def relation(self) -> tuple[str, Test | None]:
        if self.peek("-") or self.peek("<-"):
            return self.arc()
        for rel in TREE_RELATIONS:
            if self.peek(rel):
                self.i += len(rel)
                return rel, None
        found = self.text[self.i]
        self.fail(f"expected a relation (< << > >> $ . .. , ,, -rel-> <-rel-), not {found!r}")
        raise AssertionError  # fail raised

    def arc(self) -> tuple[str, Test | None]:
        start = self.i
        up = self.peek("<-")
        self.i += 2 if up else 1
        close = "-" if up else "->"
        if self.peek(close):
            self.i += len(close)
            return (ARC_UP if up else ARC_DOWN), None
        if self.peek("/"):
            test = Test("", self.regex())
        else:
            end = self.i
            while end < len(self.text) and not self.text[end].isspace() and \
                    not self.text.startswith(close, end):
                end += 1
            if end == self.i:
                self.fail("expected a DEPREL, /regex/ or nothing inside the arc")
            test = Test(self.text[self.i:end])
            self.i = end
        if not self.peek(close):
            self.fail(f"the arc opened at column {start + 1} needs '{close}' after its DEPREL")
        self.i += len(close)
        return (ARC_UP if up else ARC_DOWN), test

    def regex(self) -> re.Pattern:
        start = self.i
        end = self.i + 1
        while end < len(self.text) and self.text[end] != "/":
            end += 2 if self.text[end] == "\\" else 1
        if end >= len(self.text):
            self.fail("the regular expression is not closed with '/'", start)
        try:
            compiled = re.compile(self.text[start + 1:end])
        except re.error as err:
            self.fail(f"bad regular expression: {err.msg}", start + 1 + (err.pos or 0))
            raise AssertionError from err
        self.i = end + 1
        return compiled

    def node(self, scope: set[str]) -> Node:
        self.skip()
        start = self.i
        if self.i >= len(self.text):
            self.fail("expected a node (a label, /regex/, __ or =name)")
        if self.peek("="):
            name = self.name()
            if name not in scope:
                self.fail(f"={name} is not named before this point", start)
            return Node(ref=name)
        negated = self.peek("!")
        if negated:
            self.i += 1
        regex, labels = None, ()
        if self.peek("/"):
            regex = self.regex()
        elif self.peek("__") and (self.i + 2 >= len(self.text) or
                                  self.text[self.i + 2] in _STOP):
            self.i += 2
        else:
            labels = self.labels()
        name = None
        if self.peek("="):
            at = self.i
            name = self.name()
            if name in self.names:
                self.fail(f"={name} names two nodes", at)
            self.names.add(name)
            scope.add(name)
        return Node(tuple(labels), regex, negated, name)

    def labels(self) -> list[str]:
        labels = []
        while True:
            start = self.i
            while self.i < len(self.text) and self.text[self.i] not in _STOP:
                self.i += 1
            if self.i == start:
                found = repr(self.text[self.i]) if self.i < len(self.text) else "the end"
                self.fail(f"expected a label, /regex/, __ or =name, not {found}")
            labels.append(self.text[start:self.i])
            if not self.peek("|"):
                return labels
            self.i += 1

    def name(self) -> str:
        self.i += 1
        start = self.i
        while self.i < len(self.text) and (self.text[self.i].isalnum() or
                                           self.text[self.i] == "_"):
            self.i += 1
        if self.i == start:
            self.fail("expected a name (letters, digits, _) after '='")
        return self.text[start:self.i]
