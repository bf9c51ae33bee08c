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
from dataclasses import dataclass, field, replace
from pathlib import Path

from nltk import Tree

from pad_engine.decoding.model import Model
from pad_engine.decoding.parser import Parser
from pad_engine.errors import InputError
from pad_engine.io.penn import normalize
from pad_engine.learning.train import Example, example_from_lextree
from pad_engine.trees.attachment import reattach
from pad_engine.trees.binarize import binarize, training_depth_problem
from pad_engine.trees.deptree import DepSentence
from pad_engine.trees.lextree import LexNode, from_penn, induced_heads, is_preterminal, positioned
from pad_engine.trees.projectivize import projectivize
from pad_engine.trees.walk import fold

MAX_PAIR_DEPTH = 5_000  # nesting paired (the oracle takes trees deeper than training does)


@dataclass
class Pair:
    """A sentence's d-parse (projectivized) and its normalized c-parse with the same words."""

    forms: list[str]
    tags: list[str]
    heads: list[int]
    tree: Tree  # normalized, rooted in TOP, with the d-parse's words and tags at the leaves
    where: str  # "file:line" of the d-parse, for messages
    rels: list[str] = field(default_factory=list)  # the d-parse's labels (DEPREL)

    def sentence(self) -> DepSentence:
        """The pair's d-parse as a converter reads it (as ``Example.sentence``)."""
        return DepSentence(self.forms, self.tags, self.heads, self.rels)


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
    return [make_pair(tree, sent, path) for tree, sent in zip(trees, sentences)]


def make_pair(tree: Tree, sent: DepSentence, path: str) -> Pair:
    """One tree with its d-parse: the d-parse's words and tags go to the tree's leaves (the
    c-parse escapes brackets inside words; the d-parse does not). InputError when the word
    counts differ, or when the tree nests deeper than ``MAX_PAIR_DEPTH`` (refused first: the
    positions of its nodes, each a tuple as long as its depth, take memory quadratic in it:
    a 100,000-deep tree ran out of memory)."""
    depth = fold(tree, lambda n: [] if isinstance(n, str) else n,
                 lambda _, kids: 1 + max(kids, default=0))
    if depth > MAX_PAIR_DEPTH:
        raise InputError(f"its paired c-parse nests {depth} levels deep (at most "
                         f"{MAX_PAIR_DEPTH} are paired)", path, sent.line)
    norm = normalize(tree)
    pre = [node for node, _ in _nodes(norm) if is_preterminal(node)]
    if len(pre) != len(sent.forms):
        raise InputError(f"{len(sent.forms)} words but {len(pre)} in the paired tree",
                         path, sent.line)
    for node, tag, form in zip(pre, sent.tags, sent.forms):
        node.set_label(tag)
        node[0] = form
    heads, _ = projectivize(sent.heads)
    return Pair(list(sent.forms), list(sent.tags), heads, norm, f"{path}:{sent.line}",
                list(sent.rels))


def paired_files(folder: Path) -> list[tuple[Path, Path]]:
    """GUM's layout: each ``const/NAME.ptb`` with its ``dep/NAME.conllu``, in name order;
    InputError naming a tree file without one."""
    out = []
    for tree in sorted((folder / "const").glob("*.ptb")):
        dep = folder / "dep" / f"{tree.stem}.conllu"
        if not dep.exists():
            raise InputError(f"no dep/{dep.name} to pair with this file", str(tree))
        out.append((tree, dep))
    return out


def reattached(pairs: list[Pair], scheme: str) -> list[Pair]:
    """The pairs with their d-parses re-attached as a model of ``scheme`` decodes them
    (``Model.reattach``), so the trees it trains on and is scored by induce them."""
    if not scheme:
        return pairs
    return [replace(p, heads=reattach(p.heads, p.tags, p.rels, scheme)[0]) for p in pairs]


def guided_lextree(pair: Pair) -> LexNode:
    """Lexicalize the c-parse choosing, in each phrase, the child that holds the word of the
    phrase closest to the d-parse's root (the leftmost such child on a tie)."""
    depth = _depths(pair.heads)
    head_child: dict[tuple[int, ...], int] = {}
    words = [0]  # words seen so far: leaves are visited left to right

    def visit(item: tuple[Tree, tuple[int, ...]], kids: list[int]) -> int:
        """The word of the node closest to the d-parse's root."""
        if not kids:
            words[0] += 1
            return words[0] - 1
        best = min(range(len(kids)), key=lambda i: (depth[kids[i]], i))
        head_child[item[1]] = best
        return kids[best]

    fold((pair.tree, ()), positioned, visit)
    return from_penn(pair.tree, head_child)


