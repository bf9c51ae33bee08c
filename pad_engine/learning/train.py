"""Structured-SVM training (paper §4.2): loss-augmented decoding, AdaGrad, L1, averaging.

Each step decodes a training sentence under its gold d-parse with the Hamming cost of every
production added (+1 for a production not in the gold derivation, -1 for one in it), and
moves the weights by the subgradient f(predicted) - f(gold) with AdaGrad step sizes and an
L1 truncation on the touched weights. The weights used in the end are the average over all
steps (lazily accumulated), which is markedly more accurate on small training sets.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from pad_engine.decoding.candidate import How
from pad_engine.decoding.capacity import grammar_problem
from pad_engine.decoding.decoder import EXACT, PRUNED, decode, derivation_features
from pad_engine.decoding.features import MAX_CONTEXT, label_ids
from pad_engine.decoding.grammar import (
    LEFT_ATTACH,
    RIGHT_ATTACH,
    UNKNOWN_TAG,
    Grammar,
    RuleName,
)
from pad_engine.decoding.model import DEFAULT_BITS, Model
from pad_engine.decoding.model_check import DEPREL_AND_PROJECTION
from pad_engine.decoding.parser import Encoded, chart_inputs, encode
from pad_engine.decoding.projection import LABELS
from pad_engine.decoding.rulebased import phrase_labels, projected_tree, unprojected
from pad_engine.errors import Cancelled, ModelError
from pad_engine.jit import njit
from pad_engine.trees.attachment import reattach
from pad_engine.trees.binarize import (
    HEAD_LEFT,
    LEAF,
    UNARY,
    BinNode,
    binarize,
    intermediate,
    is_intermediate,
    phrase_of,
)
from pad_engine.trees.deptree import DepSentence, tree_problem
from pad_engine.trees.edits import phrase_nodes
from pad_engine.trees.lextree import LexNode, induced_heads, penn_words
from pad_engine.trees.projectivize import projectivize
from pad_engine.trees.structure import sentence_structure

if TYPE_CHECKING:  # nltk (and scipy with it) is imported where trees are read, not here
    from nltk import Tree

KNOWN_SHARE = 0.9  # see add_projection_rules
POOL_LIMIT = 4000  # sentences of the file projected by add_projection_rules
# the warm-start pass of a model reading the projection (see train): 1,000 of the pool's
# projections, as Retrain from scratch makes (retrain.Settings says why that many)
WARM_START = 1000
# The share of the trees' decodes, each epoch, in which a model reading the projection has it
# hidden (see train). PTB sample, the bundled recipe: dev split (wsj_0001-0139 trained,
# wsj_0140-0159 scored) 98.35 / 98.33 pruned at seeds 0 / 1 without, 98.41 / 98.35 with 0.3
# (0.1: 98.38, 0.5: 98.38 at seed 0); test split 98.23 / 98.16 without, 98.36 / 98.22 with
# 0.3 (docs/EXPERIMENTS.md, "Projection dropout").
PROJECTION_DROPOUT = 0.3


@dataclass
class Example:
    """A training sentence: words, tags, the gold d-parse it induces, its binarized tree,
    and the d-parse's labels (empty when it has none)."""

    forms: list[str]
    tags: list[str]
    heads: list[int]
    tree: BinNode
    lex: LexNode
    rels: list[str] = field(default_factory=list)

    def sentence(self) -> DepSentence:
        """The example's d-parse as a converter reads it (words, tags, heads, labels)."""
        return DepSentence(self.forms, self.tags, self.heads, self.rels)


def example_from_lextree(lex: LexNode, forms: list[str], rels: list[str] | None = None
                         ) -> Example:
    """A training example from a lexicalized tree (no head table needed: it has heads)."""
    tags = [p.label for p in lex.preterminals()]
    return Example(list(forms), tags, induced_heads(lex, len(forms)), binarize(lex), lex,
                   list(rels or []))


