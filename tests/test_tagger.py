"""The POS tagger: it learns its training sentences, tags unseen words by their affixes and
context, and is deterministic."""

from __future__ import annotations

import pytest

from pad_engine.parsing.tagger import train_tagger

SENTENCES = [
    ("the dog runs quickly".split(), "DT NN VBZ RB".split()),
    ("a cat sleeps quietly".split(), "DT NN VBZ RB".split()),
    ("the bird sings loudly".split(), "DT NN VBZ RB".split()),
    ("a horse walks slowly".split(), "DT NN VBZ RB".split()),
    ("the men walked home".split(), "DT NNS VBD NN".split()),
    ("the cats jumped high".split(), "DT NNS VBD RB".split()),
    ("dogs barked".split(), "NNS VBD".split()),
] * 3


@pytest.fixture(scope="module")
def tagger():
    return train_tagger(SENTENCES, epochs=10, bits=14, folds=2)


def test_it_tags_its_training_sentences(tagger):
    for forms, tags in SENTENCES:
        assert tagger.tag(forms) == tags


def test_unseen_words_get_tags_from_affixes_and_context(tagger):
    assert tagger.tag("the fox eats happily".split()) == "DT NN VBZ RB".split()
    assert tagger.tag("the foxes hopped".split())[2] == "VBD"


def test_training_is_deterministic(tagger):
    again = train_tagger(SENTENCES, epochs=10, bits=14, folds=2)
    assert (again.weights == tagger.weights).all()
    assert (again.weights2 == tagger.weights2).all()


def test_an_empty_sentence_has_no_tags(tagger):
    assert tagger.tag([]) == []


def test_held_out_tags_come_from_taggers_that_did_not_see_the_sentence():
    """The tags the parser trains on beside the gold ones: a word seen in one sentence only
    gets its tag from the final tagger, but not from the fold tagger that never saw it."""
    from pad_engine.parsing.tagger import train_tagger_heldout

    rare = (["zorp"], ["FW"])
    data = [*SENTENCES, rare]
    tagger, held = train_tagger_heldout(data, epochs=10, bits=14, folds=2)
    assert [len(t) for t in held] == [len(f) for f, _ in data]
    assert tagger.tag(["zorp"]) == ["FW"]
    assert held[-1] != ["FW"]
    assert sum(h == t for (_, t), h in zip(SENTENCES, held)) > len(SENTENCES) // 2


def test_perceptron_and_passive_aggressive_steps_both_learn(tagger):
    plain = train_tagger(SENTENCES, epochs=10, bits=14, folds=2, clip=0.0)
    assert not (plain.weights == tagger.weights).all()
    for forms, tags in SENTENCES:
        assert plain.tag(forms) == tags
