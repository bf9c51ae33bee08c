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
