"""Hashed feature templates of paper Figure 4, compiled with Numba.

A production's features are the conjunction of a rule part (the rule, its parent symbol as
back-off, or parent+child pairs) with context from the sentence (span boundary words, split
words, binned length, head/modifier words and tags). Everything that does not depend on the
rule is hashed once per decoder transition (:func:`binary_context`), so scoring one rule costs
one mix and one weight read per template.

Rule parts are keyed by the symbols' names (:func:`symbol_keys`, :func:`rule_keys`), never by
their ids or the grammar's size, so a grammar that grows (new labels, tags or unary chains
from corrected trees) scores every old production exactly as before. All hashing is 32-bit
values mixed with products below 2**63 and explicit masks: the same numbers compiled (int64)
and under ``NUMBA_DISABLE_JIT=1`` (Python integers), with no wraparound anywhere.
"""

from __future__ import annotations

import functools
import zlib

import numpy as np
from numba import types
from numba.core.extending import overload

from pad_engine.jit import leaf, njit

# Binary templates [0, RULE_END) are conjoined with the rule, [RULE_END, PARENT_END) with the
# parent symbol, [PARENT_END, HEAD_END) with parent+head child, the rest with parent+modifier.
RULE_END, PARENT_END, HEAD_END, N_BINARY = 17, 27, 29, 31
# A model that reads dependency labels adds N_LABEL templates: the modifier's label conjoined
# with the rule, the parent, parent+head child and parent+modifier child (paper section 6, the
# four templates it adds for Chinese), at these places of its context arrays, which are
# MAX_BINARY long.
LABEL_RULE, LABEL_PARENT, LABEL_HEAD, LABEL_MOD = range(N_BINARY, N_BINARY + 4)
N_LABEL = 4
MAX_BINARY = N_BINARY + N_LABEL
# A model that reads the rule-based projection (its labels are then the projection's, see
# rulebased.projection_features) adds, after the label templates: the projection's labels
# over the span, those labels with the dependent's label and the head word's label, all
# three with the rule, and the labels over the span with the parent; its unary templates add
# the head word's label and the labels over the span.
SPAN_RULE, SPAN_MOD, SPAN_HEAD, SPAN_PARENT = range(MAX_BINARY, MAX_BINARY + 4)
N_SPAN = 4
N_UNARY_SPAN = 2
MAX_CONTEXT = MAX_BINARY + N_SPAN  # the longest context array, binary or unary, of any model
NO_SPANS = np.zeros((2, 0), np.int64)  # see span_label
NO_LABELS = np.zeros(0, np.int64)
N_UNARY = 11
# odd multipliers below 2**31: a 32-bit value times one stays below 2**63
MUL1, MUL2 = 0x5BD1E995, 0x27D4EB2F
MASK32 = 0xFFFFFFFF
# seeds of the rule parts: the rule itself, its parent, parent+child pairs, a unary rule
RULE_SEED, PARENT_SEED, PAIR_SEED, UNARY_SEED = 700, 701, 702, 703
BOS_WORD = zlib.crc32(b"<s>")
EOS_WORD = zlib.crc32(b"</s>")
BOS_TAG = zlib.crc32(b"<s>/tag")
EOS_TAG = zlib.crc32(b"</s>/tag")


@njit(cache=True, inline="always")
def hmix(h: int, v: int) -> int:
    """Mix value ``v`` into hash ``h`` (both below 2**32); the result is below 2**32."""
    p = (h * MUL1) ^ v
    p = (p ^ (p >> 32)) & MASK32
    p = p * MUL2
    return (p ^ (p >> 29)) & MASK32


@njit(cache=True, inline="always")
def length_bin(length: int) -> int:
    if length <= 5:
        return length
    if length <= 7:
        return 6
    if length <= 10:
        return 7
    if length <= 15:
        return 8
    if length <= 25:
        return 9
    return 10


def span_keys(n: int, brackets: dict[tuple[int, int], int]) -> np.ndarray:
    """The (2, m) array :func:`span_label` reads: sorted keys i*(n+1)+j of the spans of an
    n-word sentence that have a value, and the values; a first key -1 matches nothing, so
    a sentence without any still has the projection's templates. As long as the sentence,
    not its square (a 20,000-word chain passes the chart's limit)."""
    keys = sorted((i * (n + 1) + j, v) for (i, j), v in brackets.items())
    return np.array([(-1, 0), *keys], np.int64).T.copy()


@njit(cache=True, inline="always")
def span_label(spans, i, j, n):
    """The value of span i..j of an n-word sentence in ``spans`` (:func:`span_keys`), 0 if
    none."""
    key = i * (n + 1) + j
    pos = np.searchsorted(spans[0], key)
    if pos < spans.shape[1] and spans[0, pos] == key:
        return spans[1, pos]
    return 0


