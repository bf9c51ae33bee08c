"""Which labels for a treebank of another language: measured on Dutch Alpino.

The Alpino treebank (NLTK's ``alpino.xml``) holds dependency-structure trees: phrases
(``cat``), relations (``rel``), heads (the ``hd`` child). From each tree this module derives
both a c-parse (phrases labeled with Alpino's own categories) and the d-parse it induces, so
both sides of a pair agree and every labeling approach can be scored on the same d-parses:
the rule-based projection with PTB labels, with the UD-generic set, with a hand-written
mapping, with a mapping learned from N corrected trees, and a PAD model retrained on them.

Alpino trees need three repairs before they are Penn trees:

* co-indexed empty nodes (an ``index`` and nothing else) are dropped;
* punctuation, which Alpino hangs off the top node, goes to the lowest phrase whose words
  surround it (as is usual for discontinuous treebanks: Negra, Tiger);
* a discontinuous phrase keeps the children in the stretch of words that holds its head and
  gives the others to its parent ("raising", repeated upward until every phrase is
  contiguous). The d-parse is read off the repaired tree, so it is projective.

Phrases without a ``hd`` child are headed by their complementizer (``cmp``: cp, ti, oti),
relative or wh-phrase (``rhd``, ``whd``), first conjunct (``cnj``), nucleus (``nucl``),
first multiword part (``mwp``) or first discourse part (``dp``), in the style of
Collins-style d-parses, which the projection reads.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pad_engine.errors import InputError
from pad_engine.io.gate import read_bytes
from pad_engine.io.limits import MAX_CHARS, control_in, control_problem, too_long
from pad_engine.trees.binarize import MAX_TRAINING_DEPTH
from pad_engine.trees.deptree import DepSentence
from pad_engine.trees.lextree import LexNode, induced_heads, to_line

if TYPE_CHECKING:  # training imports the decoder: keep it off the reading path
    from pad_engine.learning.train import Example

# Alpino's coarse word classes as UD UPOS (the projection reads UPOS)
UPOS = {"noun": "NOUN", "name": "PROPN", "pron": "PRON", "verb": "VERB", "det": "DET",
        "prep": "ADP", "punct": "PUNCT", "adj": "ADJ", "adv": "ADV", "comp": "SCONJ",
        "vg": "CCONJ", "num": "NUM", "part": "PART", "fixed": "X", "pp": "ADV",
        "comparative": "SCONJ", "tag": "INTJ"}
# Alpino relations whose UD counterpart the projection knows; the others keep their names
RELATIONS = {"su": "nsubj", "obj1": "obj", "obj2": "iobj", "det": "det", "cnj": "conj",
             "crd": "cc", "app": "appos"}
HEAD_RELATIONS = ("hd", "cmp", "rhd", "whd", "cnj", "nucl", "mwp", "dp")
PUNCT = "PUNCT"
LABELS = "deprel"  # retrained models read the relations, as the app's Retrain does


@dataclass
class _Node:
    label: str  # Alpino category (phrases), UPOS (words)
    rel: str
    children: list[_Node] = field(default_factory=list)
    word: int = -1
    form: str = ""

    def words(self) -> list[int]:
        out, stack = [], [self]
        while stack:
            node = stack.pop()
            if node.word >= 0:
                out.append(node.word)
            stack.extend(node.children)
        return sorted(out)


@dataclass
class AlpinoTree:
    """A repaired Alpino tree: its c-parse (lexicalized, rooted in TOP) and d-parse."""

    sentence: DepSentence
    tree: LexNode
    raised: int  # phrases moved up to make their parents contiguous


def read_alpino(path: str) -> tuple[list[AlpinoTree], list[InputError]]:
    """Every tree of an Alpino XML file, and the ones that could not be read (with why).
    A file that cannot be read, is not XML or holds no ``alpino_ds`` raises InputError."""
    trees, problems = [], []
    for number, ds in enumerate(_sentences(path), 1):
        problem = _tree_problem(ds)
        if problem:
            problems.append(InputError(f"tree {number} ({_shown(ds.get('id'))}): {problem}",
                                       path))
            continue
        try:
            trees.append(_convert(ds, path))
        except InputError as err:
            problems.append(err)
        except (KeyError, ValueError, TypeError) as err:  # TypeError: an attribute missing
            problems.append(InputError(f"tree {number} ({ds.get('id')}): {err}", path))
    return trees, problems


def _sentences(path: str) -> list[ET.Element]:
    """The ``alpino_ds`` elements of a file, or an InputError naming it."""
    try:
        root = ET.fromstring(read_bytes(path))
    except OSError as err:
        raise InputError(err.strerror or str(err), path) from None
    except ET.ParseError as err:
        raise InputError(f"not XML ({err})", path, err.position[0]) from None
    found = list(root.iter("alpino_ds"))
    if not found:
        raise InputError(f"no <alpino_ds> in <{root.tag}>: not Alpino XML", path)
    return found


def _tree_problem(ds: ET.Element) -> str | None:
    """Why an ``alpino_ds`` is not read, as any reader refuses it: nodes nested deeper than a
    tree may be to train on (the conversion walks them recursively), a word longer than
    ``MAX_CHARS`` or holding a control character, or a word position (``begin``) that is
    not one of the tree's words (3000000000: lists of that many words were made)."""
    stack = [(node, 1) for node in ds.findall("node")]
    words, last = 0, -1  # word nodes, and the largest position one gives (``begin``)
    while stack:
        node, depth = stack.pop()
        if depth > MAX_TRAINING_DEPTH:
            return f"nodes nest deeper than {MAX_TRAINING_DEPTH} levels"
        word = node.get("word")
        if word is not None:
            if len(word) > MAX_CHARS:
                return too_long("word", len(word))
            bad = control_in(word)
            if bad:
                return f"a word holds {control_problem(bad.group(), bad.start())}"
            begin = node.get("begin", "")
            if not (begin.isdigit() and begin.isascii()) or len(begin) > 9:
                return f"word position begin={begin[:20]!r} is not a word position"
            words, last = words + 1, max(last, int(begin))
        stack.extend((kid, depth + 1) for kid in node.findall("node"))
    if last >= words:  # checked before lists of that many words are made
        return f"word position {last} in a tree of {words} words"
    return None


