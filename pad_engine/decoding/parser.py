"""Decode sentences with a model: d-parse in, lexicalized Penn tree out.

The decoder needs a derivation under the model's grammar; a head that pruning leaves without
one is redone exactly, and one that even the exact grammar cannot build (a rule never seen in
training) with glue rules (:mod:`pad_engine.decoding.decoder`), all in one pass, so every
sentence gets a tree consistent with its d-parse. The flat projection of the d-parse is the
last resort, for a grammar glue rules cannot use (:data:`FALLBACK_WHY`).
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from pad_engine.decoding import decoder
from pad_engine.decoding.candidate import How
from pad_engine.decoding.features import NO_LABELS, NO_SPANS, label_ids, tag_ids, word_ids
from pad_engine.decoding.grammar import GrammarArrays, without_tables
from pad_engine.decoding.model import Model
from pad_engine.decoding.records import Derivation, Inputs
from pad_engine.decoding.rulebased import projection_features
from pad_engine.errors import InputError
from pad_engine.trees.attachment import reattach
from pad_engine.trees.binarize import HEAD_LEFT, HEAD_RIGHT, LEAF, UNARY, is_intermediate
from pad_engine.trees.compare import Bracket
from pad_engine.trees.deplabels import ROOT
from pad_engine.trees.edits import brackets, phrase_nodes
from pad_engine.trees.lextree import LexNode, Spans, penn_leaf, to_line
from pad_engine.trees.structure import cell_count, cell_spans, projective_tree

# The largest chart a sentence may need, in cells x (k + 1): chart memory grows with it, by
# about 1.5 kB a unit with the bundled models decoding exactly, so the limit keeps a sentence
# near 1 GB at worst. Ordinary sentences need a few hundred units; a flat 300-word sentence
# (one head, 299 dependents) 22,949 cells: 252,439 units at k = 10. Above it, a sentence is
# refused with an InputError rather than risking an out-of-memory kill. Below it, a k-best
# chart also keeps to its budget of entries (decoder.KBEST_ENTRIES; Parser.kbest decodes a
# sentence past it with fewer trees), which holds that flat sentence at k = 10 near 240 MB.
MAX_CHART = 600_000
# Pruned decoding drops a cell's items that score more than BEAM below its best (a complete
# cell: below its best phrase or tag). Measured on the PTB sample test split and GUM's
# held-out documents (F1; GUM with its earlier 2^21-weight model), EWT dev (speed against no
# beam): 5: 97.44 / 84.06, 1.9x; 4: 97.39 / 84.04, 2.3x, but three times the heads that need
# exact decoding or glue; 3: 97.13 / 83.76 (measured when a failing head redid its subtree).
# A model reading the projection without back-off (``--projection --no-backoff``) lost 0.06
# to exact (97.89) with 5, 0.03 with 7 (0.12 and 0.10 with 5 and 7 before pruning 2 asked for
# five observations), at 0.92x the decoder's speed: 7.
BEAM = 7.0
# A model trained with the back-off grammar (pad train's default, Retrain's) prunes with a
# tighter beam: every modifier of a phrase attaches to every chain of its head children, so a
# cell holds many more items near its best. PTB sample test split, pruning 1's rows fitted to
# the back-off grammar (``Grammar._pruning_rows``), beam 7 / 6 / 5: a model trained with the
# projection and back-off (``pad train --projection``) 98.17 / 98.19 / 98.20 (exact 98.23), its
# decoder 1.2x faster with 6 than 7; on 200 trees 96.51 / 96.52 / 96.52 (exact 96.51);
# FarPaHC's John as `pad bench --farpahc` trains it, held-out 75.93 / 75.91 (exact 75.90),
# 0.64 / 0.52 ms a sentence. Not the others' beam: 6 cost a model reading the projection
# without back-off 0.04 (97.85 / 97.81, exact 97.89), a phrase-labeled one 0.03 (98.56 /
# 98.53, exact 98.56); models trained without back-off (the UD model, the PTB model's fast
# twin) keep 7.
BACKOFF_BEAM = 6.0
# A model reading the rule-based projection, without the back-off grammar (``pad train
# --projection --no-backoff``; the PTB model's fast twin adapted by Retrain), prunes as a
# phrase-labeled one does, with the beam alone (:func:`prunes_with_beam_alone`), and a wider
# one: the projection's labels lead it, as phrase labels do, into constructions the tag-keyed
# tables never saw with the tag. PTB sample test split, exact 97.93: tables and beam 7 97.79
# (2,107-2,213 sentences/s), tables and beam 8 97.86, the beam alone at 7 97.87, the beam
# alone at 8 97.93 (1,752-1,811 sentences/s), one run alternating.
PROJECTION_BEAM = 8.0
# A model that prunes with BACKOFF_BEAM also caps a cell's items: more than CAP_MARGIN below
# the cell's best, it keeps only those of its PARTIAL_CAP best scores (a head's complete
# cell: COMPLETE_CAP). A head-side item is scored with every rule of the back-off grammar
# that the next dependent's items allow, so the edges scored grow with the items kept. The
# bundled PTB model, PTB sample test split / all of GUM with Collins d-parses (exact 98.35 /
# 90.10; no cap 98.357 / 90.03): 4, 5 and 3 98.362 / 90.03, the pruned decoder 1.35x as
# fast; without the margin the caps lost up to 0.05 on GUM (6 and 5: 98.347 / 89.98); other
# settings in docs/EXPERIMENTS.md ("A cap on a cell's items"). Not for models without the
# back-off grammar, whose cells hold fewer items: the PTB model's fast twin lost 0.10 with
# caps of 6 and 5.
PARTIAL_CAP = 4
COMPLETE_CAP = 5
CAP_MARGIN = 3.0
# Pruned k-best keeps an item's derivations within WITHIN of its best: a derivation of the
# sentence within WITHIN of the best tree uses only parts that close to their items' best, so
# none of those is lost; a list left shorter than k is redone without the window, then
# exactly. PTB sample test, k = 10 with trees: 1.17x the speed of no window with 5, 1.15x
# with 3 (2: more lists redone, slower); k-best oracle F1 at k = 10 the same (98.22).
WITHIN = 5.0


class Encoded(NamedTuple):
    """A sentence as the decoder sees it."""

    heads: np.ndarray  # 0-based, -1 for the root
    rows: np.ndarray  # pruning row of each tag
    words: np.ndarray  # padded word hashes
    tags: np.ndarray  # padded tag hashes (by name, as words: a grammar's new tags move nothing)
    rel_ids: np.ndarray  # label hashes, one per word; empty for a model that ignores labels
    spans: np.ndarray  # the projection's labels over spans (features.span_keys); else (2, 0)


@dataclass
class Parse:
    """A decoded tree; ``how`` says which pass produced it (:class:`How`).
    ``cut_to`` (k-best) is nonzero when the sentence's chart for k derivations per item would
    have passed the k-best budget (``decoder.KBEST_ENTRIES``), so its list was decoded with
    this many instead, and may hold fewer than k trees."""

    tree: LexNode
    score: float
    how: How
    cut_to: int = 0


def encode(model: Model, forms: list[str], tags: list[str], heads: list[int],
           rels: list[str] | None = None) -> Encoded:
    """Turn a sentence (1-based heads, 0 = root) into decoder arrays. ``rels`` (dependency
    labels) are read only by a model trained with them; missing ones count as "_". A model
    trained on re-attached d-parses (``Model.reattach``) decodes every d-parse re-attached
    the same way, so its trees induce those heads (``Encoded.heads``)."""
    g = model.grammar
    n = len(forms)
    if model.reattach:
        heads, _ = reattach(heads, tags, rels, model.reattach)
    rows = g.tag_rows(tags)
    h = np.fromiter(heads, dtype=np.int64, count=n) - 1
    labels, spans = NO_LABELS, NO_SPANS
    if model.reads_projection:  # its phrases per span; its labels per word, or DEPREL's
        words, spans = projection_features(forms, tags, heads, rels)
    if model.dep_labels == "projection":
        labels = label_ids(words)
    elif model.dep_labels:
        labels = label_ids(rels if rels and len(rels) == n else ["_"] * n)
    return Encoded(h, rows, word_ids(forms), tag_ids(tags), labels, spans)


def chart_inputs(model: Model, enc: Encoded, mode: int, escalate: bool = False,
                 weights: np.ndarray | None = None, gold_bin: np.ndarray | None = None,
                 gold_un: np.ndarray | None = None, cell_cost: np.ndarray | None = None,
                 loss_weight: float = 0.0, within: float = WITHIN, capped: bool = True
                 ) -> Inputs:
    """The one record the kernels read: the sentence, the model's grammar, weights and search
    settings (``mode``: decoder.PRUNED, EXACT or GLUE, and whether a head escalates); the
    gold derivation's rules for loss-augmented training, or per-cell gains for the oracle.
    ``weights`` given (training's, as they change) are read as they are; else the model's
    :meth:`~pad_engine.decoding.model.Model.decoding_weights`. Without ``capped`` (training),
    pruned mode keeps every item within the beam (:func:`search_caps`)."""
    weights, scale = model.decoding_weights() if weights is None else (weights, 1.0)
    partial_cap, complete_cap = search_caps(model) if capped else (decoder.NO_CAP,
                                                                   decoder.NO_CAP)
    return Inputs(
        enc, decoder_grammar(model), weights, float(scale), model.mask, int(mode),
        bool(escalate), side_alpha(model), search_beam(model), float(within), partial_cap,
        complete_cap, CAP_MARGIN,
        decoder.NO_GOLD if gold_bin is None else gold_bin,
        decoder.NO_GOLD if gold_un is None else gold_un,
        decoder.NO_CELL_COST if cell_cost is None else cell_cost, float(loss_weight),
    )


def side_alpha(model: Model) -> float:
    """The probability above which pruning 2 decides a head's next attachment side greedily:
    the model's ``alpha``, but 1.0 (never) for a model that re-attaches its d-parses (the UD
    model, ``Model.reattach``). GUM's 952 held-out sentences, the bundled UD model: exact
    90.07, pruned 90.00 with the side decisions and 90.05 without them, at 0.95x the pruned
    decoder's speed; a beam of 8 or 10, or tag rows shared by fewer tag families
    (:data:`SHARED_FAMILIES`), left it at 89.99-90.02 (docs/EXPERIMENTS.md)."""
    return 1.0 if model.reattach else float(model.alpha)


def search_beam(model: Model) -> float:
    """The pruned search's beam: :data:`PROJECTION_BEAM` for a model reading the projection
    without the back-off grammar, :data:`BACKOFF_BEAM` for a model trained with the back-off
    grammar that decodes with the tables (not :func:`reads_phrase_labels`), else
    :data:`BEAM`."""
    if _projection_without_backoff(model):
        return PROJECTION_BEAM
    return BACKOFF_BEAM if _backoff_search(model) else BEAM


def search_caps(model: Model) -> tuple[int, int]:
    """How many best scores pruned mode keeps the items of, in a head's partial cells and
    in its complete cell: :data:`PARTIAL_CAP` and :data:`COMPLETE_CAP` for a model that
    prunes as the back-off grammar's (with :data:`BACKOFF_BEAM`), no cap for the others."""
    if _backoff_search(model):
        return PARTIAL_CAP, COMPLETE_CAP
    return decoder.NO_CAP, decoder.NO_CAP


