"""The projection's caches keep a sentence only once it is asked for again: a conversion,
which asks for each sentence once, keeps none of them; retraining, which asks again and
again, computes each at most twice."""

from __future__ import annotations

import gc
import weakref

from pad_engine.decoding.reuse_cache import remembered_on_reuse


class Result:
    """A result a weak reference can follow."""


def counting(maxsize: int):
    calls: list[int] = []

    @remembered_on_reuse(maxsize)
    def f(x: int) -> Result:
        calls.append(x)
        return Result()

    return f, calls


def test_a_result_is_kept_from_its_second_request_on():
    f, calls = counting(8)
    first, second, third = f(1), f(1), f(1)
    assert calls == [1, 1]
    assert third is second
    assert first is not second


def test_a_stream_of_arguments_each_asked_once_keeps_no_result():
    f, calls = counting(100)
    refs = [weakref.ref(f(x)) for x in range(1000)]
    gc.collect()
    assert calls == list(range(1000))
    assert not any(ref() is not None for ref in refs)


def test_the_least_recently_used_result_goes_first():
    f, calls = counting(2)
    for x in (1, 2):
        f(x), f(x)
    kept_1 = f(1)  # 1 used last: 2 goes when 3 comes in
    f(3), f(3)
    calls.clear()
    assert f(1) is kept_1
    assert calls == []
    f(2)
    assert calls == [2]


def test_the_projection_of_a_sentence_asked_for_again_is_shared():
    from pad_engine.decoding.rulebased import projected_tree, projection_features

    forms, tags, heads = ["Prices", "rose", "sharply", "."], ["NNS", "VBD", "RB", "."], \
        [2, 0, 2, 2]
    labels = [projection_features(forms, tags, heads)[0] for _ in range(3)]
    assert labels[0] == labels[1] == labels[2]
    assert labels[2] is labels[1]
    trees = [projected_tree(forms, tags, heads) for _ in range(3)]
    assert trees[2] is trees[1]