def _shown(value: object) -> str:
    text = str(value)
    return text if len(text) <= 60 else text[:60] + "..."


def held_out(trees: list[AlpinoTree], test_size: int
             ) -> tuple[list[AlpinoTree], list[AlpinoTree]]:
    """The trees to correct and the last ``test_size`` held out to score on: every measurement
    on Alpino scores on the same trees."""
    if not 0 < test_size < len(trees):
        raise ValueError(f"cannot hold out {test_size} of {len(trees)} trees")
    return trees[:-test_size], trees[-test_size:]


def example_of(tree: AlpinoTree) -> Example:
    """A repaired tree as a training (or test) example carrying its relations, which models
    retrained with :data:`LABELS` read."""
    from pad_engine.learning.train import example_from_lextree

    return example_from_lextree(tree.tree, tree.sentence.forms, tree.sentence.rels)


def _convert(ds: ET.Element, path: str) -> AlpinoTree:
    top = _build(ds.find("node"))
    if top is None:
        raise InputError(f"tree {ds.get('id')} has no words", path)
    n = max(top.words()) + 1
    if top.words() != list(range(n)):
        raise InputError(f"tree {ds.get('id')}: words are missing or repeated", path)
    _place_punctuation(top)
    raised = _make_contiguous(top)
    forms, tags = [""] * n, [""] * n
    for leaf in _leaves(top):
        forms[leaf.word], tags[leaf.word] = leaf.form, leaf.label
    rels = ["root"] * n
    lex = _lexicalize(top, rels, True)
    heads = induced_heads(lex, n)
    return AlpinoTree(DepSentence(forms, tags, heads, rels, sent_id=ds.get("id")), lex, raised)


def _build(el: ET.Element | None) -> _Node | None:
    """The node and what is left below it once empty (co-indexed) nodes are dropped."""
    if el is None:
        return None
    rel = el.get("rel", "")
    if el.get("word") is not None:
        return _Node(UPOS.get(el.get("pos", ""), "X"), rel, word=int(el.get("begin")),
                     form=el.get("word"))
    kids = [k for k in (_build(c) for c in el.findall("node")) if k is not None]
    if not kids:
        return None
    label = "TOP" if el.get("cat") == "top" else el.get("cat", "x")
    return _Node(label, rel, kids)


def _leaves(root: _Node) -> list[_Node]:
    out, stack = [], [root]
    while stack:
        node = stack.pop()
        if node.word >= 0:
            out.append(node)
        stack.extend(node.children)
    return out


def _place_punctuation(top: _Node) -> None:
    """Punctuation under the top node goes to the lowest phrase whose words surround it."""
    marks = [c for c in top.children if c.word >= 0 and c.label == PUNCT]
    top.children = [c for c in top.children if c not in marks]
    for mark in marks:
        target, stack = top, [top]
        while stack:
            node = stack.pop()
            words = node.words()
            if words and words[0] < mark.word < words[-1]:
                target = node if len(words) <= len(target.words()) else target
                stack.extend(c for c in node.children if c.word < 0)
        target.children.append(mark)
    if not top.children:
        top.children = marks


def _head(node: _Node) -> int:
    for rel in HEAD_RELATIONS:
        for k, child in enumerate(node.children):
            if child.rel == rel:
                return k
    return next((k for k, c in enumerate(node.children) if c.label != PUNCT), 0)