def _backoff_search(model: Model) -> bool:
    """Whether the model was trained with the back-off grammar and decodes with the tables
    (not :func:`reads_phrase_labels`)."""
    return bool(model.training.get("backoff")) and not reads_phrase_labels(model)


def _projection_without_backoff(model: Model) -> bool:
    return model.dep_labels == "projection" and not model.training.get("backoff")


def prunes_with_beam_alone(model: Model) -> bool:
    """Whether the model's pruned search drops pruning 1 and 2 (``grammar.without_tables``):
    a model that :func:`reads_phrase_labels`, or reads the projection without the back-off
    grammar (see :data:`PROJECTION_BEAM`)."""
    return reads_phrase_labels(model) or _projection_without_backoff(model)


# A model trained on content heads (``pad train --deps``: UD) prunes with tag rows that also
# allow every rule seen with this many tag families (``Grammar.shared_rows``: the bundled UD
# model, GUM held-out, 84.26 pruned instead of 84.19, exact 84.28; its pruned decoder 0.99x).
SHARED_FAMILIES = 4
# A model reading the projection and trained with the back-off grammar (``pad train
# --projection``, the strong recipe) prunes with tag rows that also allow every binary rule
# seen with any tag family (``Grammar.shared_rows`` with 1, without unary rules): the
# projection leads it, as phrase labels do, into constructions its head's family never
# showed in training (a WRB heading an NP, an IN an ADJP, a VB a PRN), which its rows alone
# cut. PTB sample test split, the model trained on the train split (exact 98.263), beam 6:
# rows alone 98.206; binary rules shared by 1 family 98.252 (beam 4 / 5: 98.200 / 98.226),
# by 2 families 98.201; unary rules shared too 98.247 (beam 5 / 7: 98.226 / 98.221), at
# 0.8x the speed of binary rules alone; the beam alone 98.284 at a fifth of the speed.
# Binary rules shared cost 0.75-1.0x the pruned decoder's speed with the rows alone (one
# process, alternated; a noisy machine).
BACKOFF_SHARED_FAMILIES = 1
# A model reading the original PAD's phrase labels decodes pruned with the beam alone,
# without pruning 1 and 2 (grammar.py): those tables are keyed by tags, while the labels name
# the phrases a word heads and attaches in, which such a model follows into constructions its
# tag never showed in training (a WRB heading an NP, a period attaching above the subject).
# PTB sample test split, a model trained as `pad bench --labels` trains it: 98.56 exact,
# pruned 98.40 with the tables (98.50 without pruning 1, 98.45 without pruning 2), 98.56 with
# the beam alone, at 0.7x the pruned decoder's speed with the tables and 1.35x exact
# decoding's. A model reading UD relations keeps the tables (the bundled UD model without
# pruning 1: 0.84x its pruned decoder's speed, which the EWT end-to-end target cannot spare);
# on content heads, with the rules of SHARED_FAMILIES families shared.
def reads_phrase_labels(model: Model) -> bool:
    """Whether the model reads the original PAD's phrase labels (``deplabels.py``): read off
    Penn trees (``phrase``), or from a CoNLL column holding them (``pad train --deps --labels``
    on d-parses the original's scripts wrote): every label it saw is ROOT or joins two phrases
    (``S+NP``), which no UD relation does."""
    return model.dep_labels == "phrase" or (
        model.reads_deprel and bool(model.label_set)
        and all(label == ROOT or "+" in label for label in model.label_set))


