"""The projection itself: each word's class, then its plan from the rule group its class
calls for, then the phrases bottom up, each dependent attached at its planned level."""

from __future__ import annotations

import functools

from pad_engine.decoding.projection.clauses import _verb
from pad_engine.decoding.projection.coordination import _bare, _listed
from pad_engine.decoding.projection.modifiers import _deictic_object, _other
from pad_engine.decoding.projection.nominals import _noun
from pad_engine.decoding.projection.plan import _Level, _Plan
from pad_engine.decoding.projection.words import (
    _NOMINAL,
    _adjectival_participle,
    _has_verb,
    _head_cls,
    _is_aux,
    _nominal_adjective,
    _prenominal,
    _relative_that,
    _Word,
    word_class,
)
from pad_engine.trees.lextree import LexNode

# every phrase label the projection can produce
LABELS = ("ADJP", "ADVP", "CONJP", "FRAG", "INTJ", "NAC", "NP", "PP", "PRN", "PRT", "QP", "S",
          "SBAR", "SBARQ", "SINV", "SQ", "TOP", "VP", "WHADVP", "WHNP", "WHPP", "X")


# a phrase as the projection makes it: its head word, its label, its dependents (left ones
# farthest first, right ones nearest first); a word's chain is the phrases it heads, bottom up
_Bracket = tuple[int, str, list[int], list[int]]


class Projection:
    """The rule-based projection of a d-parse: its phrases bottom up (each word's chain after
    its dependents'). Its tree, and what a model that reads the projection takes from it,
    are made from them when first asked for: a decode needs only the second, the app's
    candidate and the rule-based converter only the first."""

    def __init__(self, tags: list[str], root: int, brackets: list[_Bracket]):
        self.tags = tags
        self.root = root
        self.brackets = brackets

    @functools.cached_property
    def tree(self) -> LexNode:
        """The tree, rooted in TOP (shared: the caller must not change it)."""
        built = [LexNode(tag, [], 0, i) for i, tag in enumerate(self.tags)]
        for i, label, lefts, rights in self.brackets:
            built[i] = LexNode(label, [*[built[d] for d in lefts], built[i],
                                       *[built[d] for d in rights]], len(lefts))
        return LexNode("TOP", [built[self.root]], 0)

    def read(self) -> tuple[dict[tuple[int, int], str], list[str], list[str]]:
        """The labels of the phrases over each span (first word, last word), a chain top
        first, each label followed by a space; and for each word the label of the phrase it
        attaches in ("" for the root) and of its maximal projection ("" for a bare word)."""
        n = len(self.tags)
        first, last = list(range(n)), list(range(n))  # the span of each word's chain so far
        chains: dict[tuple[int, int], str] = {}
        attached, maximal = [""] * n, [""] * n
        for i, label, lefts, rights in self.brackets:  # bottom up: the top of a chain last
            for d in lefts:
                attached[d] = label
            for d in rights:
                attached[d] = label
            if lefts:
                first[i] = first[lefts[0]]
            if rights:
                last[i] = last[rights[-1]]
            span = first[i], last[i]
            chains[span] = label + " " + chains.get(span, "")
            maximal[i] = label
        return chains, attached, maximal


def project(forms: list[str], tags: list[str], heads: list[int],
            rels: list[str] | None = None) -> LexNode:
    """The rule-based tree of a projective d-parse (1-based heads, 0 = root), rooted in TOP.
    Relations are used when given (UD names; anything else is ignored)."""
    return projection(forms, tags, heads, rels).tree


def projection(forms: list[str], tags: list[str], heads: list[int],
               rels: list[str] | None = None) -> Projection:
    """The projection of :func:`project`, its tree not made yet."""
    words = _words(forms, tags, heads, rels)
    root = heads.index(0)
    brackets: list[_Bracket] = []
    for i in _bottom_up(words, root):  # each word after its dependents
        below = tags[i]  # the label of the phrase below (first the word's tag)
        labels, levels = _plan(words, words[i])
        for label, (lefts, rights) in zip(labels, levels):
            if not (lefts or rights) and label == below:
                continue  # a level nothing attaches to repeats the phrase below: no bracket
            brackets.append((i, label, lefts, rights))
            below = label
    return Projection(list(tags), root, brackets)