@leaf(cache=True)
def binary_context(i, k, j, h, m, words, tags, labels, spans, ctx):
    """Rule-independent half of every binary template. words/tags are padded: index p+1 is
    word p, index 0 is <s>, index n+1 is </s>; labels (one per word, unpadded) are read only
    when ``ctx`` has room for the label templates."""
    xi, xi1, xj, xj1 = words[i + 1], words[i], words[j + 1], words[j + 2]
    xk, xk1 = words[k + 1], words[k + 2]
    ti1, tj1 = tags[i], tags[j + 2]
    th, tm, xh, xm = tags[h + 1], tags[m + 1], words[h + 1], words[m + 1]
    ln = length_bin(j - i + 1)
    ctx[0] = hmix(1, 0)
    ctx[1] = hmix(2, th)
    ctx[2] = hmix(3, tm)
    ctx[3] = hmix(hmix(4, th), tm)
    ctx[4] = hmix(5, xh)
    ctx[5] = hmix(6, xm)
    ctx[6] = hmix(hmix(7, xh), tm)
    ctx[7] = hmix(hmix(8, th), xm)
    # span features with the full rule (8..16) and with the parent symbol (17..26)
    for base, seed in ((8, 100), (17, 200)):
        ctx[base + 0] = hmix(seed + 1, xi)
        ctx[base + 1] = hmix(seed + 2, xi1)
        ctx[base + 2] = hmix(seed + 3, xj)
        ctx[base + 3] = hmix(seed + 4, xj1)
        ctx[base + 4] = hmix(seed + 5, xk)
        ctx[base + 5] = hmix(seed + 6, xk1)
        ctx[base + 6] = hmix(seed + 7, ln)
        ctx[base + 7] = hmix(seed + 8, ti1)
        ctx[base + 8] = hmix(seed + 9, tj1)
    ctx[26] = hmix(hmix(300, th), tm)
    # nonterminal pairs
    ctx[27] = hmix(400, 0)
    ctx[28] = hmix(401, th)
    ctx[29] = hmix(402, 0)
    ctx[30] = hmix(403, tm)
    if ctx.shape[0] > N_BINARY:
        lab = labels[m]
        for t in range(N_LABEL):
            ctx[N_BINARY + t] = hmix(600 + t, lab)
    if ctx.shape[0] > MAX_BINARY:
        sp = span_label(spans, i, j, labels.shape[0])
        ctx[SPAN_RULE] = hmix(620, sp)
        ctx[SPAN_PARENT] = hmix(621, sp)
        ctx[SPAN_MOD] = hmix(hmix(622, sp), labels[m])
        ctx[SPAN_HEAD] = hmix(623, labels[h])


@njit(cache=True, inline="always")
def feature_index(ctx_value: int, part: int, mask: int) -> int:
    return hmix(ctx_value, part) & mask


def sum_zero(weights: np.ndarray):
    """The zero a sum of ``weights``' entries starts from: an int64 for integer weights (the
    decoder's int16 copy), whose sums are exact and convert nothing per term; a float64 for
    float weights (not 0.0: without the JIT, 0.0 + float32 would sum in float32). The same
    scores either way (sums of integers below 2**53 are exact in float64 too); 28 terms a
    rule summed in float64 wait on each conversion and addition in turn (50 against 28 ns a
    rule in a loop alone), which the decoder's other work mostly hides: its pruned speed
    1.02x for the bundled PTB model, 1.05x for its fast twin (docs/EXPERIMENTS.md)."""
    return np.int64(0) if weights.dtype.kind in "iu" else np.float64(0.0)


@overload(sum_zero, jit_options={"cache": True})
def _sum_zero(weights):
    if isinstance(weights.dtype, types.Integer):
        return lambda weights: np.int64(0)
    return lambda weights: np.float64(0.0)


@njit(cache=True, inline="always")
def _sum(ctx, lo, hi, part, weights, mask):
    s = sum_zero(weights)
    for t in range(lo, hi):
        s += weights[feature_index(ctx[t], part, mask)]
    return s