def decoder_grammar(model: Model) -> GrammarArrays:
    """The model's grammar as the kernels read it: :meth:`Model.packed`; for a model that
    :func:`prunes_with_beam_alone` its copy without pruning 1 and 2 (``grammar.without_tables``);
    for one trained on content heads (UD), its copy whose tag rows share the rules of
    :data:`SHARED_FAMILIES` families (``Grammar.shared_rows``); for one reading the projection
    with the back-off grammar, its copy whose tag rows share the binary rules of
    :data:`BACKOFF_SHARED_FAMILIES`. Made once per packed grammar and kind, here rather
    than by a flag in the kernels, which made the chart loop of every other model 8% slower
    (the PTB model's fast twin, pruned). The kind is decided at every call, not remembered
    with the grammar: it reads the model's training notes, which training writes only once
    its decodes have packed the grammar (a model fresh from ``train``, reading the
    projection with back-off, would otherwise keep the kind of a model without back-off)."""
    packed = model.packed()
    if prunes_with_beam_alone(model):
        kind = "without tables"
    elif model.dep_labels == "projection":  # with back-off (without: the beam alone)
        kind = "back-off rows"
    elif model.headrules == "content":
        kind = "content rows"
    else:
        return packed
    hit = _DECODER_GRAMMARS.get((id(packed), kind))
    if hit is None or hit[0] is not packed:
        if len(_DECODER_GRAMMARS) >= 8:  # models retrained in one process: keep a few
            _DECODER_GRAMMARS.clear()
        if kind == "without tables":
            made = without_tables(packed)
        elif kind == "back-off rows":
            made = model.grammar.shared_rows(packed, BACKOFF_SHARED_FAMILIES, unary=False)
        else:
            made = model.grammar.shared_rows(packed, SHARED_FAMILIES)
        hit = _DECODER_GRAMMARS[(id(packed), kind)] = (packed, made)
    return hit[1]


