"""The grammar a model's decoder reads (``parser.decoder_grammar``, issue 37): a model reading
the original PAD's phrase labels (``parser.reads_phrase_labels``) decodes pruned with the beam
alone, since the tag-keyed pruning tables (pruning 1 and 2) cut trees such a model follows its
labels into; a model on content heads (UD) shares the rules of many tag families in every tag
row, and so does a model reading the projection with the back-off grammar, for the binary
rules seen with any family (the figures: tests/test_pruning_loss.py, docs/EXPERIMENTS.md)."""

from __future__ import annotations

import copy
import dataclasses
import random

import numpy as np
from toy import random_projective

from pad_engine.decoding import decoder, parser
from pad_engine.decoding.parser import decoder_grammar, encode, run_decoder
from pad_engine.trees.lextree import induced_heads


def _scores(model, sentences, mode):
    return [run_decoder(model, encode(model, forms, tags, heads, rels), mode,
                        escalate=True).score for forms, tags, heads, rels in sentences]


def _models(model):
    """The model reading d-parse labels as UD relations and as phrase labels, with pruning 2
    told that every head attaches its next left dependent first."""
    g = copy.deepcopy(model.grammar)
    rows = range(len(g.tags))
    g.side_counts = {(h, left, right): [100, 0] for h in rows for left in rows for right in rows}
    deprel = dataclasses.replace(model, grammar=g, dep_labels="deprel", _packed=None)
    return deprel, dataclasses.replace(deprel, dep_labels="phrase", _packed=None)


def _sentences(count: int, tags: list[str], seed: int = 3):
    rng = random.Random(seed)
    out = []
    for s in range(count):
        n = rng.randint(2, 8)
        out.append(([f"w{s}_{i}" for i in range(n)], [rng.choice(tags) for _ in range(n)],
                    random_projective(n, rng), ["S+NP"] * n))
    return out


def test_without_its_beam_the_pruned_search_of_a_phrase_labeled_model_is_exact(
        random_backoff_model, monkeypatch):
    """With no beam, pruned decoding searches what exact decoding does for a phrase-labeled
    model, while the tables make it lose some of these sentences' best trees otherwise."""
    deprel, phrase = _models(random_backoff_model)
    monkeypatch.setattr(parser, "BEAM", np.inf)
    sentences = _sentences(300, deprel.grammar.tags)
    exact = _scores(phrase, sentences, decoder.EXACT)
    assert _scores(phrase, sentences, decoder.PRUNED) == exact
    assert _scores(deprel, sentences, decoder.EXACT) == exact
    assert any(p < e for p, e in zip(_scores(deprel, sentences, decoder.PRUNED), exact))


def test_only_a_phrase_labeled_model_gets_the_grammar_without_tables(random_backoff_model):
    deprel, phrase = _models(random_backoff_model)
    g, free = phrase.packed(), decoder_grammar(phrase)
    assert decoder_grammar(phrase) is free  # made once per packed grammar
    assert free.side_keys.shape == (0,)
    assert g.side_keys.shape[0] > 0
    width = 3 * g.nsym
    every = g.ids[g.ptr[(g.nrows - 1) * width]:]
    for row in range(g.nrows):
        start = row * width
        assert np.array_equal(np.diff(free.ptr[start:start + width + 1]),
                              np.diff(g.ptr[(g.nrows - 1) * width:]))
        assert np.array_equal(free.ids[free.ptr[start]:free.ptr[start + width]], every)
    assert decoder_grammar(deprel) is deprel.packed()


def test_phrase_labels_from_a_conll_column_count_as_phrase_labels(random_backoff_model):
    deprel, _ = _models(random_backoff_model)
    conll = dataclasses.replace(deprel, label_set=["NP+*", "ROOT", "S+NP"], _packed=None)
    ud = dataclasses.replace(deprel, label_set=["det", "nsubj", "root"], _packed=None)
    assert decoder_grammar(conll).side_keys.shape == (0,)
    assert decoder_grammar(ud) is ud.packed()


def _rows(g, row: int) -> set[int]:
    width = 3 * g.nsym
    return set(g.ids[g.ptr[row * width]:g.ptr[(row + 1) * width]].tolist())


