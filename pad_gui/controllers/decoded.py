"""Decode results kept compact: every sentence of a large treebank decoded, in little memory.

The background pass decodes every sentence, ten candidates each. As objects, a candidate
tree costs some 250 bytes per node (a LexNode, its attribute dict, its children list), so
UD English EWT train (12,544 sentences) held 1.37 GB of trees. Here each result is packed
into one array of 16-bit integers (four per node, labels numbered in a shared table), about
twenty times smaller, and rebuilt when asked for; the last few results asked for stay built
(the sentence on screen is drawn and edited from the same objects).
"""

from __future__ import annotations

from array import array
from collections import OrderedDict
from collections.abc import Hashable, Iterator, MutableMapping
from dataclasses import dataclass

from pad_engine.api import Candidate, LexNode

BUILT = 16  # results kept as objects (the sentences just shown)


@dataclass(frozen=True)
class Packed:
    """A list of candidates as flat arrays: per node (preorder) its label number, word
    (-1 for phrases), head child and number of children; plus each candidate's score, how
    it was found, the arcs it lifted and the k its list was cut to (0: none)."""

    nodes: array
    rest: tuple[tuple[float, str, tuple], ...]


class Labels:
    """Label strings numbered once for every packed tree."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self.numbers: dict[str, int] = {}

    def number(self, label: str) -> int:
        n = self.numbers.get(label)
        if n is None:
            n = self.numbers[label] = len(self.names)
            self.names.append(label)
        return n


def pack(candidates: list[Candidate], labels: Labels) -> Packed:
    nodes = array("h")
    for c in candidates:
        stack = [c.tree]
        while stack:
            node = stack.pop()
            nodes.extend((labels.number(node.label), node.word, node.head, len(node.children)))
            stack.extend(reversed(node.children))
    return Packed(nodes, tuple((c.score, c.how, tuple(c.lifted), c.cut_to) for c in candidates))


def unpack(packed: Packed, labels: Labels) -> list[Candidate]:
    """The candidates back as trees."""
    out, at = [], 0
    for score, how, lifted, cut_to in packed.rest:
        tree, at = _build(packed.nodes, labels.names, at)
        out.append(Candidate(tree, score, how, list(lifted), cut_to))
    return out


def first_tree(packed: Packed, labels: Labels) -> LexNode:
    """The best candidate's tree alone: comparing a whole file's shown trees with a new
    model's needs only these, and rebuilding the other nine would cost ten times as much."""
    return _build(packed.nodes, labels.names, 0)[0]


def _build(nodes: array, names: list[str], at: int) -> tuple[LexNode, int]:
    """The tree whose preorder starts at ``nodes[at]``, and where the next one starts;
    rebuilt without recursion (a chain of dependents makes trees thousands of levels
    deep)."""
    root = None
    open_nodes: list[list] = []  # [node, children still to come]
    while True:
        label, word, head, n = nodes[at:at + 4]
        at += 4
        node = LexNode(names[label], [], head, word)
        if open_nodes:
            open_nodes[-1][0].children.append(node)
            open_nodes[-1][1] -= 1
        else:
            root = node
        if n:
            open_nodes.append([node, n])
        while open_nodes and open_nodes[-1][1] == 0:
            open_nodes.pop()
        if not open_nodes:
            return root, at


class DecodedCache(MutableMapping):
    """Decode key -> list of candidates (stored packed) or the error (stored as is)."""

    labels = Labels()  # shared: every cache numbers labels alike

    def __init__(self) -> None:
        self._stored: dict[Hashable, object] = {}
        self._built: OrderedDict[Hashable, list[Candidate]] = OrderedDict()

    def __setitem__(self, key: Hashable, value: object) -> None:
        self._built.pop(key, None)
        self._stored[key] = pack(value, self.labels) if isinstance(value, list) else value

    def __getitem__(self, key: Hashable) -> object:
        if key in self._built:
            self._built.move_to_end(key)
            return self._built[key]
        value = self._stored[key]
        if isinstance(value, Packed):
            value = self._built[key] = unpack(value, self.labels)
            if len(self._built) > BUILT:
                self._built.popitem(last=False)
        return value

    def scores(self, key: Hashable) -> list[float] | None:
        """The candidates' scores, best first, without rebuilding their trees (None for an
        error or a missing key)."""
        value = self._stored.get(key)
        return [score for score, *_ in value.rest] if isinstance(value, Packed) else None

    def packed(self, key: Hashable) -> Packed | None:
        """The candidates as stored (immutable, so another thread may read them: see
        :func:`first_tree`); None for an error or a missing key."""
        value = self._stored.get(key)
        return value if isinstance(value, Packed) else None

    def __delitem__(self, key: Hashable) -> None:
        del self._stored[key]
        self._built.pop(key, None)

    def __contains__(self, key: object) -> bool:
        return key in self._stored

    def __iter__(self) -> Iterator[Hashable]:
        return iter(self._stored)

    def __len__(self) -> int:
        return len(self._stored)