_DECODER_GRAMMARS: dict[tuple[int, str], tuple[GrammarArrays, GrammarArrays]] = {}


def run_decoder(model: Model, enc: Encoded, mode: int, **options) -> Derivation:
    """One 1-best decode with the model (``options``: those of :func:`chart_inputs`)."""
    return decoder.decode(chart_inputs(model, enc, mode, **options))


def decoder_cached() -> bool:
    """Whether the decoder's compiled code is in Numba's cache for its current source, so it
    loads in a fraction of a second, rather than being compiled on first use (a first start:
    a minute on two busy cores). Compiles at most a trivial kernel; asked again in the same
    process, the answer stays that of its first call."""
    decoder.cache_probe()
    stats = getattr(decoder.cache_probe, "stats", None)  # none under NUMBA_DISABLE_JIT
    return stats is None or bool(stats.cache_hits)


HOW = (How.PRUNED, How.EXACT, How.GLUE)  # Parse.how by the highest mode a head needed
# Why a sentence can still come out flat: glue rules build a phrase of the grammar over any
# phrase or tag, so they derive every projective d-parse unless the grammar has no phrase.
FALLBACK_WHY = "the model's grammar has no phrase for glue rules to build"


def derivation_tree(symbols: list[str], kinds, syms, words, tags: list[str]) -> LexNode:
    """The Penn-level tree of a derivation given as the decoder's pre-order node arrays.

    Debinarization happens on the way: a chain symbol (``@A>``, ``@A<``) opens no node, so
    its children land in the nearest real ancestor, in order; the ancestor's head child is
    the one reached from it through head-side links only. Leaves keep the input tags.
    """
    return build_tree(symbols, kinds.tolist(), syms.tolist(), words.tolist(), tags, 0,
                      len(kinds))


