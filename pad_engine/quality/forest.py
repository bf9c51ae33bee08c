"""Sentences made searchable: a c-tree flattened into arrays beside its d-parse, and a
treebank of them indexed by label.

Nodes are numbered in pre-order, so the descendants of node ``i`` are ``i+1 .. end[i]`` and
dominance is two comparisons. Words are nodes too (the child of their preterminal, labeled
with the word), as in Tregex. Every node knows the word it is headed by, which is how arcs
of the d-parse relate nodes.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from pad_engine.trees.lextree import LexNode, escape_word, strip_label

MACHINE = "machine"


@dataclass
class Sentence:
    """One sentence to search: its c-tree and d-parse, where it comes from, its status."""

    tree: LexNode
    forms: list[str]
    tags: list[str]
    heads: list[int]  # 1-based, 0 = root (as DepSentence)
    rels: list[str]
    file: str = ""
    number: int = 0  # 1-based position in its file
    status: str = MACHINE


class Flat:
    """A sentence's c-tree as arrays (see the module docstring)."""

    __slots__ = (
        "basic",
        "dependents",
        "end",
        "ending",
        "headed",
        "headword",
        "hi",
        "kids",
        "label",
        "lo",
        "n",
        "parent",
        "sentence",
        "starting",
    )

    def __init__(self, sentence: Sentence):
        self.sentence = sentence
        self.n = n = len(sentence.forms)
        label, parent, kids, end, lo, hi, headword = [], [], [], [], [], [], []
        stack: list[tuple[LexNode | str, int, int]] = [(sentence.tree, -1, -1)]
        order: list[int] = []  # phrases and preterminals, to fill spans bottom-up
        while stack:
            item, up, word = stack.pop()
            i = len(label)
            parent.append(up)
            kids.append([])
            end.append(i)
            if up >= 0:
                kids[up].append(i)
            if isinstance(item, str):  # a word
                label.append(item)
                lo.append(word)
                hi.append(word)
                headword.append(word)
                continue
            label.append(item.label)
            lo.append(-1)
            hi.append(-1)
            headword.append(-1)
            order.append(i)
            if item.word >= 0:
                stack.append((sentence.forms[item.word], i, item.word))
            else:
                stack.extend((c, i, -1) for c in reversed(item.children))
        heads_child = {}
        self._head_children(sentence.tree, heads_child)
        for i in reversed(order):  # children before parents
            ks = kids[i]
            lo[i], hi[i] = lo[ks[0]], hi[ks[-1]]
            end[i] = end[ks[-1]]
            headword[i] = headword[ks[heads_child.get(i, 0)]]
        self.label, self.parent, self.kids, self.end = label, parent, kids, end
        self.lo, self.hi, self.headword = lo, hi, headword
        self.basic = [strip_label(x) if ks else x for x, ks in zip(label, kids)]  # words whole
        self.headed: list[list[int]] = [[] for _ in range(n)]
        self.starting: list[list[int]] = [[] for _ in range(n)]
        self.ending: list[list[int]] = [[] for _ in range(n)]
        self.dependents: list[list[int]] = [[] for _ in range(n)]
        for m, h in enumerate(sentence.heads):
            if h:
                self.dependents[h - 1].append(m)
        for i in range(len(label)):
            self.headed[headword[i]].append(i)
            self.starting[lo[i]].append(i)
            self.ending[hi[i]].append(i)

    @staticmethod
    def _head_children(tree: LexNode, out: dict[int, int]) -> None:
        """The head child of every phrase, by its pre-order number (as numbered above)."""
        stack = [tree]
        i = 0
        while stack:
            node = stack.pop()
            if node.word < 0:
                out[i] = node.head
                stack.extend(reversed(node.children))
                i += 1
            else:
                i += 2  # the preterminal and its word

    def __len__(self) -> int:
        return len(self.label)

    def path(self, i: int) -> tuple[int, ...]:
        """The child-index path of node ``i`` in the sentence's tree (a word: its
        preterminal's), as the tree edits address nodes."""
        if not self.kids[i]:
            i = self.parent[i]
        steps = []
        while self.parent[i] >= 0:
            up = self.parent[i]
            steps.append(self.kids[up].index(i))
            i = up
        return tuple(reversed(steps))

    def penn(self, i: int) -> str:
        """Node ``i`` and what it dominates as one Penn line (a word: the word)."""
        parts: list[str] = []
        stack: list[int | str] = [i]
        forms = self.sentence.forms
        while stack:
            j = stack.pop()
            if isinstance(j, str):
                parts.append(j)
            elif not self.kids[j]:
                parts.append(escape_word(self.label[j]))
            elif len(self.kids[j]) == 1 and not self.kids[self.kids[j][0]]:
                parts.append(f"({escape_word(self.label[j])} {escape_word(forms[self.lo[j]])})")
            else:
                parts.append("(" + self.label[j])
                stack.append(")")
                for k in reversed(self.kids[j]):
                    stack.append(k)
                    stack.append(" ")
        return "".join(parts)


@dataclass
class Treebank:
    """Flattened sentences and where each label occurs (``by_label``: label -> (sentence,
    node) pairs, by full label and by label without function tags)."""

    flats: list[Flat] = field(default_factory=list)
    by_label: dict[str, list[tuple[int, int]]] = field(
        default_factory=lambda: defaultdict(list))
    by_basic: dict[str, list[tuple[int, int]]] = field(
        default_factory=lambda: defaultdict(list))

    @classmethod
    def of(cls, sentences: list[Sentence]) -> Treebank:
        return cls.of_flats([Flat(s) for s in sentences])

    @classmethod
    def of_flats(cls, flats: list[Flat]) -> Treebank:
        """A treebank of sentences flattened before (kept by a caller between searches)."""
        bank = cls()
        for flat in flats:
            bank.add_flat(flat)
        return bank

    def add_flat(self, flat: Flat) -> None:
        k = len(self.flats)
        self.flats.append(flat)
        for i, (label, basic) in enumerate(zip(flat.label, flat.basic)):
            self.by_label[label].append((k, i))
            if basic != label:
                self.by_basic[basic].append((k, i))

    @property
    def sentences(self) -> list[Sentence]:
        return [f.sentence for f in self.flats]
