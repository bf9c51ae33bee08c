"""Toy treebank, its CoNLL text and a folder of it, and brute-force enumeration of Y(x, d),
shared by the decoder, command-line and batch tests."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import numpy as np
from nltk import Tree

from pad_engine.decoding.decoder import EXACT, derivation_features
from pad_engine.decoding.grammar import LEFT_ATTACH, RIGHT_ATTACH
from pad_engine.decoding.parser import chart_inputs, encode
from pad_engine.io.conll import format_conllx
from pad_engine.learning.train import Example, example_from_lextree, gold_derivation
from pad_engine.trees.binarize import HEAD_LEFT, HEAD_RIGHT, LEAF, UNARY, BinNode, debinarize
from pad_engine.trees.lextree import LexNode, from_penn

TREES = [
    "(TOP (S (NP (DT the) (NN man)) (VP (VBD saw) (NP (DT a) (NN dog)) "
    "(PP (IN with) (NP (DT a) (NN telescope)))) (. .)))",
    "(TOP (S (NP (PRP I)) (VP (VBD ate) (NP (NN fish))) (. .)))",
    "(TOP (S (NP (DT the) (JJ big) (NN dog)) (VP (VBD barked)) (. .)))",
    "(TOP (S (NP (NP (DT the) (NN dog)) (PP (IN in) (NP (NN town)))) (VP (VBD ran)) (. .)))",
    "(TOP (S (VP (VBD ran) (ADVP (RB fast)))))",
    "(TOP (NP (NP (NN fish)) (PP (IN with) (NP (NN dog)))))",
    "(TOP (S (NP (NN dog)) (VP (VBD saw) (S (VP (VBD ran))))))",
]


def toy_heads(tree: Tree, pos: tuple[int, ...] = ()) -> dict[tuple[int, ...], int]:
    """A tiny head table: NP heads right, S heads its VP, everything else left."""
    if isinstance(tree[0], str):
        return {}
    kids = [c.label() for c in tree]
    if tree.label() == "NP":
        head = max(i for i, k in enumerate(kids) if k != "PP")
    elif tree.label() == "S":
        head = kids.index("VP") if "VP" in kids else 0
    else:
        head = 0
    out = {pos: head}
    for i, child in enumerate(tree):
        out.update(toy_heads(child, (*pos, i)))
    return out


def toy_examples() -> list[Example]:
    out = []
    for s in TREES:
        t = Tree.fromstring(s)
        out.append(example_from_lextree(from_penn(t, toy_heads(t)), t.leaves()))
    return out


def conll_text(examples: list[Example]) -> str:
    """CoNLL-X blocks of the examples' d-parses (no labels)."""
    return "".join(format_conllx(ex.forms, ex.tags, ex.heads, ["_"] * len(ex.forms)) + "\n"
                   for ex in examples)


BAD = "1\tbroken\t_\tNN\tNN\t_\tX\t_\t_\t_\n\n"  # a sentence with a non-integer head
BAD_LINE = 1 + sum(len(ex.forms) + 1 for ex in toy_examples()[:2])  # its line in bad.conll
OUTPUTS = ["a.mrg", "x/b.mrg", "x/bad.mrg", "x/y/c.mrg"]  # what converting make_tree gives


def make_tree(base: Path) -> Path:
    """Nested input: three good files, one with a malformed sentence among good ones."""
    exs = toy_examples()
    root = base / "in"
    (root / "x" / "y").mkdir(parents=True)
    (root / "a.conllu").write_text(conll_text(exs), encoding="utf-8")
    (root / "x" / "b.conllx").write_text(conll_text(exs[:3]), encoding="utf-8")
    (root / "x" / "y" / "c.conll").write_text(conll_text(exs[3:]), encoding="utf-8")
    (root / "x" / "bad.conll").write_text(conll_text(exs[:2]) + BAD + conll_text(exs[2:]),
                                          encoding="utf-8")
    (root / "x" / "notes.txt").write_text("not CoNLL", encoding="utf-8")
    return root