def build_tree(symbols: list[str], kinds: list[int], syms: list[int], words: list[int],
               tags: list[str], start: int, stop: int, refs: list[int] | None = None,
               ends: list[int] | None = None, shared: dict[int, LexNode] | None = None
               ) -> LexNode:
    """:func:`derivation_tree` of the nodes ``start:stop`` of lists (a k-best list converts
    its arrays once). With ``refs``/``ends`` (:func:`decoder.decode_kbest`) and a ``shared``
    dict, a phrase whose derivation an earlier tree of the same list built is that tree's
    node, not a copy (a k-best list's trees differ in a few places; trees are never changed
    in place)."""
    root = LexNode(symbols[syms[start]], [], 0, -1)
    owner, on_head = root, True
    pending: list[tuple[LexNode, bool]] = []  # (owner, on its head path) of the next nodes
    q = start
    while q < stop:
        kind = kinds[q]
        if q > start:
            owner, on_head = pending.pop()
            label = symbols[syms[q]]
            if kind == LEAF:
                node = LexNode(tags[words[q]], [], 0, words[q])
            elif is_intermediate(label):
                node = None
            elif shared is not None and refs[q] in shared:
                node = shared[refs[q]]
                if on_head:
                    owner.head = len(owner.children)
                owner.children.append(node)
                q = ends[q]
                continue
            else:
                node = LexNode(label, [], 0, -1)
                if shared is not None:
                    shared[refs[q]] = node
            if node is not None:
                if on_head:
                    owner.head = len(owner.children)
                owner.children.append(node)
                owner, on_head = node, True
        if kind == UNARY:
            pending.append((owner, on_head))
        elif kind == HEAD_LEFT:  # pre-order: left (head side) next, then right
            pending.append((owner, False))
            pending.append((owner, on_head))
        elif kind == HEAD_RIGHT:
            pending.append((owner, on_head))
            pending.append((owner, False))
        q += 1
    return root


