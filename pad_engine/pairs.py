"""Training examples from paired d-parses and c-parses of the same sentences (as in GUM).

A UD d-parse and a phrase-structure tree of the same sentence rarely agree everywhere: UD
heads are content words, and some UD subtrees are not constituents of the c-parse. Each
phrase takes as head the child holding the word of the phrase nearest the UD root, so the
tree induces the UD d-parse wherever it can; where it still does not, the target is the
tree in Y(x, d) closest to the c-parse (the oracle of the paper's §6), so the model learns
to build trees consistent with the d-parses it will be given.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from nltk import Tree

from pad_engine.binarize import binarize
from pad_engine.deptree import DepSentence
from pad_engine.errors import InputError
from pad_engine.lextree import LexNode, from_penn, induced_heads
from pad_engine.model import Model
from pad_engine.parser import Parser
from pad_engine.penn import normalize
from pad_engine.projectivize import projectivize
from pad_engine.train import Example, example_from_lextree


@dataclass
class Pair:
    """A sentence's d-parse (projectivized) and its normalized c-parse with the same words."""

    forms: list[str]
    tags: list[str]
    heads: list[int]
    tree: Tree  # normalized, rooted in TOP, with the d-parse's words and tags at the leaves
    where: str  # "file:line" of the d-parse, for messages
    rels: list[str] = field(default_factory=list)  # the d-parse's labels (DEPREL)


@dataclass
class PairedExamples:
    """What :func:`examples_from_pairs` made, and how."""

    examples: list[Example] = field(default_factory=list)
    exact: int = 0  # c-parse already consistent with the d-parse
    oracle: int = 0  # replaced by the closest consistent tree
    skipped: list[str] = field(default_factory=list)  # "where: why"


def make_pairs(trees: Iterable[Tree], sentences: Iterable[DepSentence], path: str) -> list[Pair]:
    """Pair trees with d-parses in order; raises InputError when the counts or words differ
    in a way that is not only the bracket escaping of the c-parse."""
    trees, sentences = list(trees), list(sentences)
    if len(trees) != len(sentences):
        raise InputError(f"{len(sentences)} sentences but {len(trees)} trees to pair with", path)
    pairs = []
    for tree, sent in zip(trees, sentences):
        norm = normalize(tree)
        pre = list(norm.subtrees(lambda t: len(t) == 1 and isinstance(t[0], str)))
        if len(pre) != len(sent.forms):
            raise InputError(f"{len(sent.forms)} words but {len(pre)} in the paired tree",
                             path, sent.line)
        for node, tag, form in zip(pre, sent.tags, sent.forms):
            node.set_label(tag)
            node[0] = form  # the c-parse escapes brackets inside words; the d-parse does not
        heads, _ = projectivize(sent.heads)
        pairs.append(Pair(list(sent.forms), list(sent.tags), heads, norm,
                          f"{path}:{sent.line}", list(sent.rels)))
    return pairs


def guided_lextree(pair: Pair) -> LexNode:
    """Lexicalize the c-parse choosing, in each phrase, the child that holds the word of the
    phrase closest to the d-parse's root (the leftmost such child on a tie)."""
    depth = _depths(pair.heads)
    head_child: dict[tuple[int, ...], int] = {}

    def visit(node: Tree, pos: tuple[int, ...], start: int) -> tuple[int, int]:
        """(words covered, shallowest word) of ``node``, whose first word is ``start``."""
        if len(node) == 1 and isinstance(node[0], str):
            return 1, start
        size, best, best_child = 0, -1, 0
        for i, child in enumerate(node):
            n, w = visit(child, pos + (i,), start + size)
            size += n
            if best < 0 or depth[w] < depth[best]:
                best, best_child = w, i
        head_child[pos] = best_child
        return size, best

    visit(pair.tree, (), 0)
    return from_penn(pair.tree, head_child)