def files_under(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


def enumerate_parses(model, tags: list[str], heads: list[int]) -> list[BinNode]:
    """Every derivation in Y(x, d) under the model's grammar, by brute force."""
    g = model.grammar
    n = len(tags)
    U = g.max_unary
    lefts = {h: sorted((m for m in range(n) if heads[m] == h + 1 and m < h), reverse=True)
             for h in range(n)}
    rights = {h: sorted(m for m in range(n) if heads[m] == h + 1 and m > h) for h in range(n)}
    root = heads.index(0)

    def unary_chains(node: BinNode, allow_top: bool) -> list[BinNode]:
        out = [node]
        frontier = [node]
        for _ in range(U):
            nxt = []
            for below in frontier:
                for a, b in g.unary:
                    if g.symbols[b] == below.label and (allow_top or g.symbols[a] != "TOP"):
                        nxt.append(BinNode(g.symbols[a], UNARY, below))
            out += nxt
            frontier = nxt
        return out

    memo: dict[int, list[BinNode]] = {}

    def complete(h: int) -> list[BinNode]:
        if h in memo:
            return memo[h]
        L, R = lefts[h], rights[h]
        is_root = h == root
        start = BinNode(tags[h] if tags[h] in g.tags else "<unk>", LEAF, word=h)
        results = []
        for order in set(itertools.permutations([0] * len(L) + [1] * len(R))):
            states = unary_chains(start, is_root and not L and not R)
            a = b = 0
            for step, side in enumerate(order):
                last = step == len(order) - 1
                m = L[a] if side == 0 else R[b]
                new_states = []
                for st in states:
                    for mod in complete(m):
                        for A, H, M, d in g.binary:
                            if g.symbols[H] != st.label or g.symbols[M] != mod.label:
                                continue
                            if side == 0 and d == LEFT_ATTACH:
                                node = BinNode(g.symbols[A], HEAD_RIGHT, mod, st)
                            elif side == 1 and d == RIGHT_ATTACH:
                                node = BinNode(g.symbols[A], HEAD_LEFT, st, mod)
                            else:
                                continue
                            new_states += unary_chains(node, is_root and last)
                states = new_states
                if side == 0:
                    a += 1
                else:
                    b += 1
            results += [s for s in states if not s.label.startswith("@")]
        memo[h] = results
        return results

    return [t for t in complete(root) if t.label == "TOP"]


def derivation_score(model, forms, tags, heads, tree: BinNode, rels=None) -> float:
    lex = debinarize(tree)
    ex = Example(forms, tags, heads, tree, lex)
    enc = encode(model, forms, tags, heads, rels)
    kinds, _, rules, cells, _, _ = gold_derivation(model, ex, enc)
    buf = np.zeros(4096, np.int64)
    nf = derivation_features(chart_inputs(model, enc, EXACT), kinds, rules, cells, buf)
    return float(model.weights[buf[:nf]].astype(np.float64).sum())


def random_projective(n: int, rng: random.Random) -> list[int]:
    """A random projective tree by recursive splitting of the span."""
    heads = [0] * n

    def build(lo: int, hi: int, parent: int) -> None:
        if lo > hi:
            return
        h = rng.randint(lo, hi)
        heads[h] = parent
        build(lo, h - 1, h + 1)
        build(h + 1, hi, h + 1)

    build(0, n - 1, 0)
    return heads


def random_sentence(rng: random.Random, tags: list[str], longest: int, name: str = "w",
                    shortest: int = 1) -> tuple[list[str], list[str], list[int]]:
    """Forms ``name0``, ``name1``..., tags drawn from ``tags`` and a random projective tree
    (:func:`random_projective`) over ``shortest`` to ``longest`` words."""
    n = rng.randint(shortest, longest)
    heads = random_projective(n, rng)
    return [f"{name}{i}" for i in range(n)], [rng.choice(tags) for _ in range(n)], heads




LABELS, RANDOM_TAGS = ["S", "NP", "VP", "PP"], ["DT", "NN", "VBD", "IN", ",", "."]


def random_tree(rng: random.Random, words: list[str], depth: int = 0) -> LexNode:
    """A random head-marked tree over a few labels, with punctuation (which EVALB deletes, so
    that brackets differing only by it share an EVALB span); its words go to ``words``."""
    if depth > 2 or rng.random() < 0.3:
        words.append(f"x{len(words)}")
        return LexNode(rng.choice(RANDOM_TAGS), [], 0, len(words) - 1)
    kids = [random_tree(rng, words, depth + 1) for _ in range(rng.randint(1, 3))]
    return LexNode(rng.choice(LABELS), kids, rng.randrange(len(kids)), -1)


def random_treebank(rng: random.Random, count: int, joined: float = 0.0) -> list[Example]:
    """``count`` random training trees of at most 6 words; with probability ``joined`` a tree
    is two trees under one TOP (as FarPaHC joins trees into one sentence: TOP -> X Y)."""
    out = []
    while len(out) < count:
        words: list[str] = []
        kids = [random_tree(rng, words) for _ in range(2 if rng.random() < joined else 1)]
        if all(k.word < 0 for k in kids) and len(words) <= 6:
            top = LexNode("TOP", kids, rng.randrange(len(kids)), -1)
            out.append(example_from_lextree(top, words))
    return out