def examples_from_penn(trees: list[Tree], headrules: str = "collins", labels: str = ""
                       ) -> list[Example]:
    """Normalize Penn trees, lexicalize them with a head table, binarize them; with a label
    scheme (see deplabels.py), label their d-parses too."""
    from pad_engine.io.penn import normalize
    from pad_engine.trees.deplabels import tree_labels
    from pad_engine.trees.headrules import HeadRules, lexicalize

    rules = HeadRules.load(headrules)
    out = []
    for tree in trees:
        norm = normalize(tree)
        forms = penn_words(norm)
        if not forms:
            continue
        lex = lexicalize(norm, rules)
        rels = tree_labels(lex, len(forms), labels) if labels else None
        out.append(example_from_lextree(lex, forms, rels))
    return out


@dataclass
class Progress:
    """What a progress callback receives."""

    epoch: int  # 0 (of 0): the warm-start pass over the projections (see train)
    epochs: int
    done: int  # sentences done in this epoch
    total: int
    errors: int  # sentences whose loss-augmented decode differed from gold this epoch
    seconds: float
    share: float = 0.0  # of all the steps of this training, warm-start pass included


def _projections(examples: list[Example]) -> dict[str, str]:
    counts: dict[str, Counter] = {}
    for ex in examples:
        stack = [ex.lex]
        while stack:
            node = stack.pop()
            if node.word >= 0:
                continue
            child = node.children[node.head]
            if child.word >= 0 and len(node.children) > 1:
                counts.setdefault(child.label, Counter())[node.label] += 1
            stack.extend(node.children)
    return {tag: c.most_common(1)[0][0] for tag, c in counts.items()}


def add_backoff_rules(grammar: Grammar) -> int:
    """Widen the grammar read off few trees. For each phrase A, every chain the binarization
    can build from a head child seen heading A (right attachments to it as @A> or A, then
    left ones as @A< or A) may attach any modifier seen attached to A on either side, or a
    word whose tag was never seen; a tag stands for its family (NN for NNS, NNP...), in unary
    rules too; and any phrase may sit under TOP. A few hundred trees leave most (head side,
    modifier) pairs unseen, and without such rules the decoder falls back to glue rules.
    Every chain rather than the (head side, direction) pairs seen (PTB sample, first N train
    trees, exact decoding): 50 trees 89.64 -> 90.95, 200: 94.93 -> 94.80, all 3,396: 97.86
    -> 97.96; Dutch Alpino, 50 trees: 83.91 -> 85.71. Returns the number of rules added."""
    members: dict[str, list[int]] = {}
    for tag in grammar.tags:
        members.setdefault(_family(tag), []).append(grammar.symbol(tag))
    tags = set(grammar.tags)

    def family(sym: int) -> list[int]:
        label = grammar.symbols[sym]
        return members[_family(label)] if label in tags else [sym]

    heads: dict[str, set[int]] = {}  # phrase -> its head children (no chain symbols)
    mods: dict[str, set[int]] = {}
    for a, h, m, _ in grammar.binary:
        phrase = phrase_of(grammar.symbols[a])
        if not is_intermediate(grammar.symbols[h]):
            heads.setdefault(phrase, set()).update(family(h))
        mods.setdefault(phrase, {grammar.symbol(UNKNOWN_TAG)}).update(family(m))
    before = len(grammar.binary) + len(grammar.unary)
    for phrase, children in sorted(heads.items()):
        top = grammar.symbol(phrase)
        right = grammar.symbol(intermediate(phrase, True))
        left = grammar.symbol(intermediate(phrase, False))
        for m in sorted(mods[phrase]):
            for h in sorted(children | {right}):
                grammar.add_binary(top, h, m, RIGHT_ATTACH)
                grammar.add_binary(right, h, m, RIGHT_ATTACH)
            for h in sorted(children | {right, left}):
                grammar.add_binary(top, h, m, LEFT_ATTACH)
                grammar.add_binary(left, h, m, LEFT_ATTACH)
    for a, b in list(grammar.unary):
        for x in family(b):
            grammar.add_unary(a, x)
    for a, _, _, _ in list(grammar.binary):
        if not is_intermediate(grammar.symbols[a]):
            grammar.add_unary(grammar.top, a)
    return len(grammar.binary) + len(grammar.unary) - before