def _head_variants(tree: Tree) -> list[dict[tuple[int, ...], int]]:
    """Other head choices for the same tree: the two English tables, leftmost, rightmost.
    Their rules let the oracle attach a word where the guided heads never did."""
    from pad_engine.headrules import HeadRules, head_children

    variants = [head_children(tree, HeadRules.load(name)) for name in ("collins", "content")]
    phrases = [pos for pos in tree.treepositions()
               if isinstance(tree[pos], Tree) and not isinstance(tree[pos][0], str)]
    variants.append(dict.fromkeys(phrases, 0))
    variants.append({pos: len(tree[pos]) - 1 for pos in phrases})
    return variants


def _depths(heads: list[int]) -> list[int]:
    depth = [-1] * len(heads)
    for m in range(len(heads)):
        path = []
        v = m
        while v >= 0 and depth[v] < 0:
            path.append(v)
            v = heads[v] - 1
        d = depth[v] if v >= 0 else -1
        for v in reversed(path):
            d += 1
            depth[v] = d
    return depth


def oracle_grammar(pairs: list[Pair], lexed: list[LexNode]) -> Model:
    """A weightless model whose rules, from every tree under every head choice, bound the
    oracle's search."""
    model = Model()
    for lex, p in zip(lexed, pairs):
        model.grammar.observe(binarize(lex), p.tags)
        for heads in _head_variants(p.tree):
            model.grammar.observe(binarize(from_penn(p.tree, heads)), p.tags)
    model.invalidate()
    return model


def examples_from_pairs(pairs: list[Pair],
                        progress: Callable[[int, int], None] | None = None) -> PairedExamples:
    """Training examples whose trees induce exactly the (projectivized) d-parses."""
    out = PairedExamples()
    lexed = [guided_lextree(p) for p in pairs]
    parser = Parser(oracle_grammar(pairs, lexed))
    for done, (lex, p) in enumerate(zip(lexed, pairs), 1):
        if induced_heads(lex, len(p.forms)) == p.heads:
            out.examples.append(example_from_lextree(lex, p.forms, p.rels))
            out.exact += 1
        else:
            closest = parser.oracle(p.forms, p.tags, p.heads, lex)
            if closest.how == "fallback":
                out.skipped.append(f"{p.where}: no tree of the grammar fits its d-parse")
            else:
                out.examples.append(example_from_lextree(closest.tree, p.forms, p.rels))
                out.oracle += 1
        if progress is not None and (done % 200 == 0 or done == len(pairs)):
            progress(done, len(pairs))
    return out


def read_pairs(tree_files: list[str], dep_files: list[str], pos: str = "auto") -> list[list[Pair]]:
    """The pairs of each tree file with its CoNLL file (same sentences, same order)."""
    from pad_engine.conll import read_conll
    from pad_engine.penn import read_penn

    if len(tree_files) != len(dep_files):
        raise InputError(f"{len(tree_files)} tree files but {len(dep_files)} CoNLL files: "
                         "give one CoNLL file per tree file, in the same order")
    return [make_pairs(read_penn(t).trees, read_conll(d, pos=pos).sentences, d)
            for t, d in zip(tree_files, dep_files)]


@dataclass
class HeldOut:
    """Scores on pairs kept out of training: the model's trees and the best trees in Y(x, d)
    (the oracle bound), each against the paired c-parses."""

    sentences: int
    f1: float
    oracle_f1: float


def score_pairs(model: Model, pairs: list[Pair]) -> HeldOut:
    """Decode the held-out d-parses and score them (EVALB) against their c-parses."""
    from pad_engine.evalb import bracket_f1, score
    from pad_engine.lextree import to_line
    from pad_engine.penn import tree_to_line

    parser = Parser(model)
    gold = [tree_to_line(p.tree) for p in pairs]
    test = [to_line(parser.parse(p.forms, p.tags, p.heads, rels=p.rels).tree, p.forms)
            for p in pairs]
    lexed = [guided_lextree(p) for p in pairs]
    bound = Parser(oracle_grammar(pairs, lexed))
    best = [to_line(bound.oracle(p.forms, p.tags, p.heads, lex).tree, p.forms)
            for p, lex in zip(pairs, lexed)]
    return HeldOut(len(pairs), bracket_f1(score(gold, test)), bracket_f1(score(gold, best)))
