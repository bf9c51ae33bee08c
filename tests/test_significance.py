"""A new model goes into use only when its gain on the held-out trees is beyond their noise:
two sentences better and none worse is what chance gives, a dozen are not."""

import numpy as np

from pad_engine.learning.evalb import bracket_counts, f1_gain_confidence, score
from pad_engine.learning.retrain import Comparison, CrossValidation
from pad_engine.significance import CONFIDENCE, gain_confidence, surely_better


def _confidence(gold: list[str], new: list[str], old: list[str]) -> float:
    return f1_gain_confidence(score(gold, new), score(gold, old))


GOLD = "(TOP (S (NP (DT the) (NN dog)) (VP (VBD saw) (NP (DT a) (NN cat)))))"
FLAT = "(TOP (S (NP (DT the) (NN dog)) (VP (VBD saw) (DT a) (NN cat))))"


def _trees(n: int, better: int, worse: int) -> tuple[list[str], list[str], list[str]]:
    """n held-out sentences: the new trees right where the old are flat in ``better`` of
    them, flat where the old are right in ``worse``, the same elsewhere."""
    new = [GOLD] * better + [FLAT] * worse + [GOLD] * (n - better - worse)
    old = [FLAT] * better + [GOLD] * worse + [GOLD] * (n - better - worse)
    return [GOLD] * n, new, old


def test_bracket_counts_add_up_to_evalb_f1():
    counts = bracket_counts(score([GOLD, GOLD], [GOLD, FLAT]))
    assert counts.tolist() == [[8.0, 8.0], [6.0, 7.0]]
    assert 100 * counts[:, 0].sum() / counts[:, 1].sum() == 200 * 7 / 15


def test_two_sentences_better_of_twenty_are_not_enough():
    gold, new, old = _trees(20, 2, 0)
    confidence = _confidence(gold, new, old)
    assert 0.5 < confidence < CONFIDENCE
    assert not surely_better(99.0, 98.0, confidence)


def test_many_sentences_better_are():
    gold, new, old = _trees(40, 12, 2)
    confidence = _confidence(gold, new, old)
    assert confidence >= 0.99
    assert surely_better(99.0, 98.0, confidence)


def test_a_loss_is_never_sure_and_nothing_changed_is_no_gain():
    gold, new, old = _trees(40, 2, 12)
    assert _confidence(gold, new, old) < 0.01
    gold, new, old = _trees(40, 0, 0)
    assert _confidence(gold, new, old) == 0.0
    assert gain_confidence(np.zeros((0, 2)), np.zeros((0, 2))) == 0.0


def test_the_verdict_is_the_same_every_time():
    gold, new, old = _trees(12, 3, 1)
    assert len({_confidence(gold, new, old) for _ in range(3)}) == 1


def test_a_comparison_is_better_only_when_sure():
    def cv(f1: float) -> CrossValidation:
        return CrossValidation(f1, [f1], 10, 0.0)

    assert not Comparison(cv(91.0), cv(90.0), 0.89).better
    assert Comparison(cv(91.0), cv(90.0), 0.9).better
    assert not Comparison(cv(90.0), cv(90.0), 1.0).better


def test_resamplings_drawn_a_block_at_a_time_give_the_same_verdict(monkeypatch):
    """A project of thousands of corrected trees draws its resamplings in blocks of a few
    MB; the blocks continue one stream, so the verdict is the one of a single draw."""
    import pad_engine.significance as significance

    gold, new, old = _trees(40, 6, 3)
    whole = _confidence(gold, new, old)
    monkeypatch.setattr(significance, "DRAWN", 40 * 7)  # blocks of 7 resamplings
    assert _confidence(gold, new, old) == whole