@njit(cache=True)
def score_cache(nsym: int, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Work arrays of :func:`binary_score`: one slot per parent symbol (of the type a sum of
    ``weights`` is kept in, :func:`sum_zero`), stamped with the transition it is valid for."""
    return np.full(nsym, sum_zero(weights)), np.full(nsym, -1, np.int64)


@leaf(cache=True)
def binary_score(ctx, A, rule, head_pair, mod_pair, parent_key, weights, scale, mask, cache,
                 stamp, tid):
    """Score of a binary rule with parent A (its parts: :func:`binary_rule_keys`) in the
    transition whose context is ``ctx``: the sum of its weights times ``scale`` (the unit of
    quantized weights, :meth:`~pad_engine.decoding.model.Model.decoding_weights`; 1.0 for
    float weights). The parent's templates (10, and its label template) are shared by every
    rule with parent A in the transition, so they are read once per transition ``tid`` (a
    number no other transition uses)."""
    labeled, spanned = ctx.shape[0] > N_BINARY, ctx.shape[0] > MAX_BINARY
    s = _sum(ctx, 0, RULE_END, rule, weights, mask)
    if stamp[A] != tid:
        stamp[A] = tid
        parent = parent_key[A]
        cache[A] = _sum(ctx, RULE_END, PARENT_END, parent, weights, mask)
        if labeled:
            cache[A] += weights[feature_index(ctx[LABEL_PARENT], parent, mask)]
        if spanned:
            cache[A] += weights[feature_index(ctx[SPAN_PARENT], parent, mask)]
    s += cache[A]
    s += _sum(ctx, PARENT_END, HEAD_END, head_pair, weights, mask)
    s += _sum(ctx, HEAD_END, N_BINARY, mod_pair, weights, mask)
    if labeled:
        s += weights[feature_index(ctx[LABEL_RULE], rule, mask)]
        s += weights[feature_index(ctx[LABEL_HEAD], head_pair, mask)]
        s += weights[feature_index(ctx[LABEL_MOD], mod_pair, mask)]
    if spanned:
        s += _sum(ctx, SPAN_RULE, SPAN_PARENT, rule, weights, mask)
    return s * scale


@njit(cache=True, inline="always")
def _indices(ctx, lo, hi, part, mask, out, start):
    for t in range(lo, hi):
        out[start + t] = feature_index(ctx[t], part, mask)


@leaf(cache=True)
def binary_indices(ctx, rule, parent, parent_head, parent_mod, mask, out, start):
    """The weight indices :func:`binary_score` reads, written to ``out`` from ``start``."""
    _indices(ctx, 0, RULE_END, rule, mask, out, start)
    _indices(ctx, RULE_END, PARENT_END, parent, mask, out, start)
    _indices(ctx, PARENT_END, HEAD_END, parent_head, mask, out, start)
    _indices(ctx, HEAD_END, N_BINARY, parent_mod, mask, out, start)
    if ctx.shape[0] > N_BINARY:
        out[start + LABEL_RULE] = feature_index(ctx[LABEL_RULE], rule, mask)
        out[start + LABEL_PARENT] = feature_index(ctx[LABEL_PARENT], parent, mask)
        out[start + LABEL_HEAD] = feature_index(ctx[LABEL_HEAD], parent_head, mask)
        out[start + LABEL_MOD] = feature_index(ctx[LABEL_MOD], parent_mod, mask)
    if ctx.shape[0] > MAX_BINARY:
        _indices(ctx, SPAN_RULE, SPAN_PARENT, rule, mask, out, start)
        out[start + SPAN_PARENT] = feature_index(ctx[SPAN_PARENT], parent, mask)
    return start + ctx.shape[0]


@leaf(cache=True)
def unary_context(i, j, h, words, tags, labels, spans, ctx):
    """Rule-independent half of the unary templates over span i..j headed by h; with room
    in ``ctx`` (a model that reads the projection), the head word's label in the projection
    and the projection's labels over the span."""
    th, xh = tags[h + 1], words[h + 1]
    ctx[0] = hmix(500, 0)
    ctx[1] = hmix(501, th)
    ctx[2] = hmix(502, xh)
    ctx[3] = hmix(503, words[i + 1])
    ctx[4] = hmix(504, words[j + 1])
    ctx[5] = hmix(505, words[i])
    ctx[6] = hmix(506, words[j + 2])
    ctx[7] = hmix(507, length_bin(j - i + 1))
    ctx[8] = hmix(508, tags[i])
    ctx[9] = hmix(509, tags[j + 2])
    ctx[10] = hmix(hmix(510, tags[i]), tags[j + 2])
    if ctx.shape[0] > N_UNARY:
        ctx[N_UNARY] = hmix(511, labels[h])
        ctx[N_UNARY + 1] = hmix(512, span_label(spans, i, j, labels.shape[0]))


@leaf(cache=True)
def unary_score(ctx, rule, weights, scale, mask):
    """Score of a unary rule in the context ``ctx``, in the units of :func:`binary_score`."""
    s = sum_zero(weights)
    for t in range(ctx.shape[0]):
        s += weights[feature_index(ctx[t], rule, mask)]
    return s * scale


@leaf(cache=True)
def unary_indices(ctx, rule, mask, out, start):
    for t in range(ctx.shape[0]):
        out[start + t] = feature_index(ctx[t], rule, mask)
    return start + ctx.shape[0]


@njit(cache=True)
def binary_context_array(labels: np.ndarray, spans: np.ndarray) -> np.ndarray:
    """The context array for a sentence: with label templates when it has labels, and
    the projection's when it has its spans."""
    if spans.shape[1] > 0:
        return np.zeros(MAX_CONTEXT, np.int64)
    return np.zeros(MAX_BINARY if labels.shape[0] > 0 else N_BINARY, np.int64)


@njit(cache=True)
def unary_context_array(spans: np.ndarray) -> np.ndarray:
    """The unary context array for a sentence: with the projection's templates when it has
    the projection's spans."""
    return np.zeros(N_UNARY + N_UNARY_SPAN if spans.shape[1] > 0 else N_UNARY, np.int64)


def stable_key(text: str) -> int:
    """A 32-bit hash of a string that is the same in every process and on every machine."""
    return zlib.crc32(text.encode("utf-8", "surrogatepass"))


def symbol_keys(symbols: list[str]) -> np.ndarray:
    """The key of every grammar symbol, from its name alone."""
    return np.fromiter((stable_key(s) for s in symbols), dtype=np.int64, count=len(symbols))


@njit(cache=True, inline="always")
def binary_rule_keys(sym_key, a, h, m, direction):
    """The rule parts of binary rule A -> H M (symbol ids; ``direction`` 0: head left): the
    rule, parent+head child and parent+modifier child, from the symbols' keys alone, so a
    glue rule the decoder makes up on the spot is scored like a stored one."""
    ka, kh, km = sym_key[a], sym_key[h], sym_key[m]
    pair = hmix(PAIR_SEED, ka)
    return hmix(hmix(hmix(hmix(RULE_SEED, ka), kh), km), direction), hmix(pair, kh), hmix(
        pair, km)


@njit(cache=True, inline="always")
def unary_rule_key(sym_key, a, b):
    """The rule part of unary rule A -> B."""
    return hmix(hmix(UNARY_SEED, sym_key[a]), sym_key[b])


@njit(cache=True)
def rule_keys(binary, unary, sym_key):
    """Rule parts of the templates, from the keys of the rules' symbols: per binary rule
    (A, H, M, direction) the rule, parent+head child and parent+modifier child; per unary
    rule A -> B the rule; per symbol the parent part."""
    bkey = np.empty((binary.shape[0], 3), np.int64)
    for r in range(binary.shape[0]):
        bkey[r, 0], bkey[r, 1], bkey[r, 2] = binary_rule_keys(
            sym_key, binary[r, 0], binary[r, 1], binary[r, 2], binary[r, 3])
    ukey = np.empty(unary.shape[0], np.int64)
    for u in range(unary.shape[0]):
        ukey[u] = unary_rule_key(sym_key, unary[u, 0], unary[u, 1])
    pkey = np.empty(sym_key.shape[0], np.int64)
    for s in range(sym_key.shape[0]):
        pkey[s] = hmix(PARENT_SEED, sym_key[s])
    return bkey, ukey, pkey


def _padded(values: list[str], bos: int, eos: int, key) -> np.ndarray:
    """``key`` of each value, between the sentence-boundary values (index p + 1: value p)."""
    out = np.empty(len(values) + 2, dtype=np.int64)
    out[0] = bos
    out[-1] = eos
    for p, value in enumerate(values, 1):
        out[p] = key(value)
    return out


def word_ids(forms: list[str]) -> np.ndarray:
    """Padded stable hashes of the word forms (crc32: the same in every process)."""
    return _padded(forms, BOS_WORD, EOS_WORD, stable_key)


def tag_ids(tags: list[str]) -> np.ndarray:
    """Padded stable hashes of the tags. Keyed by the tag's name, not its row in a grammar:
    a tag that retraining adds (and the rows it shifts) changes no other feature."""
    return _padded(tags, BOS_TAG, EOS_TAG, _tag_key)


@functools.lru_cache(maxsize=4096)
def _tag_key(tag: str) -> int:
    return stable_key(tag)


def label_ids(rels: list[str]) -> np.ndarray:
    """Stable hashes of dependency labels, one per word (a missing label is "_")."""
    return np.fromiter((stable_key(r or "_") for r in rels), dtype=np.int64, count=len(rels))