def derivation_line(symbols: list[str], kinds, syms, words, forms: list[str],
                    tags: list[str]) -> str:
    """``to_line(derivation_tree(symbols, kinds, syms, words, tags), forms)``, in one walk
    over the pre-order node arrays: a node closes when its last child has (a binary node has
    two, a unary one), and chain symbols open no bracket."""
    kinds = kinds.tolist()
    syms = syms.tolist()
    words = words.tolist()
    parts: list[str] = []
    open_nodes: list[list] = []  # [children still to complete, writes a bracket]
    for q, kind in enumerate(kinds):
        space = " " if q else ""
        if kind == LEAF:
            w = words[q]
            parts.append(space + penn_leaf(tags[w], forms[w]))
            while open_nodes:  # close every node this leaf completes
                node = open_nodes[-1]
                node[0] -= 1
                if node[0]:
                    break
                open_nodes.pop()
                if node[1]:
                    parts.append(")")
            continue
        label = symbols[syms[q]]
        real = not is_intermediate(label)
        if real:
            parts.append(f"{space}({label}")
        open_nodes.append([1 if kind == UNARY else 2, real])
    return "".join(parts)


def fallback_tree(model: Model, tags: list[str], heads: list[int]) -> LexNode:
    """A flat tree from the d-parse alone: every head with dependents projects one phrase
    (the label its tag usually projects in training, else ``X``) over its dependents."""
    n = len(tags)
    deps: list[list[int]] = [[] for _ in range(n + 1)]
    for m, h in enumerate(heads, 1):
        deps[h].append(m)

    def build(w: int) -> LexNode:
        leaf = LexNode(tags[w - 1], [], 0, w - 1)
        if not deps[w]:
            return leaf
        kids = [build(m) for m in deps[w] if m < w]
        head = len(kids)
        kids.append(leaf)
        kids += [build(m) for m in deps[w] if m > w]
        return LexNode(model.projections.get(tags[w - 1], "X"), kids, head, -1)

    return LexNode("TOP", [build(deps[0][0])], 0, -1)


def bracket_cost(symbols: list[str], enc: Encoded, gold: Iterable[Bracket]) -> np.ndarray:
    """Gain per (cell, symbol) of building that bracket, which the decoder adds to the
    score it maximizes: +1 for a bracket of ``gold`` (label, first and last word: a tree's
    ``edits.brackets``), -1 for any other phrase, 0 for intermediate symbols (they are not
    brackets)."""
    spans = cell_spans(enc.heads)
    cells: dict[tuple[int, int], list[int]] = {}
    for c, (i, j) in enumerate(spans.tolist()):
        cells.setdefault((i, j), []).append(c)
    sid = {label: k for k, label in enumerate(symbols)}
    cost = np.zeros((spans.shape[0], len(symbols)))
    cost[:, [k for k, label in enumerate(symbols) if not is_intermediate(label)]] = -1.0
    for label, first, last in gold:
        k = sid.get(label)
        if k is not None:
            cost[cells.get((first, last), []), k] = 1.0
    return cost


def fewer(k: int, reach: float) -> int:
    """The derivations per item to try next when a k-best chart stopped at its budget having
    built the fraction ``reach`` of its cells: entries grow about as k does, so k x reach
    would about fill the budget (a little less, 0.9 of it: the last cells of a head hold the
    longest lists); always fewer than k, at least 1 (which has no budget)."""
    return max(1, min(k - 1, int(k * reach * 0.9)))


def steady_allocator() -> None:
    """Have the C library (glibc) give every allocation of 4 MB or more its own mapping,
    returned to the system when freed, once per process, from the first k-best decode on.
    By default glibc raises that threshold up to 32 MB after freeing such a block, and the
    chart's arrays, doubling as they grow, then come from the heap and stay there: the same
    chart peaked 50 MB higher in one process than in another (UD model, flat 300-word
    sentence: 291 MB against 240 MB whole process, k = 10 cut to 1 by the budget)."""
    global _STEADY
    if _STEADY:
        return
    _STEADY = True
    # mallopt is MT-Unsafe (glibc's manual): it changes state other threads' malloc reads
    # unlocked. A command decodes on its one thread; in the app or a test process other
    # threads run (the Qt thread, workers), and there it is left alone.
    if not sys.platform.startswith("linux") or threading.active_count() > 1:
        return
    import ctypes
    import ctypes.util

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").mallopt(
            _M_MMAP_THRESHOLD, 4 << 20)