def _nodes(tree: Tree) -> list[tuple[Tree, tuple[int, ...]]]:
    """Every node of a tree (words excluded) with its position, in pre-order."""
    out = []
    stack = [(tree, ())]
    while stack:
        item = stack.pop()
        out.append(item)
        stack.extend(reversed(positioned(item)))
    return out


def _head_variants(tree: Tree) -> list[dict[tuple[int, ...], int]]:
    """Other head choices for the same tree: the two English tables, leftmost, rightmost.
    Their rules let the oracle attach a word where the guided heads never did."""
    from pad_engine.trees.headrules import HeadRules, head_children

    variants = [head_children(tree, HeadRules.load(name)) for name in ("collins", "content")]
    phrases = [(pos, len(node)) for node, pos in _nodes(tree) if not is_preterminal(node)]
    variants.append({pos: 0 for pos, _ in phrases})
    variants.append({pos: n - 1 for pos, n in phrases})
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


def oracle_grammar(pairs: list[Pair], lexed: list[LexNode], wider: Model | None = None
                   ) -> Model:
    """A weightless model whose rules, from every tree under every head choice (and
    ``wider``'s, when given), bound the oracle's search; trees too deep to train on add
    none."""
    model = Model() if wider is None else Model(grammar=wider.grammar.copy())
    for lex, p in zip(lexed, pairs):
        if training_depth_problem(p.tree):
            continue
        model.grammar.observe(binarize(lex), p.tags)
        for heads in _head_variants(p.tree):
            model.grammar.observe(binarize(from_penn(p.tree, heads)), p.tags)
    model.invalidate()
    return model


def examples_from_pairs(pairs: list[Pair],
                        progress: Callable[[int, int], None] | None = None,
                        wider: Model | None = None) -> PairedExamples:
    """Training examples whose trees induce exactly the (projectivized) d-parses; a pair
    whose c-parse is too deep to train on is skipped. ``wider``: a model whose grammar
    the closest trees may use too (a few hundred pairs' rules alone leave poor ones)."""
    out = PairedExamples()
    kept = []
    for p in pairs:
        problem = training_depth_problem(p.tree)
        if problem:
            out.skipped.append(f"{p.where}: its paired c-parse: {problem}")
        else:
            kept.append(p)
    pairs = kept
    lexed = [guided_lextree(p) for p in pairs]
    parser = Parser(oracle_grammar(pairs, lexed, wider))
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


def candidate_examples(pairs: list[Pair], base: Model) -> PairedExamples:
    """The trees an annotator makes of ``base``'s candidates for these pairs: consistent
    with the d-parses as ``base`` decodes them (re-attached, ``Model.reattach``), closest to
    the c-parses, in ``base``'s grammar widened with the pairs' own rules."""
    return examples_from_pairs(reattached(pairs, base.reattach), wider=base)


def scored_examples(pairs: list[Pair]) -> list[Example]:
    """Pairs as test examples for :func:`pad_engine.learning.retrain.evaluate`: decoded under
    their d-parses, scored against their c-parses (not the closest consistent trees)."""
    return [replace(example_from_lextree(guided_lextree(p), p.forms, p.rels), heads=p.heads)
            for p in pairs]


def hold_out(per_file: list[list[Pair]], k: int) -> tuple[list[Pair], list[Pair]]:
    """The kept pairs and those set aside, as ``pad train --hold-out K`` splits them: every
    K-th file (the K-th, 2K-th...), whole documents as in GUM; with fewer than K files
    (one corpus in one file, as FarPaHC) every K-th sentence. K 0 keeps everything."""
    if not k:
        return [p for ps in per_file for p in ps], []
    units = per_file if len(per_file) >= k else [[p] for ps in per_file for p in ps]
    kept = [p for i, ps in enumerate(units) if i % k != k - 1 for p in ps]
    held = [p for i, ps in enumerate(units) if i % k == k - 1 for p in ps]
    return kept, held


def read_pairs(tree_files: list[str], dep_files: list[str], pos: str = "auto",
               encoding: str | None = None, warn: Callable[[str], None] | None = None
               ) -> tuple[list[list[Pair]], list[InputError]]:
    """The pairs of each tree file with its CoNLL file, and the sentences that could not be
    paired. Trees with IDs (Penn-Helsinki ``.psd``) pair with the CoNLL sentences that cite
    them (``# X_IDs``, ``# X_ID`` or ``# sent_id``; several trees make one sentence);
    otherwise the files hold the same sentences in the same order. ``warn`` hears which
    files were not UTF-8."""
    if len(tree_files) != len(dep_files):
        raise InputError(f"{len(tree_files)} tree files but {len(dep_files)} CoNLL files: "
                         "give one CoNLL file per tree file, in the same order")
    per_file, problems = [], []
    for t, d in zip(tree_files, dep_files):
        pairs, bad = _pair_files(t, d, pos, encoding, warn)
        per_file.append(pairs)
        problems += bad
    return per_file, problems


