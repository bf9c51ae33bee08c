"""Whether a new model's gain on held-out trees is more than their noise: a paired bootstrap
over the held-out sentences (Koehn 2004; Berg-Kirkpatrick, Burkett & Klein 2012).

A new version goes into use by itself only when its cross-validated score is above the
version in use's in at least :data:`CONFIDENCE` of the resamplings of the held-out sentences:
for the trees (``retrain.Comparison``, ``adaptation.guard``: EVALB F1) and the arcs
(``parsing.adapt.compare``: UAS) alike.

On a few corrected trees the folds hold a few sentences each, and a gain of two sentences
changed for the better, none for the worse, is what chance gives a model that is worse on
the rest of the file: GUM news, 10 corrected trees, the UD base adapted, +1.28 F1 on the
folds (resampled: above in 89%) and -0.34 on the file's other half. With 90%, what goes
into use scores no more than 0.1 below the model alone, pooled over the genres of each
setting of docs/ADAPTATION.md ("Eighteenth round"), at every size; a single genre's folds
can still mislead (GENTLE syllabus, 10 trees: 99%, and -1.08 on its other half).
"""

from __future__ import annotations

import numpy as np

CONFIDENCE = 0.9
RESAMPLES = 10_000
SEED = 0  # resamplings are drawn the same way each time: a verdict does not flicker
DRAWN = 1 << 19  # sentence counts drawn at once (4 MB)


def gain_confidence(new: np.ndarray, old: np.ndarray, resamples: int = RESAMPLES,
                    seed: int = SEED) -> float:
    """The share of resamplings (with replacement) of the sentences in which the new trees'
    ratio of summed counts is above the old ones'. ``new`` and ``old`` hold one row per
    sentence, the same sentences in the same order: (numerator, denominator), as
    ``evalb.bracket_counts`` gives them. 0.0 without sentences. Drawn a block of
    resamplings at a time, so a project of thousands of corrected trees holds a few MB."""
    n = new.shape[0]
    if n == 0 or new.shape != old.shape:
        return 0.0
    rng = np.random.default_rng(seed)
    block = max(1, DRAWN // n)
    above = 0
    for start in range(0, resamples, block):
        draws = rng.multinomial(n, np.full(n, 1.0 / n), size=min(block, resamples - start))
        a, b = draws @ new, draws @ old
        with np.errstate(divide="ignore", invalid="ignore"):
            ra = np.where(a[:, 1] > 0, a[:, 0] / a[:, 1], 0.0)
            rb = np.where(b[:, 1] > 0, b[:, 0] / b[:, 1], 0.0)
        above += int(np.count_nonzero(ra > rb))
    return above / resamples


def surely_better(f1_new: float, f1_old: float, confidence: float) -> bool:
    """The verdict: above, and above in at least :data:`CONFIDENCE` of the resamplings."""
    return f1_new > f1_old and confidence >= CONFIDENCE
