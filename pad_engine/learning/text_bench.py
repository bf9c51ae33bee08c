"""``pad bench-text``: the text-to-tree pipeline measured, as the paper's Tables 3-4 and §7.

On the Penn Treebank sample test split (wsj_0160..0199; Collins heads): tagging accuracy, UAS
with gold and predicted tags, c-parse F1 of PAD from predicted d-parses (gold tags, predicted
tags) beside PAD on gold d-parses and beside the oracle of those d-parses (the best tree
consistent with them), the paper's §7 low-resource case (PAD trained on the first 170
c-parses, 5%, on predicted d-parses) and the speed of the whole pipeline from plain words.
On UD English EWT test: UPOS and XPOS accuracy, UAS and LAS from plain words (gold
tokenization). UAS on the PTB leaves punctuation out, as is usual there; on EWT it counts
every word, as the CoNLL 2018 scorer does; the other figure is given beside each.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from pad_engine.decoding.engine import Engine
from pad_engine.io.conll import read_conll
from pad_engine.learning.bench import TEST_FILES, TRAIN_FILES, load_split
from pad_engine.learning.evalb import attachment_scores, bracket_f1, is_punct, score
from pad_engine.learning.train import Example, train
from pad_engine.parsing.model import TextModel
from pad_engine.parsing.pipeline import TextPipeline, paired_choice
from pad_engine.parsing.text import TextSentence
from pad_engine.trees.deptree import DepSentence
from pad_engine.trees.lextree import to_line

LOW_RESOURCE_TREES = 170  # the paper's §7: 5% of the training c-parses


def _accuracy(gold: list[list[str]], test: list[list[str]]) -> float:
    pairs = [(g, t) for gs, ts in zip(gold, test) for g, t in zip(gs, ts)]
    return 100.0 * sum(g == t for g, t in pairs) / max(1, len(pairs))


def _f1(engine: Engine, test: list[Example], tags: list[list[str]], heads: list[list[int]]
        ) -> float:
    lines = [engine.best(DepSentence(ex.forms, t, h)).penn(ex.forms)
             for ex, t, h in zip(test, tags, heads)]
    return bracket_f1(score([to_line(ex.lex, ex.forms) for ex in test], lines))


def _oracle_f1(engine: Engine, test: list[Example], tags: list[list[str]],
               heads: list[list[int]]) -> float:
    lines = [to_line(engine.parser.oracle(ex.forms, t, h, ex.lex).tree, ex.forms)
             for ex, t, h in zip(test, tags, heads)]
    return bracket_f1(score([to_line(ex.lex, ex.forms) for ex in test], lines))


def _uas(forms: list[list[str]], gold: list[list[int]], test: list[list[int]]) -> dict:
    mask = [[is_punct(w) for w in ws] for ws in forms]
    return attachment_scores(gold, test, punct_mask=mask)


def pipeline_speed(model: TextModel, engine: Engine, sentences: list[list[str]],
                   repeat: int = 3) -> float:
    """Sentences/s from plain words to Penn lines in this process (JIT warmed up first),
    the best of ``repeat`` runs; the pipeline runs as ``pad parse`` does, every sentence
    analyzed before any is converted."""
    pipe = TextPipeline(model)
    items = [TextSentence(list(ws), k) for k, ws in enumerate(sentences, 1)]

    def once(batch):
        for analysis in pipe.analyze_many(batch):
            engine.best_line(analysis.dep_sentence())

    once(items[:2])
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        once(items)
        best = min(best, time.perf_counter() - start)
    return len(items) / best


def ptb_figures(treebank: Path, model: TextModel, say: Callable[[str], None]) -> dict:
    """The Penn Treebank sample figures of a Collins-style text model."""
    test = load_split(treebank, TEST_FILES, model.training.get("headrules", "collins"))
    forms = [ex.forms for ex in test]
    gold_tags = [ex.tags for ex in test]
    gold_heads = [ex.heads for ex in test]
    pred_tags = [model.taggers[model.parse_column].tag(ws) for ws in forms]
    heads_g = [model.parse(ws, ts) for ws, ts in zip(forms, gold_tags)]
    heads_p = [model.parse(ws, ts) for ws, ts in zip(forms, pred_tags)]
    f: dict = {"sentences": len(test), "tagging": _accuracy(gold_tags, pred_tags),
               "uas_gold_tags": _uas(forms, gold_heads, heads_g),
               "uas_pred_tags": _uas(forms, gold_heads, heads_p)}
    say("PTB: tagged and d-parsed")
    engine = paired_choice(model).engine
    f["f1_gold_deps"] = _f1(engine, test, gold_tags, gold_heads)
    f["f1_gold_tags"] = _f1(engine, test, gold_tags, heads_g)
    f["f1_pred_tags"] = _f1(engine, test, pred_tags, heads_p)
    f["oracle_gold_tags"] = _oracle_f1(engine, test, gold_tags, heads_g)
    f["oracle_pred_tags"] = _oracle_f1(engine, test, pred_tags, heads_p)
    say("PTB: converted; training PAD on the first 170 c-parses")
    few = load_split(treebank, TRAIN_FILES, "collins")[:LOW_RESOURCE_TREES]
    small = Engine(train(few, epochs=10, backoff=True))
    f["low_gold_deps"] = _f1(small, test, gold_tags, gold_heads)
    f["low_gold_tags"] = _f1(small, test, gold_tags, heads_g)
    f["low_pred_tags"] = _f1(small, test, pred_tags, heads_p)
    f["pipeline_sent_per_s"] = pipeline_speed(model, engine, forms)
    return f


def ewt_figures(test_file: Path, model: TextModel) -> dict:
    """UD English EWT test figures of a UD text model, from plain words."""
    xpos = read_conll(test_file, pos="auto").sentences
    upos = read_conll(test_file, pos="upos").sentences
    forms = [s.forms for s in xpos]
    tags = [model.tag(ws) for ws in forms]
    f: dict = {"sentences": len(xpos)}
    if "upos" in model.taggers:
        f["upos"] = _accuracy([s.tags for s in upos], [t["upos"] for t in tags])
    f["xpos"] = _accuracy([s.tags for s in xpos], [t["xpos"] for t in tags])
    parsed = [model.parse_and_label(ws, *model.arc_tags(t)) for ws, t in zip(forms, tags)]
    heads, rels = [h for h, _ in parsed], [r for _, r in parsed]
    mask = [[is_punct(w) for w in ws] for ws in forms]
    f["scores"] = attachment_scores([s.heads for s in xpos], heads, [s.rels for s in xpos],
                                    rels, punct_mask=mask)
    f["pipeline_sent_per_s"] = pipeline_speed(model, paired_choice(model).engine, forms)
    return f


def format_ptb(f: dict) -> list[str]:
    g, p = f["uas_gold_tags"], f["uas_pred_tags"]
    return [
        f"PTB sample test ({f['sentences']} sentences; UAS without punctuation, with it in "
        "brackets)",
        f"  tagging accuracy                {f['tagging']:6.2f}",
        f"  UAS, gold tags                  {g['uas_no_punct']:6.2f}  ({g['uas']:.2f})",
        f"  UAS, predicted tags             {p['uas_no_punct']:6.2f}  ({p['uas']:.2f})",
        f"  c-parse F1, gold d-parses       {f['f1_gold_deps']:6.2f}",
        f"  c-parse F1, gold tags           {f['f1_gold_tags']:6.2f}  (oracle of these "
        f"d-parses {f['oracle_gold_tags']:.2f})",
        f"  c-parse F1, plain words         {f['f1_pred_tags']:6.2f}  (oracle of these "
        f"d-parses {f['oracle_pred_tags']:.2f})",
        f"  PAD on the first {LOW_RESOURCE_TREES} c-parses    gold d-parses "
        f"{f['low_gold_deps']:.2f}, gold tags {f['low_gold_tags']:.2f}, plain words "
        f"{f['low_pred_tags']:.2f}  (all 3,396: {f['f1_gold_deps']:.2f}, "
        f"{f['f1_gold_tags']:.2f}, {f['f1_pred_tags']:.2f})",
        f"  pipeline, words to trees        {f['pipeline_sent_per_s']:,.0f} sent/s (one "
        "process, after start-up)",
    ]


def format_ewt(f: dict) -> list[str]:
    s = f["scores"]
    lines = [f"UD English EWT test ({f['sentences']} sentences, from plain words; all words, "
             "without punctuation in brackets)"]
    if "upos" in f:
        lines.append(f"  UPOS accuracy                   {f['upos']:6.2f}")
    lines += [
        f"  XPOS accuracy                   {f['xpos']:6.2f}",
        f"  UAS                             {s['uas']:6.2f}  ({s['uas_no_punct']:.2f})",
        f"  LAS                             {s['las']:6.2f}  ({s['las_no_punct']:.2f})",
        f"  pipeline, words to trees        {f['pipeline_sent_per_s']:,.0f} sent/s (one "
        "process, after start-up)",
    ]
    return lines