def _pair_files(tree_file: str, dep_file: str, pos: str, encoding: str | None,
                warn: Callable[[str], None] | None) -> tuple[list[Pair], list[InputError]]:
    from pad_engine.io.conll import read_conll
    from pad_engine.io.penn import read_penn
    from pad_engine.io.psd import conll_ids

    penn = read_penn(tree_file, encoding=encoding)
    conll = read_conll(dep_file, pos=pos, on_error="skip", encoding=encoding)
    problems = list(conll.skipped)
    for note in (penn.note, conll.note):
        if note and warn is not None:
            warn(note)
    if any(penn.ids):
        by_id = {i: tree for i, tree in zip(penn.ids, penn.trees) if i is not None}
        wanted = [(conll_ids(s.lines, s.sent_id), s) for s in conll.sentences]
    elif len(penn.trees) != len(conll.sentences) + len(conll.skipped):
        raise InputError(f"{len(conll.sentences) + len(conll.skipped)} sentences but "
                         f"{len(penn.trees)} trees to pair with", dep_file)
    else:
        by_id = dict(enumerate(penn.trees))
        wanted = [([i], s) for i, s in enumerate(conll.in_file_order()) if s is not None]
    pairs = []
    for ids, sent in wanted:
        missing = [i for i in ids if i not in by_id]
        if not ids or missing:
            problems.append(InputError(f"no tree {missing[0] if missing else ''} in "
                                       f"{tree_file} for this sentence", dep_file, sent.line))
            continue
        tree = Tree("TOP", [c for i in ids for c in by_id[i]]) if len(ids) > 1 else by_id[ids[0]]
        try:
            pairs.append(make_pair(tree, sent, dep_file))
        except InputError as err:
            problems.append(err)
    return pairs, problems


@dataclass
class HeldOut:
    """Scores on pairs kept out of training, against the paired c-parses (EVALB): the
    model's trees, and how far trees consistent with the d-parses can go
    (:mod:`pad_engine.learning.bounds`)."""

    sentences: int
    f1: float
    grammar_f1: float  # the closest trees the model's grammar can build
    bound_f1: float  # the best trees with any grammar: no converter keeping the d-parses
    bound_upper: float  # scores above this (bound_f1 is what trees found reach)
    flat: int = 0  # sentences decoded as the flat fallback (parser.FALLBACK_WHY)


def closest_lines(parser: Parser, pairs: list[Pair]) -> list[str]:
    """The Penn lines of the trees in Y(x, d) closest to the pairs' c-parses under the
    parser's grammar (:meth:`Parser.oracle`): the one search behind ``pad oracle`` and the
    held-out figure of ``pad train --deps --hold-out``."""
    from pad_engine.trees.lextree import to_line

    return [to_line(parser.oracle(p.forms, p.tags, p.heads, guided_lextree(p)).tree, p.forms)
            for p in pairs]


def pairs_f1(pairs: list[Pair], lines: list[str]) -> float:
    """EVALB F1 of one line per pair against the pairs' c-parses."""
    from pad_engine.io.penn import tree_to_line
    from pad_engine.learning.evalb import bracket_f1, score

    return bracket_f1(score([tree_to_line(p.tree) for p in pairs], lines))


def score_pairs(model: Model, pairs: list[Pair]) -> HeldOut:
    """Decode the held-out d-parses and score them (EVALB) against their c-parses, with the
    two oracle figures."""
    from pad_engine.io.penn import tree_to_line
    from pad_engine.learning.bounds import Sentence, any_oracle
    from pad_engine.trees.lextree import to_line

    parser = Parser(model)
    parses = [parser.parse(p.forms, p.tags, p.heads, rels=p.rels) for p in pairs]
    f1 = pairs_f1(pairs, [to_line(d.tree, p.forms) for d, p in zip(parses, pairs)])
    sentences = [Sentence(p.forms, p.tags, p.heads, tree_to_line(p.tree)) for p in pairs]
    bound, upper = any_oracle(sentences, f1)
    return HeldOut(len(pairs), f1, pairs_f1(pairs, closest_lines(parser, pairs)), bound, upper,
                   sum(d.how == "fallback" for d in parses))
