"""Finding a pattern's matches in a treebank.

The first node of the pattern is looked up in the label index (a literal label or a regex
is tried once per distinct label, not once per node); the relations are then followed from
each such node through the flat arrays, backtracking over the choices, so a query touches
only the nodes near its candidates. A first node the index cannot narrow (``__ < NN``) is
reached back from the candidates of a node it relates to (the parents of NNs). Each
matching node is reported once, with the names bound by the first way it matches.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from pad_engine.quality.forest import Flat, Treebank
from pad_engine.quality.query import ARC_DOWN, ARC_UP, Clause, Node, Pattern


@dataclass(frozen=True)
class Match:
    """The node a pattern matched (``node`` of sentence ``sentence`` of the treebank) and
    the nodes its names were bound to."""

    sentence: int
    node: int
    names: dict[str, int]


def find(bank: Treebank, pattern: Pattern, sentences: Iterable[int] | None = None
         ) -> Iterator[Match]:
    """Every match of ``pattern`` in ``bank`` (or in the given sentences), in file order."""
    if sentences is not None:
        wanted = list(sentences)
        candidates = ((k, i) for k in wanted for i in range(len(bank.flats[k])))
    else:
        candidates = _candidates(bank, pattern.node)
        if pattern.node.negated or pattern.node.any:
            candidates = _through_clause(bank, pattern) or candidates
    flats = bank.flats
    for k, i in candidates:
        flat = flats[k]
        if not pattern.node.accepts(flat.label[i], flat.basic[i]):
            continue
        env = next(_match(pattern, flat, i, {}), None)
        if env is not None:
            yield Match(k, i, env)


def _candidates(bank: Treebank, node: Node) -> Iterator[tuple[int, int]]:
    """The (sentence, node) pairs that may carry the pattern's first node, in order."""
    if node.negated or node.any:
        return ((k, i) for k, f in enumerate(bank.flats) for i in range(len(f)))
    if node.regex is not None:
        lists = [v for label, v in bank.by_label.items() if node.regex.search(label)]
    else:
        lists = [index[label] for label in node.labels for index in (bank.by_label,
                                                                      bank.by_basic)
                 if label in index]
    if len(lists) == 1:
        return iter(lists[0])
    return _unique(heapq.merge(*lists))


_INVERSE = {"<": ">", ">": "<", "<<": ">>", ">>": "<<", "$": "$", ".": ",", ",": ".",
            "..": ",,", ",,": "..", ARC_DOWN: ARC_UP, ARC_UP: ARC_DOWN}


def _through_clause(bank: Treebank, pattern: Pattern) -> Iterator[tuple[int, int]] | None:
    """For a first node that the index cannot narrow (``__``, ``!NP``): the nodes related to
    the index's candidates for the target of its first positive relation that it can
    narrow (``__ < NN``: the parents of NNs), in order; None when there is none."""
    for clause in pattern.clauses:
        node = clause.target.node
        if clause.negated or node.negated or node.any or node.ref is not None:
            continue
        back = Clause(_INVERSE[clause.relation], clause.target, False, clause.deprel)
        found: dict[int, set[int]] = {}
        for k, t in _candidates(bank, node):
            flat = bank.flats[k]
            if node.accepts(flat.label[t], flat.basic[t]):
                found.setdefault(k, set()).update(related(flat, back, t))
        return ((k, i) for k in sorted(found) for i in sorted(found[k]))
    return None


def _unique(pairs: Iterator[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    last = None
    for pair in pairs:
        if pair != last:
            yield pair
            last = pair


def _match(pattern: Pattern, flat: Flat, a: int, env: dict[str, int]
           ) -> Iterator[dict[str, int]]:
    node = pattern.node
    if node.ref is not None:
        if env.get(node.ref) != a:
            return
    elif not node.accepts(flat.label[a], flat.basic[a]):
        return
    if node.name is not None:
        env = {**env, node.name: a}
    yield from _clauses(pattern.clauses, 0, flat, a, env)


def _clauses(clauses: tuple[Clause, ...], at: int, flat: Flat, a: int, env: dict[str, int]
             ) -> Iterator[dict[str, int]]:
    if at == len(clauses):
        yield env
        return
    clause = clauses[at]
    if clause.negated:
        for b in related(flat, clause, a):
            if next(_match(clause.target, flat, b, env), None) is not None:
                return
        yield from _clauses(clauses, at + 1, flat, a, env)
        return
    for b in related(flat, clause, a):
        for bound in _match(clause.target, flat, b, env):
            yield from _clauses(clauses, at + 1, flat, a, bound)


def related(flat: Flat, clause: Clause, a: int) -> Iterable[int]:
    """The nodes ``b`` for which ``a RELATION b`` holds."""
    rel = clause.relation
    if rel == "<":
        return flat.kids[a]
    if rel == "<<":
        return range(a + 1, flat.end[a] + 1)
    if rel == ">":
        return [flat.parent[a]] if flat.parent[a] >= 0 else []
    if rel == ">>":
        return _ancestors(flat, a)
    if rel == "$":
        up = flat.parent[a]
        return [k for k in flat.kids[up] if k != a] if up >= 0 else []
    if rel == ".":
        w = flat.hi[a] + 1
        return flat.starting[w] if w < flat.n else []
    if rel == "..":
        return (b for w in range(flat.hi[a] + 1, flat.n) for b in flat.starting[w])
    if rel == ",":
        w = flat.lo[a] - 1
        return flat.ending[w] if w >= 0 else []
    if rel == ",,":
        return (b for w in range(flat.lo[a]) for b in flat.ending[w])
    if rel == ARC_DOWN:
        return _arcs_down(flat, clause, flat.headword[a])
    if rel == ARC_UP:
        return _arc_up(flat, clause, flat.headword[a])
    raise ValueError(f"unknown relation {rel!r}")


def _ancestors(flat: Flat, a: int) -> Iterator[int]:
    up = flat.parent[a]
    while up >= 0:
        yield up
        up = flat.parent[up]


def _arcs_down(flat: Flat, clause: Clause, h: int) -> Iterator[int]:
    rels = flat.sentence.rels
    for m in flat.dependents[h]:
        if clause.deprel is None or clause.deprel.matches(_rel(rels, m), ":"):
            yield from flat.headed[m]


def _arc_up(flat: Flat, clause: Clause, m: int) -> list[int]:
    g = flat.sentence.heads[m] - 1
    if g < 0 or (clause.deprel is not None and not clause.deprel.matches(
            _rel(flat.sentence.rels, m), ":")):
        return []
    return flat.headed[g]


def _rel(rels: list[str], m: int) -> str:
    return rels[m] if m < len(rels) else "_"