def add_projection_rules(grammar: Grammar, pool: Sequence[DepSentence],
                         corrected: Sequence[LexNode] = ()) -> int:
    """Widen the grammar with the rules of the rule-based projections of d-parsed sentences
    nobody corrected (the rest of the annotator's file): a few trees leave most sentences
    needing some rule none of them showed (50 PTB sample trees: 294 of the 518 test
    sentences), and the projection's rules derive them (:func:`pool_projections` says which
    sentences, and when none). Returns the number of rules added."""
    before = len(grammar.binary) + len(grammar.unary)
    for ex in pool_projections(grammar, pool, corrected):
        grammar.observe(ex.tree, ex.tags, learned=False)
    return len(grammar.binary) + len(grammar.unary) - before


def pool_projections(grammar: Grammar, pool: Sequence[DepSentence],
                     corrected: Sequence[LexNode] = ()) -> list[Example]:
    """The rule-based trees of the pool's d-parses as examples, only where the projection's
    phrase labels are the treebank's: at least :data:`KNOWN_SHARE` of their phrases have
    labels the grammar's trees used, or of the ``corrected`` trees' phrases labels the
    projection makes (a few trees have not shown every label yet); otherwise none (another
    treebank's labels, such as Alpino's). ``pool``: DepSentences, or Examples (their forms,
    tags, heads and rels are read). At most :data:`POOL_LIMIT` sentences, spread over the
    pool, are projected (0.3 ms each the first time, see ``rulebased.projected_tree``)."""
    trees = []
    for sent in _spread(pool, POOL_LIMIT):
        if tree_problem(sent.heads) is None:
            heads, _ = projectivize(sent.heads)
            trees.append((projected_tree(sent.forms, sent.tags, heads, sent.rels), sent))
    made = Counter(label for tree, _ in trees for label in phrase_labels(tree))
    used = Counter(node.label for tree in corrected for node in phrase_nodes(tree)
                   if node.label != "TOP")
    if _share(made, {phrase_of(s) for s in grammar.symbols}) < KNOWN_SHARE and \
            _share(used, set(LABELS)) < KNOWN_SHARE:
        return []
    return [example_from_lextree(tree, sent.forms, sent.rels) for tree, sent in trees]


def _share(labels: Counter, known: set[str]) -> float:
    """The share of the counted labels that are ``known`` (0 when nothing was counted)."""
    total = labels.total()
    return sum(n for label, n in labels.items() if label in known) / total if total else 0.0


