"""Training a text model on dependency treebanks: taggers for the tag columns, the arc model
(non-projective trees are lifted to projective ones first, since Eisner's decoder yields only
projective trees) and, when the treebank has them, the label model."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from pad_engine.decoding.choice import dependency_style
from pad_engine.io.conll import read_conll
from pad_engine.parsing.arcs import FILTER_BITS, learn_filter, sentence_arrays
from pad_engine.parsing.features import half_precision
from pad_engine.parsing.labels import label_epoch
from pad_engine.parsing.model import TextModel
from pad_engine.parsing.perceptron import train_epoch
from pad_engine.parsing.tagger import DEFAULT_TAGGER_BITS, jackknife_tags, train_tagger_heldout
from pad_engine.trees.deptree import DepSentence
from pad_engine.trees.projectivize import projectivize

DEFAULT_ARC_BITS = 24  # 2**23: UAS -0.2 on UD English EWT dev and test (predicted tags)
LABEL_BITS = 18
MAX_LABELS = 200  # more distinct DEPRELs than this are not a label set worth learning
COST = 1.0  # added to every wrong arc's score in training decodes (a margin)
# Largest passive-aggressive step of the arc model: on UD English EWT dev (predicted tags,
# 8 epochs) UAS 84.41 against 83.71 for the perceptron; 84.32 at 0.03, 84.19 at 0.003
CLIP = 0.01
# The parser trains on each sentence with gold tags and with the tags of first-pass taggers
# jackknifed over each of these numbers of folds (the first is the taggers' own, for their
# second pass): tags as wrong as unseen text makes them, in more than one way. On UD English
# EWT dev (predicted tags, bundled settings) UAS 85.18 with 4 folds, 85.34 with 4 and 2,
# 85.53 with 4, 3 and 2 (EWT test 85.73, 85.85, 85.89).
NOISY_FOLDS = (4, 3, 2)


@dataclass
class Treebank:
    """Training sentences with both tag columns (``upos`` equals ``xpos`` where the file
    has only one)."""

    sentences: list[DepSentence]  # tags are XPOS (UPOS where XPOS is "_")
    upos: list[list[str]]
    skipped: list[str]


def read_treebank(paths: Sequence[str]) -> Treebank:
    """Read CoNLL-X/CoNLL-U training files, skipping (and listing) malformed sentences."""
    sentences, upos, skipped = [], [], []
    for path in paths:
        fine = read_conll(path, pos="auto", on_error="skip")
        coarse = read_conll(path, pos="upos", on_error="skip")
        sentences += fine.sentences
        upos += [s.tags for s in coarse.sentences]
        skipped += [str(e) for e in fine.skipped]
    return Treebank(sentences, upos, skipped)


def train_text_model(bank: Treebank, *, epochs: int = 6, tagger_epochs: int = 15,
                     arc_bits: int = DEFAULT_ARC_BITS, tagger_bits: int = DEFAULT_TAGGER_BITS,
                     labels: bool = True, seed: int = 0,
                     progress: Callable[[str], None] | None = None) -> TextModel:
    """Taggers, arc model and (with ``labels``, where the treebank has a usable DEPREL
    column) label model, each an averaged online linear model (passive-aggressive steps for
    the taggers and arcs, perceptron steps for the labels); deterministic given ``seed``."""
    say = progress or (lambda _msg: None)
    start = time.perf_counter()
    pairs = [(s, u) for s, u in zip(bank.sentences, bank.upos) if s.forms]
    if not pairs:
        raise ValueError("no training sentences")
    sents = [s for s, _ in pairs]
    forms = [s.forms for s in sents]
    columns = {"xpos": [s.tags for s in sents]}  # XPOS where the file has it, else UPOS
    if any(u != s.tags for s, u in pairs):
        columns["upos"] = [u for _, u in pairs]
    # Each sentence with its gold tags and with the tags of taggers that did not see it,
    # jackknifed over each of NOISY_FOLDS (the first also trains the taggers' second pass)
    taggers, versions = {}, {}
    for col, gold_tags in columns.items():
        data = list(zip(forms, gold_tags))
        taggers[col], held = train_tagger_heldout(data, epochs=tagger_epochs, bits=tagger_bits,
                                                  seed=seed, folds=NOISY_FOLDS[0],
                                                  progress=say)
        versions[col] = [gold_tags, held] + [
            jackknife_tags(data, folds, epochs=tagger_epochs, bits=tagger_bits, seed=seed)
            for folds in NOISY_FOLDS[1:]]
        say(f"{col} tags of taggers jackknifed over {', '.join(map(str, NOISY_FOLDS))} folds "
            "for the parser")
    arc_column = "upos" if "upos" in columns else "xpos"  # see TextModel.arc_column
    second = next((c for c in columns if c != arc_column), None)
    copies = len(versions[arc_column])
    arrs = [sentence_arrays(forms[i], versions[arc_column][k][i],
                            versions[second][k][i] if second else None)
            for k in range(copies) for i in range(len(sents))]
    arrays = np.concatenate(arrs, axis=1)
    starts = np.cumsum([0] + [a.shape[1] for a in arrs]).astype(np.int64)
    projective = [projectivize(s.heads) for s in sents]
    lifted = sum(bool(lifts) for _, lifts in projective)
    words = sum(len(h) for h, _ in projective)
    heads = np.array([h for hs, _ in projective * copies for h in hs], np.int64)
    table = np.zeros(1 << FILTER_BITS, np.int64)
    learn_filter(arrays, starts, heads, table)
    size = 1 << arc_bits
    weights, total = np.zeros(size), np.zeros(size)
    rng = np.random.default_rng(seed)
    step = 1.0
    for epoch in range(1, epochs + 1):
        wrong, step = train_epoch(arrays, starts, heads, rng.permutation(len(arrs)), weights,
                                  total, size - 1, step, COST, table, CLIP)
        say(f"parser epoch {epoch}/{epochs}: {100 * (1 - wrong / (copies * words)):.2f}% of "
            "training arcs right (cost-augmented, gold and predicted tags)")
    model = TextModel(taggers, half_precision(weights - total / step), table,
                      convention=dependency_style(sents[:2000]).name, arc_column=arc_column)
    label_set = sorted({r for s in sents for r in s.rels})
    if labels and label_set != ["_"] and len(label_set) <= MAX_LABELS:
        index = {r: k for k, r in enumerate(label_set)}
        gold = np.array([index[r] for s in sents for r in s.rels], np.int64)
        lsize = (1 << LABEL_BITS) + len(label_set)
        lw, lt = np.zeros(lsize), np.zeros(lsize)
        step = 1.0
        for epoch in range(1, tagger_epochs + 1):
            errors, step = label_epoch(arrays, starts, heads, gold, rng.permutation(len(sents)),
                                       lw, lt, (1 << LABEL_BITS) - 1, len(label_set), step)
            say(f"labels epoch {epoch}/{tagger_epochs}: {100 * (1 - errors / words):.2f}% of "
                "training arcs labeled right")
        model.labels = label_set
        model.label_weights = (lw - lt / step).astype(np.float32)
    elif labels and label_set != ["_"]:
        say(f"no label model: {len(label_set)} distinct DEPREL values (more than {MAX_LABELS})")
    model.training = {
        "sentences": len(sents), "words": words, "lifted_sentences": lifted,
        "epochs": epochs, "tagger_epochs": tagger_epochs, "arc_bits": arc_bits,
        "tagger_bits": tagger_bits, "seed": seed, "cost": COST, "clip": CLIP,
        "seconds": round(time.perf_counter() - start, 2),
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
    }
    return model


def jackknife(bank: Treebank, folds: int, progress: Callable[[str], None] | None = None,
              **options) -> list[DepSentence]:
    """Every training sentence tagged, d-parsed and labeled by a text model trained on the
    other folds (sentence i is in fold i % folds): d-parses with the errors a text model
    makes on unseen text, for training a PAD model on what the pipeline will give it."""
    say = progress or (lambda _msg: None)
    out: list[DepSentence | None] = [None] * len(bank.sentences)
    for f in range(folds):
        keep = [i for i in range(len(bank.sentences)) if i % folds != f]
        part = Treebank([bank.sentences[i] for i in keep], [bank.upos[i] for i in keep], [])
        model = train_text_model(part, **options)
        for i in range(f, len(bank.sentences), folds):
            s = bank.sentences[i]
            tags, coarse = model.arc_tags(model.tag(s.forms))
            heads, rels = model.parse_and_label(s.forms, tags, coarse)
            out[i] = DepSentence(list(s.forms), tags, heads, rels if model.labels else [])
        say(f"jackknife fold {f + 1}/{folds} parsed")
    return [s for s in out if s is not None]