def _make_contiguous(root: _Node) -> int:
    """Raise children out of discontinuous phrases (bottom up); how many were raised."""
    raised = 0
    order, stack = [], [(root, None)]
    while stack:
        node, parent = stack.pop()
        order.append((node, parent))
        stack.extend((c, node) for c in node.children if c.word < 0)
    for node, parent in reversed(order):  # children before parents
        words = node.words()
        if parent is None or words[-1] - words[0] + 1 == len(words):
            continue
        head = node.children[_head(node)].words()
        lo = hi = head[0]
        present = set(words)
        while lo - 1 in present:
            lo -= 1
        while hi + 1 in present:
            hi += 1
        keep = [c for c in node.children if lo <= c.words()[0] <= hi]
        moved = [c for c in node.children if not lo <= c.words()[0] <= hi]
        node.children = keep
        parent.children += moved
        raised += len(moved)
    return raised


def _lexicalize(node: _Node, rels: list[str], is_root: bool) -> LexNode:
    """The LexNode of a repaired tree; ``rels`` gets each word's relation (that of its
    maximal projection, UD-named where the projection knows the relation)."""
    if node.word >= 0:
        return LexNode(node.label, [], 0, node.word)
    node.children.sort(key=lambda c: c.words()[0])
    head = _head(node)
    kids = []
    for k, child in enumerate(node.children):
        kid = _lexicalize(child, rels, False)
        if k != head:
            w = kid.head_word()
            rels[w] = "punct" if child.label == PUNCT and child.word >= 0 else \
                RELATIONS.get(child.rel, child.rel)
        kids.append(kid)
    return LexNode(node.label, kids, head)


# --- measurement -------------------------------------------------------------------------------

_PHRASE = re.compile(r"\((?!TOP )([^\s()]+) (?=\()")


def unlabeled(line: str) -> str:
    """A Penn line with every phrase label (TOP aside) replaced by X: structure only."""
    return _PHRASE.sub("(X ", line)


@dataclass
class Scores:
    """Labeled and unlabeled EVALB F1 (punctuation deleted) of one approach."""

    labeled: float
    unlabeled: float


def score_lines(gold: list[str], test: list[str]) -> Scores:
    """EVALB of test against gold lines, labeled and with every label made X."""
    from pad_engine.learning.evalb import bracket_f1, score

    return Scores(bracket_f1(score(gold, test, delete=(PUNCT,))),
                  bracket_f1(score([unlabeled(g) for g in gold], [unlabeled(t) for t in test],
                                   delete=(PUNCT,))))


def rule_lines(trees: list[AlpinoTree], labels) -> list[str]:
    """The projection's trees of the d-parses, labeled by ``labels``."""
    from pad_engine.decoding.rulebased import RuleBasedEngine

    engine = RuleBasedEngine(labels)
    return [to_line(engine.best(t.sentence).tree, t.sentence.forms) for t in trees]


def pad_lines(train: list[AlpinoTree], test: list[AlpinoTree]) -> list[str]:
    """A PAD model retrained (as the app's Retrain does, reading the relations) on ``train``,
    decoding ``test``."""
    from pad_engine.decoding.parser import Parser
    from pad_engine.learning.retrain import retrain

    model = retrain([example_of(t) for t in train], labels=LABELS)
    parser = Parser(model)
    out = []
    for t in test:
        s = t.sentence
        out.append(to_line(parser.parse(s.forms, s.tags, s.heads, prune=False, rels=s.rels).tree,
                           s.forms))
    return out


def label_table(trees: list[AlpinoTree], sizes: tuple[int, ...] = (5, 20, 50),
                test_size: int = 1000, draws: int = 3, hand: str = "alpino-dutch"
                ) -> dict[str, Scores]:
    """Every approach on the last ``test_size`` trees; learned ones averaged over ``draws``
    runs of corrected trees (the first N trees from ``draws`` places of the rest, as an
    annotator corrects a stretch of a file)."""
    from pad_engine.decoding.rulebased import label_set, learn_label_set

    pool, test = held_out(trees, test_size)
    gold = [to_line(t.tree, t.sentence.forms) for t in test]
    table: dict[str, Scores] = {}
    for name in ("ptb", "ud-generic", hand):
        table[f"rules, {name} labels"] = score_lines(gold, rule_lines(test, label_set(name)))
    step = len(pool) // draws
    for size in sizes:
        for what in ("learned mapping", "PAD model"):
            runs = []
            for d in range(draws):
                train = pool[d * step: d * step + size]
                if what == "PAD model":
                    lines = pad_lines(train, test)
                else:
                    learned = learn_label_set((t.sentence, t.tree) for t in train)
                    lines = rule_lines(test, learned)
                runs.append(score_lines(gold, lines))
            table[f"{what}, {size} trees"] = Scores(
                sum(r.labeled for r in runs) / draws, sum(r.unlabeled for r in runs) / draws)
    return table