def _spread(items: Sequence, limit: int) -> Sequence:
    """At most ``limit`` of ``items``, evenly spread over them."""
    if len(items) <= limit:
        return items
    return [items[i * len(items) // limit] for i in range(limit)]


def _family(tag: str) -> str:
    return tag[:2] if tag[:1].isalpha() else tag


def gold_derivation(model: Model, ex: Example, enc: Encoded):
    """The gold tree as decoder arrays: pre-order (kinds, syms, rules, cells) plus the gold
    rule of each (cell, side) transition and of each (cell, unary layer)."""
    g = model.grammar
    st = sentence_structure(enc.heads)
    nr, cbase = st.nr, st.cbase
    if not st.ok:
        raise ValueError("gold d-parse is not a projective tree")
    layers = g.max_unary + 1
    ncell = int(cbase[-1])
    gold_bin = np.full(ncell * 2, -1, np.int64)
    gold_un = np.full(ncell * layers, -1, np.int64)
    kinds, syms, rules, cells = [], [], [], []
    nb = len(g.binary)

    def cell(h: int, a: int, b: int) -> int:
        return int(cbase[h] + a * (nr[h] + 1) + b)

    def visit(node: BinNode) -> tuple[int, int, int, int]:
        """Pre-order emit; returns (head, a, b, unary layer) of the node."""
        q = len(kinds)
        kinds.append(node.kind)
        syms.append(g.symbol(node.label))
        rules.append(-1)
        cells.append(0)
        if node.kind == LEAF:
            h, a, b, layer = node.word, 0, 0, 0
        elif node.kind == UNARY:
            h, a, b, layer = visit(node.left)
            layer += 1
            rid = nb + g._un[(syms[q], g.symbol(node.left.label))]
            rules[q] = rid
            if layer < layers:
                gold_un[cell(h, a, b) * layers + layer] = rid
        else:
            hl = visit(node.left)
            hr = visit(node.right)
            if node.kind == HEAD_LEFT:
                h, a, b = hl[0], hl[1], hl[2] + 1
                key = (syms[q], g.symbol(node.left.label), g.symbol(node.right.label), 0)
                side = 1
            else:
                h, a, b = hr[0], hr[1] + 1, hr[2]
                key = (syms[q], g.symbol(node.right.label), g.symbol(node.left.label), 1)
                side = 0
            layer = 0
            rules[q] = g._bin[key]
            gold_bin[cell(h, a, b) * 2 + side] = rules[q]
        cells[q] = cell(h, a, b)
        return h, a, b, layer

    visit(ex.tree)
    arr = [np.array(x, dtype=np.int64) for x in (kinds, syms, rules, cells)]
    return (*arr, gold_bin, gold_un)


@njit(cache=True, nogil=True)
def _update(feats, nfeat, signs, weights, anchor, sumsq, avg, step, eta, l1):
    """AdaGrad step on the summed subgradient, L1 truncation of each touched weight's
    offset from its ``anchor`` (zero from scratch, the base's weight when adapting), lazy
    averaging."""
    order = np.argsort(feats[:nfeat])
    q = 0
    while q < nfeat:
        f = feats[order[q]]
        g = 0.0
        while q < nfeat and feats[order[q]] == f:
            g += signs[order[q]]
            q += 1
        if g == 0.0:
            continue
        sumsq[f] += g * g
        rate = eta / np.sqrt(sumsq[f])
        old = weights[f]
        w = old - rate * g - anchor[f]
        shrink = rate * l1
        if w > shrink:
            w -= shrink
        elif w < -shrink:
            w += shrink
        else:
            w = 0.0
        w += anchor[f]
        weights[f] = w
        avg[f] += step * (w - old)


def train(
    examples: list[Example],
    *,
    epochs: int = 10,
    seed: int = 0,
    eta: float = 0.1,
    l1: float = 1e-3,
    bits: int = DEFAULT_BITS,
    init: Model | None = None,
    headrules: str = "collins",
    progress: Callable[[Progress], None] | None = None,
    cancel: Callable[[], bool] | None = None,
    margin: float = 1.0,
    backoff: bool = False,
    labels: str = "",
    pool: Sequence[DepSentence] = (),
    warm_start: int = 0,
    anchored: bool = False,
    epoch_end: Callable[[Model, int, np.ndarray], None] | None = None,
    pruned: bool = False,
    projection_dropout: float = 0.0,
    rule_support: int = 1,
    reattach: str = "",
) -> Model:
    """Train a model (deterministic given ``seed``); ``init`` continues from a model (and
    reads labels if it does). ``backoff`` widens the grammar read off the trees with
    :func:`add_backoff_rules`. ``labels`` names where the examples' d-parse labels come from
    ("deprel", or a scheme of deplabels.py), or "projection" for the labels and phrases of
    the rule-based projection of each d-parse; the model then reads them. ``pool``: d-parsed
    sentences nobody corrected, whose projections widen the grammar
    (:func:`add_projection_rules`). ``warm_start``: before the trees, one pass over the
    projections of up to this many of the pool's sentences (spread over it; none where
    :func:`pool_projections` finds their labels foreign), reported as epoch 0: the model
    starts out following the projection, and the corrected trees teach it where the
    projection is wrong rather than everything. ``anchored`` (with ``init``): L1 pulls each
    weight toward ``init``'s rather than toward zero, a prior on the offset from the model
    (``learning/adaptation.py`` measures why). ``epoch_end`` hears the model being trained
    (its grammar final), the epoch and the averaged weights so far, before the first epoch
    (0: the starting weights) and after each: a caller may score them on trees it held
    out. ``pruned``: each tree is decoded pruned while training, not exactly (Retrain's
    search, see :func:`_fit`). ``projection_dropout``: for a model reading the projection,
    the share of the trees' decodes, each epoch, made with the projection hidden (every word
    labeled "_", no phrase over any span, as for a d-parse it cannot project), so that the
    trees also teach what words, tags and the d-parse say on their own and the model copies
    the projection less where it is wrong (feature dropout). A model whose file could not be
    loaded (a grammar larger than the decoder holds) raises ModelError before any training.
    ``rule_support`` (with ``init``): a rule ``init`` lacks stays in the model only if at
    least this many of the trees have it, with the back-off rules it implies (training
    decodes with every rule, so each tree can be derived; :func:`_supported_rules`).
    ``reattach`` (from scratch; a continued model keeps ``init``'s): how the model
    re-attaches every d-parse before decoding (``Model.reattach``); a tree that does not
    induce its d-parse so re-attached is trained as the closest tree that does
    (:func:`_reattached`)."""
    start = time.perf_counter()
    model = Model(headrules=headrules, dep_labels=labels, reattach=reattach) \
        if init is None else _copy_model(init)
    if model.dep_labels and model.dep_labels != "projection":  # its labels are never input
        model.label_set = sorted(set(model.label_set).union(*(ex.rels for ex in examples)))
    if init is None:
        model.weights = np.zeros(1 << bits, dtype=np.float32)
    if model.reattach:
        examples = _reattached(model, examples)
    for ex in examples:
        model.grammar.observe(ex.tree, ex.tags)
    model.projections.update(_projections(examples))
    projected = pool_projections(model.grammar, pool, [ex.lex for ex in examples]) \
        if pool else []
    warm = list(_spread(projected, warm_start)) if warm_start else []
    _widen(model.grammar, warm, projected, backoff)
    model.invalidate()
    _refuse_unloadable(model, backoff)
    anchor = model.weights.copy() if anchored and init is not None else \
        np.zeros(model.weights.shape[0], np.float32)
    hidden = projection_dropout if model.dep_labels == "projection" else 0.0
    model.weights = _fit(model, warm, examples, epochs, seed=seed, eta=eta, l1=l1,
                         margin=margin, progress=progress, cancel=cancel, start=start,
                         anchor=anchor, epoch_end=epoch_end, pruned=pruned, hidden=hidden)
    supported = _supported_rules(examples, rule_support) if init is not None else None
    if supported is not None:  # the grammar read again from init's, without the others
        model.grammar = init.grammar.copy()
        for ex in examples:
            model.grammar.observe(ex.tree, ex.tags, admit=supported.__contains__)
        _widen(model.grammar, warm, projected, backoff)
        model.invalidate()
    model.training = {
        **(init.training if init is not None else {}),
        "sentences": len(examples),
        "epochs": epochs,
        "seed": seed,
        "eta": eta,
        "l1": l1,
        "margin": margin,
        **({"anchored": True} if anchored and init is not None else {}),
        "bits": int(model.weights.shape[0]).bit_length() - 1,
        "backoff": backoff or bool((init.training if init is not None else {}).get("backoff")),
        "seconds": round(time.perf_counter() - start, 2),
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
        "grammar": model.grammar.counts(),
    }
    if warm:
        model.training["warm_start"] = len(warm)
    if hidden:
        model.training["projection_dropout"] = hidden
    return model


def _reattached(model: Model, examples: list[Example]) -> list[Example]:
    """The examples as a model that re-attaches its d-parses learns from them: a tree made
    for the d-parse as it is (a corrected tree whose coordinator stays inside the conjunct,
    say) becomes the tree closest to it that induces the re-attached d-parse, in the
    model's grammar with every example's rules (glue rules where it has none). Trees that
    already induce it stay as they are; only the trees trained on give the model rules."""
    from pad_engine.decoding.parser import Parser

    parser = None
    out = []
    for ex in examples:
        heads, moved = reattach(ex.heads, ex.tags, ex.rels, model.reattach)
        if moved:
            if parser is None:
                searched = Model(grammar=model.grammar.copy())
                for other in examples:
                    searched.grammar.observe(other.tree, other.tags)
                parser = Parser(searched)
            closest = parser.oracle(ex.forms, ex.tags, heads, ex.lex)
            if closest.how == How.FALLBACK:
                continue
            ex = example_from_lextree(closest.tree, ex.forms, ex.rels)
        out.append(ex)
    return out


def _widen(grammar: Grammar, warm: list[Example], projected: list[Example],
           backoff: bool) -> None:
    """After the trees: the warm pass's projections, the back-off rules all of these imply,
    then the rules of the pool's projections (not learned from)."""
    for ex in warm:
        grammar.observe(ex.tree, ex.tags)
    if backoff:
        add_backoff_rules(grammar)
    for ex in projected:
        grammar.observe(ex.tree, ex.tags, learned=False)


def _supported_rules(examples: list[Example], support: int) -> set[RuleName] | None:
    """The rules (by names) at least ``support`` of the trees have; None when that is every
    rule (why a continued model leaves the others out: ``adaptation._support``)."""
    if support <= 1:
        return None
    counts: Counter[RuleName] = Counter()
    for ex in examples:
        one = Grammar()
        one.observe(ex.tree, ex.tags)
        counts.update(one.rule_names())
    return {rule for rule, n in counts.items() if n >= support}


def projection_recipe(examples: list[Example], deprel: bool = False) -> dict:
    """``pad train --projection`` (``train``'s keyword arguments beside the examples and
    ``backoff``): reading the rule-based projection of each d-parse, the projections of the
    training d-parses in the grammar, one pass over 1,000 of them first, and the
    projection hidden from :data:`PROJECTION_DROPOUT` of the trees' decodes. With the
    back-off grammar, the bundled PTB model's recipe: above the recipe without either on
    newswire and on other genres, at about a third of its speed (docs/EXPERIMENTS.md, "The
    bundled models"; without back-off it scored below it on other genres, "The projection
    recipe"). With ``deprel`` (``--deps --labels
    --projection``) the model reads DEPREL per word and the projection's phrases over each
    span, without the warm pass (GUM held-out: 84.68 against 84.26 for the bundled model's
    recipe, at half its speed; docs/EXPERIMENTS.md, "DEPREL and the projection")."""
    if deprel:
        return {"labels": DEPREL_AND_PROJECTION, "pool": examples, "warm_start": 0}
    return {"labels": "projection", "pool": examples, "warm_start": WARM_START,
            "projection_dropout": PROJECTION_DROPOUT}


def _refuse_unloadable(model: Model, backoff: bool) -> None:
    """Refuse, before the training time is spent, a model whose file would be refused on
    loading: a grammar larger than the decoder holds (``capacity``), or a field out of
    range, checked as loading checks it."""
    problem = model.problem()
    if not problem:
        return
    g = model.grammar
    if grammar_problem(len(g.symbols), len(g.tags), len(g.binary) + len(g.unary),
                       g.max_unary):
        raise ModelError(f"the grammar read off these trees is too large to decode: {problem}; "
                         "train on fewer trees" + (", or without back-off rules (pad train "
                                                   "--no-backoff)" if backoff else ""))
    raise ModelError(f"these trees make a model that could not be loaded: {problem}")


def _fit(model: Model, warm: list[Example], examples: list[Example], epochs: int, *,
         seed: int, eta: float, l1: float, margin: float,
         progress: Callable[[Progress], None] | None, cancel: Callable[[], bool] | None,
         start: float, anchor: np.ndarray,
         epoch_end: Callable[[Model, int, np.ndarray], None] | None = None,
         pruned: bool = False, hidden: float = 0.0) -> np.ndarray:
    """One pass over ``warm`` (epoch 0), then ``epochs`` over ``examples``, from the model's
    weights, as one run: AdaGrad's sums and the average go on from the warm-start pass into
    the trees' epochs (on the last 500 sentences of the PTB sample's train split, 200 trees:
    F1 97.44, against 97.28 starting both afresh after the warm-start pass).

    Each tree is decoded (loss-augmented) exactly (``pad train``) or, ``pruned``, pruned,
    each head escalating as in conversion (Retrain, whose back-off grammar decodes
    exactly at a tenth of the pruned speed: the bundled PTB model's 35,000 rules, or a
    grammar from scratch widened by the file's projections). GUM whow, conversation and
    academic with Collins d-parses, Retrain from the bundled PTB model on 50 / 200 corrected
    sentences of each: exact 93.03 / 94.07 F1 in 9.8 / 24.0 s, pruned 92.94 / 93.97 in 4.1 /
    5.5 s (docs/ADAPTATION.md, seventh round); from scratch on the first 50 / 200 PTB sample
    train trees: exact 97.12 / 97.14, 11.0 s to retrain on 200; pruned 97.14 / 97.16, 5.9 s.

    ``hidden``: the share of the trees' decodes (not the warm pass over projections) made
    with the projection hidden (:func:`_without_projection`), drawn from a generator of
    their own so the trees' order is the same as without."""
    rng = np.random.default_rng(seed)
    hide = np.random.default_rng(seed + 1)

    def encoded(exs: list[Example]) -> list[tuple[Encoded, tuple]]:
        encs = [encode(model, ex.forms, ex.tags, ex.heads, ex.rels) for ex in exs]
        return [(enc, gold_derivation(model, ex, enc)) for ex, enc in zip(exs, encs)]

    trees, warmed = encoded(examples), encoded(warm)
    bare = [_without_projection(enc) for enc, _ in trees] if hidden else []
    passes = ([(0, warmed)] if warm else []) + [(e, trees) for e in range(1, epochs + 1)]
    weights = model.weights.astype(np.float32, copy=True)
    sumsq = np.zeros(weights.shape[0], np.float64)
    avg = np.zeros(weights.shape[0], np.float64)
    step = 1.0
    max_nodes = max((len(g[0]) for _, g in trees + warmed), default=1)
    buf = np.zeros(max(1, 4 * max_nodes * MAX_CONTEXT + 64), np.int64)
    steps = max(1, sum(len(items) for _, items in passes))
    if epoch_end is not None:
        epoch_end(model, 0, weights.copy())
    for epoch, items in passes:
        errors = 0
        order = rng.permutation(len(items))
        for done, idx in enumerate(order, 1):
            if cancel is not None and cancel():
                raise Cancelled()
            enc, (gk, gs, gr, gc, gold_bin, gold_un) = items[idx]
            if hidden and epoch and hide.random() < hidden:
                enc = bare[idx]
            inp = chart_inputs(model, enc, PRUNED if pruned else EXACT, escalate=pruned,
                               gold_bin=gold_bin, gold_un=gold_un, loss_weight=margin,
                               weights=weights, capped=False)
            best = decode(inp)
            pk, ps, pr, pc = best.kinds, best.syms, best.rules, best.cells
            if not (pk.shape == gk.shape and (pk == gk).all() and (ps == gs).all()
                    and (pr == gr).all() and (pc == gc).all()):
                errors += 1
                need = (len(gk) + len(pk)) * MAX_CONTEXT
                if buf.shape[0] < need:
                    buf = np.zeros(2 * need, np.int64)
                ng = derivation_features(inp, gk, gr, gc, buf)
                npred = derivation_features(inp, pk, pr, pc, buf[ng:])
                signs = np.concatenate([-np.ones(ng), np.ones(npred)])
                _update(buf, ng + npred, signs, weights, anchor, sumsq, avg, step, eta, l1)
            step += 1.0
            if progress is not None and (done % 50 == 0 or done == len(order)):
                progress(Progress(epoch, epochs if epoch else 0, done, len(order), errors,
                                  time.perf_counter() - start, (step - 1) / steps))
        if epoch_end is not None and epoch:
            epoch_end(model, epoch, (weights - avg / step).astype(np.float32))
    return (weights - avg / step).astype(np.float32)


def _without_projection(enc: Encoded) -> Encoded:
    """A sentence's encoding with the projection hidden (``rulebased.unprojected``)."""
    labels, spans = unprojected(enc.heads.shape[0])
    return enc._replace(rel_ids=label_ids(labels), spans=spans)


def _copy_model(model: Model) -> Model:
    return Model(
        grammar=model.grammar.copy(),
        weights=model.weights.copy(),
        headrules=model.headrules,
        alpha=model.alpha,
        training=dict(model.training),
        projections=dict(model.projections),
        dep_labels=model.dep_labels,
        label_set=list(model.label_set),
        reattach=model.reattach,
    )