def test_content_head_models_share_the_rules_of_many_tag_families(random_backoff_model):
    """A model on content heads (UD) prunes with tag rows that also allow every rule seen
    with at least ``SHARED_FAMILIES`` tag families; other head rules keep their rows."""
    model = dataclasses.replace(random_backoff_model, headrules="content", _packed=None)
    g, shared = model.packed(), decoder_grammar(model)
    for families in (1, 2):
        wider = model.grammar.shared_rows(g, families)
        common = model.grammar._shared_rules(g.binary.shape[0], families)
        for row in range(g.nrows - 1):
            assert _rows(wider, row) == _rows(g, row) | set(np.flatnonzero(common).tolist())
    assert any(_rows(model.grammar.shared_rows(g, 1), row) != _rows(g, row)
               for row in range(g.nrows - 1))
    assert np.array_equal(shared.ids, model.grammar.shared_rows(g, parser.SHARED_FAMILIES).ids)
    assert decoder_grammar(random_backoff_model) is random_backoff_model.packed()


def test_a_row_allows_rules_seen_with_no_tag_only_over_its_own_tags(random_backoff_model):
    """Pruning 1 on a back-off grammar: a row allows a rule seen with no tag where the
    family headed its phrase and the rule is unary or attaches to a tag of the family,
    never one attaching to a phrase or chain whose head side the family never showed
    (those made a back-off model's pruned decoder 2.3x slower)."""
    gram = random_backoff_model.grammar
    g = random_backoff_model.packed()
    nb = g.binary.shape[0]
    seen = {rid for _, rid in gram.binary_tags}
    family = {row: k for k, group in enumerate(gram._tag_groups()) for row in group}
    side_seen = {(family[row], *g.binary[rid, [0, 1, 3]].tolist())
                 for row, rid in gram.binary_tags}
    tag_family = {gram.symbols.index(gram.tags[row]): family[row] for row in family}
    over_tags = over_phrases = 0
    for row in range(g.nrows - 1):
        allowed = _rows(g, row)
        for rid in range(nb):
            a, h, _, direction = g.binary[rid].tolist()
            if rid in seen or (family[row], a, h, direction) in side_seen:
                continue
            if tag_family.get(h) != family[row]:
                assert rid not in allowed
                over_phrases += 1
            elif rid in allowed:
                over_tags += 1
    assert over_tags
    assert over_phrases


def test_a_back_off_model_prunes_with_the_tighter_beam(random_model, random_backoff_model):
    """A model trained with the back-off grammar prunes with ``BACKOFF_BEAM``; one without
    it, or reading phrase labels (which prunes with the beam alone), with ``BEAM``."""
    _, phrase = _models(random_backoff_model)
    forms, tags, heads, rels = _sentences(1, random_model.grammar.tags)[0]
    assert parser.BACKOFF_BEAM < parser.BEAM
    for model, beam in ((random_backoff_model, parser.BACKOFF_BEAM), (random_model, parser.BEAM),
                        (phrase, parser.BEAM)):
        enc = encode(model, forms, tags, heads, rels)
        assert parser.chart_inputs(model, enc, decoder.PRUNED).beam == beam


