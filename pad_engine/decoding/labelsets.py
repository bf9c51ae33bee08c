"""Phrase-label inventories for the rule-based projection.

The projection decides structure with English Penn Treebank categories (NP, VP, S, SBAR...);
a treebank of another language names its phrases otherwise (Alpino ``np``, ``smain``; CESS-ESP
``sn``, ``grup.verb``). A label set renames each projected phrase from three keys: the
projection's own label (which level of the head's chain it is), the head word's tag and the
head word's relation. Its label may also be ``-``: the phrase is dropped and its children join
the phrase above (a treebank without VP levels), which keeps the tree consistent with the
d-parse. Sets are text files (pad_engine/data/labels/README.md documents the format); the
built-in ``ptb`` set is the empty one (the projection's labels unchanged).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from pad_engine.decoding.model_check import _PHRASE, MAX_LABEL_CHARS, _shown
from pad_engine.errors import InputError
from pad_engine.io.encoding import read_text
from pad_engine.io.gate import TABLE_BYTES
from pad_engine.io.limits import line_problem
from pad_engine.trees.binarize import reserved
from pad_engine.trees.lextree import LexNode, Spans

ANY = "*"
NO_RELATION = "_"
DROP = "-"
SUFFIX = ".labels"


def relation_key(rel: str) -> str:
    """A relation as label sets match it: the universal part, lower case; ``_`` for none."""
    if rel in ("", "_"):
        return NO_RELATION
    return rel.split(":")[0].lower()


@dataclass
class LabelSet:
    """Rules (phrase, tag, relation) -> label; the most specific matching rule wins, in the
    order of :meth:`label` (the phrase key first: it says which level of the chain this is)."""

    name: str
    rules: dict[tuple[str, str, str], str] = field(default_factory=dict)

    def label(self, phrase: str, tag: str, rel: str) -> str:
        """The label of a projected ``phrase`` whose head word has ``tag`` and relation
        ``rel`` (already :func:`relation_key`-ed); the phrase itself when no rule matches."""
        for key in ((phrase, tag, rel), (phrase, tag, ANY), (phrase, ANY, rel),
                    (phrase, ANY, ANY), (ANY, tag, rel), (ANY, tag, ANY), (ANY, ANY, rel)):
            found = self.rules.get(key)
            if found is not None:
                return found
        return self.rules.get((ANY, ANY, ANY), phrase)

    def labels(self, phrases: Collection[str]) -> list[str]:
        """Every label the set can give the projection's ``phrases`` (for relabeling menus)."""
        fixed = {p for p in phrases if not any(k[0] in (p, ANY) for k in self.rules)}
        return sorted((fixed | set(self.rules.values())) - {DROP})

    def apply(self, root: LexNode, tags: list[str], rels: list[str]) -> LexNode:
        """The tree relabeled (a new tree; TOP and preterminals stay). Dropped phrases give
        their children to the phrase above, the head child's place included, so the tree
        induces the same d-parse."""
        if not self.rules:
            return root
        # id(node) -> (what replaces it in its parent, which of those holds its head)
        done: dict[int, tuple[list[LexNode], int]] = {}
        at = Spans(root)
        stack: list[tuple[LexNode, bool]] = [(root, False)]
        while stack:  # iterative post-order: trees over long sentences are deep
            node, expanded = stack.pop()
            if node.word >= 0:
                done[id(node)] = ([node], 0)
                continue
            if not expanded:
                stack.append((node, True))
                stack.extend((c, False) for c in node.children)
                continue
            children: list[LexNode] = []
            head = 0
            for k, child in enumerate(node.children):
                nodes, inner = done.pop(id(child))
                if k == node.head:
                    head = len(children) + inner
                children += nodes
            label = node.label
            if node is not root:
                w = at.head_word(node)
                label = self.label(label, tags[w],
                                   relation_key(rels[w] if w < len(rels) else ""))
            done[id(node)] = (children, head) if label == DROP else \
                ([LexNode(label, children, head)], 0)
        return done[id(root)][0][0]

    def to_text(self) -> str:
        """The set in its file format (see pad_engine/data/labels/README.md)."""
        lines = [f"# label set {self.name}: PHRASE TAG RELATION LABEL (most specific wins)"]
        for (phrase, tag, rel), label in sorted(self.rules.items()):
            lines.append(f"{phrase}\t{tag}\t{rel}\t{label}")
        return "\n".join(lines) + "\n"


def parse_label_set(text: str, path: str, phrases: Collection[str]) -> LabelSet:
    """A label set from its text; InputError naming the file and line of the first bad rule.
    ``phrases``: the projection's labels, which the PHRASE column must name (or ``*``)."""
    rules: dict[tuple[str, str, str], str] = {}
    where: dict[tuple[str, str, str], int] = {}
    found = line_problem(text.split("\n"))  # as every reader: numbered as the file is
    if found:
        raise InputError(found[1], path, found[0])
    for number, raw in _rule_lines(text):
        cols = raw.split()
        if len(cols) != 4:
            raise InputError(f"expected 4 columns (PHRASE TAG RELATION LABEL), found "
                             f"{len(cols)}", path, number)
        phrase, tag, rel, label = cols
        if phrase != ANY and phrase not in phrases:
            raise InputError(f"unknown phrase {phrase!r}: the projection makes "
                             f"{', '.join(sorted(phrases))} (or * for any)", path, number)
        if phrase == "TOP":
            raise InputError("TOP is the root and keeps its label", path, number)
        if reserved(label) or not _PHRASE.fullmatch(label):
            raise InputError(f"label {_shown(label)} cannot be written in a Penn tree "
                             f"(brackets, a control character, a leading @, over "
                             f"{MAX_LABEL_CHARS} characters)", path, number)
        key = (phrase, tag, rel if rel in (ANY, NO_RELATION) else relation_key(rel))
        if key in rules and rules[key] != label:
            raise InputError(f"{' '.join(key)} is mapped to {rules[key]} on line {where[key]}"
                             f" and to {label} here", path, number)
        rules[key], where[key] = label, number
    return LabelSet(Path(path).name.removesuffix(SUFFIX), rules)


def _rule_lines(text: str) -> Iterator[tuple[int, str]]:
    for number, line in enumerate(text.splitlines(), 1):
        body = line.split("#", 1)[0].strip()
        if body:
            yield number, body


def bundled_label_sets() -> list[str]:
    """Names of the label sets shipped in pad_engine/data/labels, plus the built-in ``ptb``."""
    from pad_engine.resources import resource_path

    folder = resource_path("labels")
    return ["ptb", *sorted(p.name.removesuffix(SUFFIX) for p in folder.glob(f"*{SUFFIX}"))]


def load_label_set(name: str, phrases: Collection[str]) -> LabelSet:
    """``ptb`` (the projection's labels), a bundled set by name, or a label-set file."""
    from pad_engine.resources import resource_path

    if name == "ptb":
        return LabelSet("ptb")
    bundled = resource_path("labels", name + SUFFIX)
    path = bundled if "/" not in name and bundled.is_file() else Path(name)
    if not path.exists():
        raise InputError(f"no such label set: give one of "
                         f"{', '.join(bundled_label_sets())} or a {SUFFIX} file", name)
    decoded = read_text(str(path), None, limit=TABLE_BYTES)
    if decoded.bad:
        number = min(decoded.bad)
        raise InputError(decoded.bad[number], str(path), number)
    return parse_label_set(decoded.text, str(path), phrases)