_STEADY = False
_M_MMAP_THRESHOLD = -3  # mallopt's parameter (malloc.h)


def kbest_cut_note(cut_to: int, k: int) -> str:
    """What to tell a user whose sentence's k-best list was cut to ``cut_to`` per item."""
    return (f"k-best cut to {cut_to} tree{'s' if cut_to > 1 else ''} for this sentence: its "
            f"chart is too large for {k} within memory")


class Parser:
    """Decodes sentences with one model; k-best charts hold at most ``kbest_budget``
    entries (:meth:`kbest`)."""

    def __init__(self, model: Model, kbest_budget: int = decoder.KBEST_ENTRIES):
        self.model = model
        self.kbest_budget = kbest_budget

    def encode_checked(self, forms: list[str], tags: list[str], heads: list[int],
                       rels: list[str] | None = None, k: int = 1) -> Encoded:
        """Encode a sentence, or raise InputError when its d-parse cannot be decoded (for
        ``k`` derivations: see MAX_CHART)."""
        if len(forms) != len(tags) or len(forms) != len(heads):
            raise InputError("forms, tags and heads differ in length")
        if not forms:
            raise InputError("empty sentence")
        enc = encode(self.model, forms, tags, heads, rels)
        if not projective_tree(enc.heads):
            from pad_engine.trees.deptree import tree_problem

            raise InputError(tree_problem(heads) or "the dependency tree is not projective")
        cells = cell_count(enc.heads)
        if cells * (k + 1) > MAX_CHART:
            wide = Counter(heads).most_common(1)[0]
            raise InputError(
                f"sentence too large to decode: {len(forms)} words whose d-parse needs "
                f"{cells:,} chart cells (word {wide[0]} has {wide[1]} dependents); the limit "
                f"is {MAX_CHART // (k + 1):,} cells for {k} tree{'s' if k > 1 else ''}")
        return enc

    def tree(self, kinds, syms, words, tags: list[str]) -> LexNode:
        """The Penn-level tree of a decoded derivation, with the input tags kept."""
        return derivation_tree(self.model.grammar.symbols, kinds, syms, words, tags)

    def parse(self, forms: list[str], tags: list[str], heads: list[int],
              prune: bool = True, rels: list[str] | None = None) -> Parse:
        """The best tree consistent with ``heads`` (1-based, 0 = root, projective), in one
        pass: a head that pruning leaves without a complete item is redone exactly, and with
        glue rules where the learned ones cannot build one (``how`` names the last needed)."""
        d = self._best(forms, tags, heads, prune, rels)
        if d.kinds.shape[0]:
            return Parse(self.tree(d.kinds, d.syms, d.words, tags), float(d.score), HOW[d.level])
        return Parse(fallback_tree(self.model, tags, heads), float("-inf"), How.FALLBACK)

    def parse_line(self, forms: list[str], tags: list[str], heads: list[int],
                   prune: bool = True, rels: list[str] | None = None) -> tuple[str, How]:
        """The Penn line of :meth:`parse`'s tree and its ``how``, written straight from the
        derivation (conversion needs no tree objects)."""
        d = self._best(forms, tags, heads, prune, rels)
        if d.kinds.shape[0]:
            return derivation_line(self.model.grammar.symbols, d.kinds, d.syms, d.words, forms,
                                   tags), HOW[d.level]
        return to_line(fallback_tree(self.model, tags, heads), forms), How.FALLBACK

    def _best(self, forms, tags, heads, prune, rels) -> Derivation:
        enc = self.encode_checked(forms, tags, heads, rels)
        return run_decoder(self.model, enc, decoder.PRUNED if prune else decoder.EXACT,
                           escalate=True)

    def guided(self, forms: list[str], tags: list[str], heads: list[int], reference: LexNode,
               weights: Sequence[float], rels: list[str] | None = None) -> list[Parse]:
        """For each of ``weights``, the best tree under the model plus that weight for each
        bracket of ``reference`` it builds, minus it for each other phrase: a compromise
        between the model and another view of the sentence (the rule-based projection).
        Its score is the model's alone. An empty list when the grammar derives no tree for
        ``heads``. One encoding and one table of gains serve every weight."""
        enc = self.encode_checked(forms, tags, heads, rels)
        wanted = set(brackets(reference))
        gains = bracket_cost(self.model.grammar.symbols, enc, wanted)
        out = []
        for weight in weights:
            d = run_decoder(self.model, enc, decoder.EXACT, cell_cost=gains * weight)
            if not d.kinds.shape[0]:
                return []  # the grammar's trees do not depend on the weight
            tree = self.tree(d.kinds, d.syms, d.words, tags)
            at = Spans(tree)
            bonus = sum(-1.0 if len(node.children) == 1 and node.children[0].label == node.label
                        else weight if (node.label, *at.span(node)) in wanted else -weight
                        for node in phrase_nodes(tree))  # as the decoder adds it
            out.append(Parse(tree, float(d.score) - bonus, How.GUIDED))
        return out

    def kbest(self, forms: list[str], tags: list[str], heads: list[int], k: int,
              prune: bool = True, rels: list[str] | None = None,
              budget: int | None = None, distinct: bool = False) -> list[Parse]:
        """The k best trees consistent with ``heads``, best first, distinct as Penn trees
        (with ``distinct``, in their labeled brackets once unary chains of one label are
        merged: the best tree of each of the k best such bracketings).
        A pruned search that finds fewer than k is redone exactly; glue as in :meth:`parse`.
        A sentence whose chart for k derivations per item would pass ``budget`` entries
        (default: ``kbest_budget``) is decoded with fewer (:func:`fewer`), down to 1 (no
        budget: as :meth:`parse`); its trees then say how many (``Parse.cut_to``)."""
        enc = self.encode_checked(forms, tags, heads, rels, k)
        budget = self.kbest_budget if budget is None else budget
        steady_allocator()
        result: list[Parse] = []
        passes = ((decoder.PRUNED, WITHIN), (decoder.PRUNED, np.inf), (decoder.EXACT, np.inf))
        kk = k  # derivations per item: k, unless the budget cuts it
        for mode, within in passes if prune else passes[2:]:
            inputs = chart_inputs(self.model, enc, mode, escalate=True, within=within)
            while True:
                d = decoder.decode_kbest(inputs, kk, budget, bool(distinct))
                if d.level != decoder.OVER_BUDGET:
                    break
                kk = fewer(kk, d.reach)
            lists = d.kinds.tolist(), d.syms.tolist(), d.words.tolist()
            refs, ends, shared = d.refs.tolist(), d.ends.tolist(), {}
            cut_to = kk if kk < k else 0
            # binarization gives a tree one derivation, so the k are k distinct trees
            result = [Parse(build_tree(self.model.grammar.symbols, *lists, tags, a, b, refs,
                                       ends, shared), score, HOW[d.level], cut_to)
                      for a, b, score in zip(d.offsets[:-1].tolist(), d.offsets[1:].tolist(),
                                             d.scores.tolist())]
            if d.level < 0:  # not even glue rules derive it: the flat projection
                break
            if len(result) >= kk or d.level != decoder.PRUNED:
                return result
        return result or [Parse(fallback_tree(self.model, tags, heads), float("-inf"),
                                How.FALLBACK, kk if kk < k else 0)]

    def oracle(self, forms: list[str], tags: list[str], heads: list[int],
               gold: LexNode) -> Parse:
        """The tree in Y(x, d) closest to ``gold`` (labeled brackets: +1 for each gold
        bracket built, -1 for each other one), ignoring the model's weights. When the
        grammar has no tree for ``heads``, glue rules may help (``how`` says "oracle+glue")."""
        enc = self.encode_checked(forms, tags, heads)
        zero = np.zeros_like(self.model.weights)
        cost = bracket_cost(self.model.grammar.symbols, enc, brackets(gold))
        for mode in (decoder.EXACT, decoder.GLUE):
            d = run_decoder(self.model, enc, mode, cell_cost=cost, weights=zero, loss_weight=1.0)
            if d.kinds.shape[0]:
                return Parse(self.tree(d.kinds, d.syms, d.words, tags), float(d.score),
                             How.ORACLE if mode == decoder.EXACT else How.ORACLE_GLUE)
        return Parse(fallback_tree(self.model, tags, heads), float("-inf"), How.FALLBACK)