def test_a_back_off_model_keeps_only_a_cells_best_items(random_model, random_backoff_model):
    """Pruned, a model with the back-off grammar keeps in a cell, beyond ``CAP_MARGIN`` below
    its best, only its items of the ``PARTIAL_CAP`` best scores (a head's complete cell:
    ``COMPLETE_CAP``); the others keep every item within their beam, and so does training's
    search (``capped=False``). The cap bounds what the cells hold, and the trees still keep
    their d-parses."""
    _, phrase = _models(random_backoff_model)
    capped = (parser.PARTIAL_CAP, parser.COMPLETE_CAP)
    uncapped = (decoder.NO_CAP, decoder.NO_CAP)
    sentences = _sentences(30, random_backoff_model.grammar.tags)
    for model, caps in ((random_backoff_model, capped), (random_model, uncapped),
                        (phrase, uncapped)):
        enc = encode(model, *sentences[0])
        inp = parser.chart_inputs(model, enc, decoder.PRUNED)
        assert (inp.partial_cap, inp.complete_cap) == caps
        bare = parser.chart_inputs(model, enc, decoder.PRUNED, capped=False)
        assert (bare.partial_cap, bare.complete_cap) == uncapped
    fewer = 0
    for forms, tags, heads, rels in sentences:
        enc = encode(random_backoff_model, forms, tags, heads, rels)
        wide = parser.chart_inputs(random_backoff_model, enc, decoder.PRUNED, capped=False)
        narrow = wide._replace(partial_cap=1, complete_cap=1, cap_margin=0.0)
        many = decoder._chart(wide, 1, decoder.KBEST_ENTRIES, False)
        one = decoder._chart(narrow, 1, decoder.KBEST_ENTRIES, False)
        if one.level == many.level == decoder.PRUNED:  # no head redone: every cell capped
            st = one.st
            root_cell = (st.cbase[st.root] + st.nl[st.root] * (st.nr[st.root] + 1)
                         + st.nr[st.root])
            assert all(one.fin[c, 1] <= 1 for c in range(len(one.fin)) if c != root_cell)
            fewer += int(one.fin[:, 1].sum() < many.fin[:, 1].sum())
        d = decoder.decode(narrow)
        if d.kinds.shape[0]:
            tree = parser.Parser(random_backoff_model).tree(d.kinds, d.syms, d.words, tags)
            assert induced_heads(tree, len(forms)) == heads
    assert fewer


def test_a_projection_model_without_back_off_prunes_with_a_wider_beam_alone(random_model,
                                                                           random_backoff_model):
    """Reading the projection without the back-off grammar (Retrain's adapted PTB model): the
    grammar without tables and PROJECTION_BEAM; with the back-off grammar, the tables and
    BACKOFF_BEAM (the strong recipe), its rows sharing the binary rules seen with any tag
    family."""
    plain = dataclasses.replace(random_model, dep_labels="projection", _packed=None,
                                training={**random_model.training, "backoff": False})
    strong = dataclasses.replace(random_backoff_model, dep_labels="projection", _packed=None,
                                 training={**random_backoff_model.training, "backoff": True})
    assert parser.PROJECTION_BEAM > parser.BEAM
    free = decoder_grammar(plain)
    assert free is not plain.packed()
    assert free.side_keys.shape == (0,)
    assert parser.search_beam(plain) == parser.PROJECTION_BEAM
    shared, g = decoder_grammar(strong), strong.packed()
    assert decoder_grammar(strong) is shared  # made once per packed grammar
    wider = strong.grammar.shared_rows(g, parser.BACKOFF_SHARED_FAMILIES, unary=False)
    assert np.array_equal(shared.ids, wider.ids)
    nb = g.binary.shape[0]
    for row in range(g.nrows - 1):
        added = _rows(shared, row) - _rows(g, row)
        assert all(rid < nb for rid in added)  # binary rules only
        assert _rows(g, row) <= _rows(shared, row)
    assert any(_rows(shared, row) > _rows(g, row) for row in range(g.nrows - 1))
    assert np.array_equal(shared.side_keys, g.side_keys)  # pruning 2 kept
    assert parser.search_beam(strong) == parser.BACKOFF_BEAM
    assert decoder_grammar(random_model) is random_model.packed()


def test_the_grammar_follows_the_training_notes_written_after_it_was_packed(
        random_backoff_model):
    """``train`` writes a model's notes (back-off or not) once its decodes have packed the
    grammar: a model reading the projection, fresh from training with back-off, must decode
    with the back-off rows, not with the grammar its notes-less decodes got (without tables,
    as a projection model without back-off: a fifth of the speed, ``pad bench``'s model)."""
    model = dataclasses.replace(random_backoff_model, dep_labels="projection", training={},
                                _packed=None)
    g = model.packed()
    assert decoder_grammar(model).side_keys.shape == (0,)  # no back-off noted: the beam alone
    model.training["backoff"] = True
    rows = decoder_grammar(model)
    assert model.packed() is g
    assert np.array_equal(rows.side_keys, g.side_keys)
    assert np.array_equal(
        rows.ids, model.grammar.shared_rows(g, parser.BACKOFF_SHARED_FAMILIES, unary=False).ids)