def _words(forms: list[str], tags: list[str], heads: list[int], rels: list[str] | None
           ) -> list[_Word]:
    """The words with their classes, final once the dependents have had their say, and
    their dependents."""
    n = len(forms)
    rels = ([_ud(r) for r in rels or ()] + [""] * n)[:n]
    words = [_Word(i, word_class(tag, form), tag, form, rel, head - 1) for i, (form, tag, head, rel)
             in enumerate(zip(forms, tags, heads, rels, strict=True))]
    for w in words:
        if w.head >= 0:
            h = words[w.head]
            if w.cls == "N" and w.low == "that" and h.rel == "acl":
                w.cls = "WH"  # UD relative "that" (tagged PRON like the demonstrative)
            (h.left if w.index < w.head else h.right).append(w.index)
            if w.cls != "PUNCT":
                h.leafish = False
    for w in words:
        if len(w.left) > 1:
            w.left.reverse()  # appended in word order: nearest first
        if w.tag in ("VBN", "VERB") and _adjectival_participle(words, w):
            w.cls = "ADJ"
        elif w.low == "that" and _relative_that(words, w):
            w.cls = "WH"
    for w in words:  # the classes are final
        if w.leafish and _is_aux(words, w.index):
            w.aux = True
            if w.index < w.head:
                words[w.head].last_aux = w.index  # in word order: the last one so far
    return words


def _bottom_up(words: list[_Word], root: int) -> list[int]:
    """The words (0-based) of the subtree of ``root``, each after its dependents."""
    order = []
    stack = [root]
    while stack:  # every word before its dependents; reversed, after them
        w = words[stack.pop()]
        order.append(w.index)
        stack += w.left
        stack += w.right
    order.reverse()
    return order


# the universal relations of UD v2 (subtypes are read as their type)
UD_RELATIONS = frozenset(
    "acl advcl advmod amod appos aux case cc ccomp clf compound conj cop csubj dep det "
    "discourse dislocated expl fixed flat goeswith iobj list mark nmod nsubj nummod obj obl "
    "orphan parataxis punct reparandum root vocative xcomp".split())


@functools.lru_cache(maxsize=1 << 12)
def _ud(rel: str) -> str:
    """A relation as the rules read it: its UD type, or "" for anything that is not a UD
    relation (another scheme's labels, such as ``pad deps``'s ``S:NP>VP``, say nothing the
    rules know, and read as UD they would undo the rules that go by the tags). Remembered:
    a treebank has few relations."""
    rel = rel.split(":")[0].lower()
    return rel if rel in UD_RELATIONS else ""


def _inside(words: list[_Word], w: _Word) -> bool:
    """Does the bare word ``w`` stay inside its head's phrase, projecting nothing?"""
    if w.index < w.head:  # "the expected number", UD "will go"
        return (w.cls in ("V", "ADJ") and _head_cls(words, w) in _NOMINAL) or w.aux
    if w.tag == "VBG" and words[w.head].cls == "N":
        return True  # a gerund as a noun: "dollar buying", "construction and manufacturing"
    # "to modify or discontinue it", "encourage, promote or advocate": one VP
    return w.cls == "V" and words[w.head].cls == "V" and _listed(words, w)


def _plan(words: list[_Word], w: _Word) -> tuple[list[str], list[_Level]]:
    """The phrase labels of ``w``'s chain (bottom up) and the dependents each attaches."""
    cls = w.cls
    if not (w.left or w.right):  # a bare word
        if cls in ("PUNCT", "CC"):
            return [], []  # bare punctuation and coordinators project nothing
        if w.head >= 0 and _inside(words, w):
            return [], []
    if cls == "V" and _prenominal(words, w) and not w.right:
        plan = _Plan(["ADJP"])  # "recently diagnosed cancer"
    elif cls in ("V", "AUX") or (cls == "TO" and _has_verb(words, w.right)):
        plan = _verb(words, w)
    elif cls in ("ADJ", "ADV", "NEG") and w.last_aux >= 0:
        plan = _verb(words, w)  # UD copula: "is big" is headed by "big"
    elif cls in _NOMINAL and w.last_aux >= 0:
        plan = _verb(words, w)  # "is a man"
    elif (cls in _NOMINAL and cls != "WH") or (cls == "ADV" and _deictic_object(words, w)) \
            or (cls == "ADJ" and _nominal_adjective(words, w)):
        plan = _noun(words, w)
    else:
        plan = _other(words, w)
    cc = _coordinator(words, w) if w.left and plan.labels and 0 <= w.head < w.index else None
    if cc is not None and not _bare(words, [w.index]):
        # UD hangs the coordinator on the second conjunct: keep it (and the commas before
        # it) out of the conjunct's own phrase, as PTB's "(NP (NP A) and (NP B))" does
        level = plan.add(plan.labels[-1])
        for d in w.left[cc:]:
            plan.fixed[d] = level
    return plan.finish(words, w)


def _coordinator(words: list[_Word], w: _Word) -> int | None:
    """Index in ``w.left`` of the coordinator UD hangs on the conjunct ``w``, or None."""
    for k, d in enumerate(w.left):
        x = words[d]
        if x.cls == "CC" and x.leafish and (x.rel == "cc" or x.tag == "CCONJ"):
            return k
    return None
