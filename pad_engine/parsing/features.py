"""Token atoms and feature hashing shared by the tagger, the arc scorer and the labeler.

Strings are hashed once per token in Python (CRC-32: stable across processes, unlike
``hash``) into a row of integer *atoms* (the lower-cased word, its affixes, its shape...);
the Numba kernels then combine atoms into feature keys with :func:`mix`. A key picks a
slot of a hashed weight table; for a classifier (tagger, labeler) the ``K`` class weights of
a key are the ``K`` consecutive slots from there, so scoring one feature reads one cache line
instead of ``K`` scattered ones.
"""

from __future__ import annotations

import zlib

import numpy as np

from pad_engine.jit import njit

# Columns of a token's atom row
WORD, SUF1, SUF2, SUF3, SUF4, PRE1, PRE2, PRE3, SHAPE, FLAGS, PRE5 = range(11)
N_ATOMS = 11
# Flag bits
CAPITAL, ALL_CAPS, DIGIT, HYPHEN, FIRST = 1, 2, 4, 8, 16
# Atoms of the padding positions (outside the sentence) and of the root
BOS, EOS, ROOT = 1, 2, 3
_CACHE_LIMIT = 500_000
_cache: dict[str, tuple[int, ...]] = {}


def _crc(text: str, salt: int) -> int:
    return zlib.crc32(text.encode("utf-8", "surrogatepass"), salt) + 16


def _shape(word: str) -> str:
    """Xxxx -> Xx, 1,234.5 -> d,d.d: character classes with runs collapsed."""
    out = []
    for ch in word[:12]:
        c = "X" if ch.isupper() else "x" if ch.isalpha() else "d" if ch.isdigit() else ch
        if not out or out[-1] != c:
            out.append(c)
    return "".join(out)


def _atoms(word: str) -> tuple[int, ...]:
    row = _cache.get(word)
    if row is None:
        low = word.lower()
        flags = ((CAPITAL if word[:1].isupper() else 0)
                 | (ALL_CAPS if word.isupper() and len(word) > 1 else 0)
                 | (DIGIT if any(c.isdigit() for c in word) else 0)
                 | (HYPHEN if "-" in word[1:] else 0))
        row = (_crc(low, 1), _crc(low[-1:], 2), _crc(low[-2:], 3), _crc(low[-3:], 4),
               _crc(low[-4:], 5), _crc(low[:1], 6), _crc(low[:2], 7), _crc(low[:3], 8),
               _crc(_shape(word), 9), flags, _crc(low[:5], 10))
        if len(_cache) > _CACHE_LIMIT:
            _cache.clear()
        _cache[word] = row
    return row


def token_atoms(forms: list[str]) -> np.ndarray:
    """The (n, N_ATOMS) int64 atom rows of a sentence's words."""
    rows = np.array([_atoms(w) for w in forms], dtype=np.int64).reshape(len(forms), N_ATOMS)
    if len(forms):
        rows[0, FLAGS] |= FIRST
    return rows


@njit(cache=True, inline="always")
def mix(h: int, x: int) -> int:
    """Fold ``x`` into the running key ``h`` (a 64-bit multiply-xorshift, wrapping)."""
    h = (h ^ x) * 0x100000001B3
    return h ^ (h >> 29)


@njit(cache=True, inline="always")
def slot(key: int, mask: int) -> int:
    """The table slot of a feature key: a non-negative index below ``mask + 1``."""
    return (key ^ (key >> 31)) & mask


@njit(cache=True, nogil=True)
def best_class(feats, k, weights, mask, scores):
    """The class (0..len(scores)-1) whose weights, summed over the first ``k`` feature keys,
    score highest; ``scores`` is scratch space and ends holding every class's score."""
    scores[:] = 0.0
    for j in range(k):
        q = slot(feats[j], mask)
        for c in range(scores.shape[0]):
            scores[c] += weights[q + c]
    best = 0
    for c in range(1, scores.shape[0]):
        if scores[c] > scores[best]:
            best = c
    return best


@njit(cache=True, nogil=True)
def move_classes(feats, k, weights, total, mask, gold, wrong, step, amount=1.0):
    """An update by ``amount`` (a perceptron's 1) toward class ``gold`` and away from
    ``wrong`` on the first ``k`` feature keys; ``total`` gathers step-weighted updates for
    averaging."""
    for j in range(k):
        q = slot(feats[j], mask)
        weights[q + gold] += amount
        total[q + gold] += amount * step
        weights[q + wrong] -= amount
        total[q + wrong] -= amount * step


HALF_MAX = 6e4  # below float16's largest finite value


def fits_half(weights: np.ndarray) -> bool:
    """Whether a table can be stored as float16 (no weight too large for it)."""
    return not weights.size or float(np.abs(weights).max()) < HALF_MAX


def half_precision(weights: np.ndarray) -> np.ndarray:
    """Weights at the precision a model file keeps them (float16, unless a weight is too
    large for it), as float32: a model scores the same before it is saved as after."""
    if not fits_half(weights):
        return weights.astype(np.float32)
    return weights.astype(np.float16).astype(np.float32)
