"""``pad bench``: accuracy and speed on the Penn Treebank sample split, as figures.

Train = wsj_0001..wsj_0159, test = wsj_0160..wsj_0199, gold tags, gold d-parses from the
model's head table. Speeds are measured after JIT warm-up (reported separately); the
end-to-end figure runs ``pad convert`` as a fresh process on a CoNLL file of the test split.
The rule-based fallback (no model) is scored on the same test split, on Collins-style and on
content-head d-parses, for comparison with PAD (Xia et al. 2009 report 89.4 on PTB s23).
"""

from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from pad_engine.decoding.decoder import EXACT, PRUNED
from pad_engine.decoding.engine import Engine
from pad_engine.decoding.model import Model
from pad_engine.decoding.model_check import DEPREL_AND_PROJECTION
from pad_engine.decoding.parser import Parser, encode, reads_phrase_labels, run_decoder
from pad_engine.errors import InputError
from pad_engine.io.conll import format_conllx
from pad_engine.io.gate import read_bytes, write_text
from pad_engine.jit import default_jobs
from pad_engine.learning.evalb import bracket_f1, closest, score
from pad_engine.learning.train import Example, examples_from_penn, projection_recipe, train
from pad_engine.trees.deplabels import SCHEMES
from pad_engine.trees.deptree import DepSentence
from pad_engine.trees.lextree import to_line

TRAIN_FILES = range(1, 160)
# trained as the bundled PTB model is (its command in docs/EXPERIMENTS.md, "The bundled
# models"): reading the rule-based projection, the back-off grammar, 2^20 weights. With the
# d-parses' labels (``--labels``), the strongest labeled recipe: the labels per word and the
# projection's phrases over each span, with the back-off grammar (99.33 pruned, 98.56
# without the projection and back-off; docs/EXPERIMENTS.md, "The projection for labeled
# models"). No bundled model reads these labels.
BACKOFF, BITS = True, 20
TEST_FILES = range(160, 200)


def load_split(treebank: Path, numbers: range, headrules: str, labels: str = ""
               ) -> list[Example]:
    """Read ``wsj_NNNN.mrg`` files of the given numbers as training examples (their d-parses
    labeled in the scheme ``labels`` names, if any)."""
    from pad_engine.io.penn import read_penn

    trees = []
    for k in numbers:
        path = treebank / f"wsj_{k:04d}.mrg"
        if not path.exists():
            raise FileNotFoundError(f"{path}: missing (expected the Penn Treebank sample)")
        trees.extend(read_penn(path).trees)
    return examples_from_penn(trees, headrules, labels)


def bench_model(examples: list[Example], epochs: int = 10, headrules: str = "collins",
                labels: str = "") -> Model:
    """The model ``pad bench`` trains on the train split: the bundled PTB model's recipe, or
    with ``labels`` (a scheme of :data:`SCHEMES`) the strongest labeled one."""
    return train(examples, epochs=epochs, headrules=headrules, bits=BITS, backoff=BACKOFF,
                 **projection_recipe(examples, deprel=bool(labels)))


def _scheme(model: Model, path: Path) -> str:
    """The scheme to label the test d-parses in for a given model: none for one that reads
    no labels or only the projection's; ``phrase`` (the sample's one, :data:`SCHEMES`) for
    one that reads phrase labels, off Penn trees or from DEPREL, with or without the
    projection (``parser.reads_phrase_labels``)."""
    if model.dep_labels in ("", "projection"):
        return ""
    if reads_phrase_labels(model):
        return SCHEMES[0]
    raise InputError(f"the model reads {model.dep_labels!r} labels ("
                     f"{', '.join(model.label_set[:4])}...), which the Penn Treebank sample's "
                     "d-parses do not have", str(path))


def _rate(count: int, seconds: float) -> float:
    return count / seconds if seconds > 0 else float("inf")


def decoder_speed(model: Model, examples: list[Example], prune: bool, repeat: int = 5) -> float:
    """Sentences/s of the decoder alone (encoding excluded), best of ``repeat`` runs."""
    encs = [encode(model, ex.forms, ex.tags, ex.heads, ex.rels) for ex in examples]
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for enc in encs:
            run_decoder(model, enc, PRUNED if prune else EXACT, escalate=True)
        best = min(best, time.perf_counter() - start)
    return _rate(len(encs), best)


def kbest_speed(engine: Engine, examples: list[Example], k: int, prune: bool = True,
                repeat: int = 3) -> float:
    """Sentences/s of the app's k candidates (:meth:`Engine.candidates`: distinct
    bracketings and, in the last places, the projection's views; trees built), best of
    ``repeat`` runs as for :func:`decoder_speed`."""
    sents = [ex.sentence() for ex in examples]
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for sent in sents:
            engine.candidates(sent, k, prune=prune)
        best = min(best, time.perf_counter() - start)
    return _rate(len(examples), best)


def kbest_oracle_f1(engine: Engine, examples: list[Example], ks: tuple[int, ...]) -> dict:
    """F1 when an annotator picks the best of the app's k candidates of every sentence
    (:meth:`Engine.candidates`), for each k."""
    gold = [to_line(ex.lex, ex.forms) for ex in examples]
    sents = [ex.sentence() for ex in examples]
    result = {}
    for k in ks:
        lists = [[c.penn(sent.forms) for c in engine.candidates(sent, k)] for sent in sents]
        chosen = [cands[closest(g, cands)] for g, cands in zip(gold, lists)]
        result[k] = bracket_f1(score(gold, chosen))
    return result


def rulebased_figures(examples: list[Example]) -> dict:
    """F1, precision, recall and speed (sentences/s) of the rule-based conversion."""
    from pad_engine.decoding.projection import project

    gold = [to_line(ex.lex, ex.forms) for ex in examples]
    start = time.perf_counter()
    lines = [to_line(project(ex.forms, ex.tags, ex.heads), ex.forms) for ex in examples]
    seconds = time.perf_counter() - start
    report = score(gold, lines)
    return {"f1": bracket_f1(report), "precision": report.overall.precision,
            "recall": report.overall.recall, "sent_per_s": _rate(len(examples), seconds)}


def run_rules_bench(treebank: Path, out: Callable[[str], None] = print) -> dict:
    """Only the rule-based fallback's figures (no training, a few seconds)."""
    figures = {f"rules_{name}": rulebased_figures(load_split(treebank, TEST_FILES, name))
               for name in ("collins", "content")}
    for line in format_rules(figures):
        out(line)
    return figures


def format_rules(f: dict) -> list[str]:
    """The rule-based fallback's report lines."""
    return [f"{'rule-based fallback, ' + name:<31}F1 {r['f1']:6.2f}  P {r['precision']:6.2f}  "
            f"R {r['recall']:6.2f}  {r['sent_per_s']:,.0f} sent/s  (no model; Xia et al. 2009: "
            "89.4)"
            for name, r in ((k[len("rules_"):], v) for k, v in f.items()
                            if k.startswith("rules_"))]


# A child's own peak resident memory in kB: VmHWM where Linux has it (ru_maxrss would count
# the pages a child shares with the process it was forked from), else ru_maxrss.
_PEAK = """
import resource, sys
def peak_kb():
    try:
        with open("/proc/self/status") as status:
            return int(next(x for x in status if x.startswith("VmHWM")).split()[1])
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
"""
# One process decodes a flat sentence (one head, every other word its dependent: the largest
# chart per word) after a warm-up, and prints its peak.
_FLAT = _PEAK + """
from pad_engine.decoding.model import Model
from pad_engine.decoding.parser import Parser
parser, n, k = Parser(Model.load(sys.argv[1])), int(sys.argv[2]), int(sys.argv[3])
tags = ["NN"] * n
tags[n // 2 - 1] = "VBD"
heads = [0 if i == n // 2 else n // 2 for i in range(1, n + 1)]
forms = [f"w{i}" for i in range(n)]
parser.kbest(forms[:2], tags[:2], [2, 0], k)
parser.kbest(forms, tags, heads, k)
print(peak_kb())
"""
# ``pad`` with the arguments given, then its peak on the last line of stderr.
_PAD = _PEAK + """
from pad_engine.cli import main, quick_exit
code = main(sys.argv[1:])
print(peak_kb(), file=sys.stderr)
quick_exit(code)
"""


def flat_sentence_peak_mb(model_path: Path, words: int, k: int) -> float:
    """Peak memory (MB) of a process that decodes a flat ``words``-word sentence (k trees)."""
    proc = subprocess.run([sys.executable, "-c", _FLAT, str(model_path), str(words), str(k)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"flat sentence: {proc.stderr.strip()[-500:]}")
    return int(proc.stdout.split()[-1]) / 1024


# One process decodes a long sentence of a shape (flat: a verb heading every other word;
# chain: each word heading the next) as ``pad convert`` does (the best line, or k trees),
# after a warm-up, and prints its peak and how (k-best: and the k its budget cut it to). Its
# words cycle through common tags, with their UD relations ("ud") or none, as a Penn Treebank
# conversion gives ("ptb").
_LONG = _PEAK + """
import json
from pad_engine.decoding.engine import Engine
from pad_engine.trees.deptree import DepSentence
engine, k = Engine.load(sys.argv[1]), int(sys.argv[2])
def convert(sent):
    if k == 1:
        return engine.best_line(sent)[1]
    cands = engine.candidates(sent, k=k)
    [c.penn(sent.forms) for c in cands]
    return cands[0].how + (f",cut:{cands[0].cut_to}" if cands[0].cut_to else "")
convert(DepSentence(*json.loads(sys.argv[3])))
how = convert(DepSentence(*json.loads(sys.argv[4])))
print(how, peak_kb())
"""
# (tag, UD relation) of the words of a long sentence, in turn
_WORDS = [("DT", "det"), ("JJ", "amod"), ("NN", "nsubj"), ("IN", "case"), ("NN", "obl"),
          (",", "punct"), ("RB", "advmod"), ("CC", "cc"), ("NNP", "conj"), ("CD", "nummod"),
          ("PRP", "obj"), ("NNS", "nmod"), ("VBG", "advcl"), ("TO", "mark"), ("MD", "aux"),
          (".", "punct")]
LONG_SHAPES = ("flat", "chain")
LONG_RELATIONS = ("ud", "ptb")


def long_sentence(shape: str, relations: str, words: int) -> DepSentence:
    """A ``words``-word d-parse of a shape (flat: a VBD heading every other word; chain:
    each word heading the next), its words' tags and relations (``ud``; ``ptb``: none) taken
    in turn from common ones."""
    if shape == "flat":
        h = words // 2
        heads = [0 if i == h else h for i in range(1, words + 1)]
    else:
        heads = list(range(words))
    tags = [_WORDS[i % len(_WORDS)][0] for i in range(words)]
    rels = [_WORDS[i % len(_WORDS)][1] for i in range(words)]
    root = heads.index(0)
    tags[root], rels[root] = "VBD", "root"
    return DepSentence([f"w{i}" for i in range(words)], tags, heads,
                       rels if relations == "ud" else [])


def long_sentence_peak(model_path: Path, shape: str, relations: str, words: int, k: int
                       ) -> tuple[float, float, str]:
    """Peak memory (MB) of a process converting one long sentence (:func:`long_sentence`)
    to ``k`` trees, the seconds that process took and how the sentence was decoded (with
    "k cut to N" when the k-best budget cut its list)."""
    import json

    sentences = [long_sentence(shape, relations, n) for n in (3, words)]  # warm-up, measured
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _LONG, str(model_path), str(k), *(
        json.dumps([s.forms, s.tags, s.heads, s.rels]) for s in sentences)],
        capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"long sentence: {proc.stderr.strip()[-500:]}")
    how, peak = proc.stdout.split()[-2:]
    return int(peak) / 1024, seconds, how.replace(",cut:", ", k cut to ")


def repeated_file(source: Path, sentences: int, out: Path) -> None:
    """A CoNLL file of ``sentences`` sentences: ``source``'s, repeated as often as needed."""
    from pad_engine.io.conll_stream import ConllStream
    from pad_engine.io.gate import open_read, open_write

    written = 0
    with open_write(out, "w") as f:
        while written < sentences:
            with open_read(source, limit=None) as src:
                for sent in ConllStream(src, str(source)):
                    if written == sentences:
                        break
                    if isinstance(sent, DepSentence):
                        f.write("\n".join(sent.lines) + "\n\n")
                        written += 1
            if not written:
                raise InputError("no sentence to repeat", str(source))


def pad_process(args: list[str]) -> tuple[float, int]:
    """Wall time and peak memory (kB) of one ``pad`` process with these arguments."""
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _PAD, *args], capture_output=True, text=True,
                          preexec_fn=None if os.name != "posix" else os.setpgrp)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"pad {args[0]} failed: {proc.stderr.strip()[-500:]}")
    return seconds, int(proc.stderr.split()[-1])


FILE_LENGTHS = (1_000, 10_000, 100_000)


def memory_figures(ewt: Path | None, words: int = 300, out: Callable[[str], None] = print
                   ) -> dict:
    """Peak memory rows: ``pad convert`` and ``pad convert-dir`` (one process) on files of
    1,000, 10,000 and 100,000 sentences (UD English EWT train, repeated), the bundled model
    chosen as for a user's file; and a process converting one ``words``-word sentence of
    each shape, relations and bundled model, to 1 and 10 trees. Rows print as they come."""
    from pad_engine.decoding.choice import COLLINS_MODEL, UD_MODEL
    from pad_engine.resources import resource_path

    figures: dict = {"long": {}}
    if ewt is not None:
        train = ewt / "en_ewt-ud-train.conllu"
        if not train.exists():
            raise InputError("no en_ewt-ud-train.conllu here: not UD English EWT", str(ewt))
        figures["length"] = {}
        with tempfile.TemporaryDirectory() as tmp:
            tmpdir = Path(tmp)
            for n in FILE_LENGTHS:
                folder = tmpdir / f"in{n}"
                folder.mkdir()
                conll = folder / f"ewt{n}.conllu"
                repeated_file(train, n, conll)
                row = {}
                row["convert"] = pad_process(["convert", str(conll), "-o",
                                              str(tmpdir / f"ewt{n}.mrg")])
                row["convert-dir"] = pad_process(["convert-dir", str(folder),
                                                  str(tmpdir / f"out{n}"), "--jobs", "1"])
                figures["length"][n] = row
                conll.unlink()
                out(format_length_row(n, row))
    for model in (UD_MODEL, COLLINS_MODEL):
        path = resource_path("models", model)
        for shape in LONG_SHAPES:
            for relations in LONG_RELATIONS:
                row = {k: long_sentence_peak(path, shape, relations, words, k) for k in (1, 10)}
                figures["long"][model, shape, relations] = row
                out(format_long_row(model, shape, relations, words, row))
    return figures


def format_length_row(n: int, row: dict) -> str:
    """A file-length row of :func:`memory_figures`."""
    return f"file of {n:>7,} EWT sentences     " + "  ".join(
        f"pad {cmd}: peak {kb / 1024:4.0f} MB, {seconds:5.0f} s" for cmd, (seconds, kb)
        in row.items())


def format_long_row(model: str, shape: str, relations: str, words: int, row: dict) -> str:
    """A long-sentence row of :func:`memory_figures`."""
    name = model.removesuffix(".padmodel")
    return (f"{words}-word {shape:<5} {relations.upper():<3} {name:<20}" + "  ".join(
        f"k={k}: peak {mb:4.0f} MB, {seconds:4.1f} s ({how})" for k, (mb, seconds, how)
        in row.items()))


def convert_process(model_path: Path, conll: Path, out: Path) -> tuple[float, int]:
    """Wall time and peak memory (kB) of one ``pad convert`` process."""
    cmd = [sys.executable, "-c", _PAD, "convert", str(conll), "-o", str(out),
           "--model", str(model_path)]
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True,
                          preexec_fn=None if os.name != "posix" else os.setpgrp)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"pad convert failed: {proc.stderr.strip()}")
    return seconds, int(proc.stderr.split()[-1])


def ud_figures(ewt: Path) -> dict:
    """The bundled UD model on UD English EWT train, as users bring UD files: ``pad convert``
    end to end (a fresh process, after its start-up), and how many sentences needed each
    decoding mode (pruned; exact at a head pruning left without a phrase; glue at a head the
    learned grammar cannot complete) with the mean time per sentence of each kind."""
    from pad_engine.decoding.choice import UD_MODEL
    from pad_engine.io.conll import read_conll
    from pad_engine.resources import resource_path
    from pad_engine.trees.projectivize import projectivize

    path = ewt / "en_ewt-ud-train.conllu"
    if not path.exists():
        raise InputError("no en_ewt-ud-train.conllu here: not UD English EWT", str(ewt))
    model_path = resource_path("models", UD_MODEL)
    parser = Parser(Model.load(model_path))
    sentences = read_conll(path, on_error="skip").sentences
    first = sentences[0]
    parser.parse(first.forms, first.tags, projectivize(first.heads)[0], rels=first.rels)
    seconds: dict[str, float] = {}
    counts: dict[str, int] = {}
    for s in sentences:
        heads = projectivize(s.heads)[0]
        start = time.perf_counter()
        how = parser.parse(s.forms, s.tags, heads, rels=s.rels).how
        seconds[how] = seconds.get(how, 0.0) + time.perf_counter() - start
        counts[how] = counts.get(how, 0) + 1
    with tempfile.TemporaryDirectory() as tmp:
        tmpdir = Path(tmp)
        one = tmpdir / "one.conllu"
        write_text(one, "\n".join(first.lines) + "\n\n", encoding="utf-8")
        startup, _ = convert_process(model_path, one, tmpdir / "one.mrg")
        wall, _ = convert_process(model_path, path, tmpdir / "ewt.mrg")
    return {"ud_sentences": len(sentences), "ud_passes": counts,
            "ud_ms": {k: 1000 * seconds[k] / counts[k] for k in counts},
            "ud_end_to_end_sent_per_s": _rate(len(sentences), wall - startup),
            "ud_wall_seconds": wall, "ud_jobs": default_jobs()}


FARPAHC_TREES = "1936.ntjohn.rel-bib.psd"
FARPAHC_DEPS = "fo_farpahc-ud-train.conllu"


def farpahc_figures(farpahc: Path) -> dict:
    """Long sentences with a large grammar: a model trained as the FarPaHC command of
    docs/EXPERIMENTS.md ("Treebanks from elsewhere") does (``pad train
    1936.ntjohn.rel-bib.psd --deps fo_farpahc-ud-train.conllu --hold-out 10``: the same
    functions, defaults and split), then every paired sentence decoded with
    :meth:`Parser.parse` (pruned first, as by default) after a JIT warm-up: the time per
    sentence, the passes that settled them, the held-out F1 (as ``pad train`` reports it) and
    the grammar's size, and the set-up a process pays once (packing the grammar for the
    decoder)."""
    from pad_engine.decoding.model import DEFAULT_BITS
    from pad_engine.io.penn import tree_to_line
    from pad_engine.learning.pairs import examples_from_pairs, hold_out, read_pairs

    trees, deps = farpahc / FARPAHC_TREES, farpahc / FARPAHC_DEPS
    if not (trees.exists() and deps.exists()):
        raise InputError(f"no {FARPAHC_TREES} and {FARPAHC_DEPS} here: not FarPaHC", str(farpahc))
    per_file, _ = read_pairs([str(trees)], [str(deps)])
    kept, held = hold_out(per_file, 10)
    start = time.perf_counter()
    model = train(examples_from_pairs(kept).examples, headrules="content", backoff=True,
                  bits=DEFAULT_BITS)
    training = time.perf_counter() - start
    model.invalidate()
    start = time.perf_counter()
    model.packed()
    packing = time.perf_counter() - start
    parser = Parser(model)
    first = held[0]
    parser.parse(first.forms, first.tags, first.heads, rels=first.rels)  # JIT warm-up
    ms, counts, lines = [], {}, []
    for p in [*held, *kept]:
        start = time.perf_counter()
        parse = parser.parse(p.forms, p.tags, p.heads, rels=p.rels)
        ms.append(1000 * (time.perf_counter() - start))
        counts[parse.how] = counts.get(parse.how, 0) + 1
        lines.append(to_line(parse.tree, p.forms))
    words = [len(p.forms) for p in [*held, *kept]]
    f1 = bracket_f1(score([tree_to_line(p.tree) for p in held], lines[:len(held)]))
    return {"fo_sentences": len(words), "fo_held_out": len(held), "fo_trained": len(kept),
            "fo_training_seconds": training, "fo_packing_seconds": packing,
            "fo_mean_words": sum(words) / len(words),
            "fo_max_words": max(words), "fo_mean_ms": sum(ms) / len(ms), "fo_max_ms": max(ms),
            "fo_passes": counts, "fo_f1": f1, "fo_grammar": model.grammar.counts()}


def format_farpahc(f: dict) -> str:
    """The FarPaHC row (:func:`farpahc_figures`)."""
    g = f["fo_grammar"]
    passes = ", ".join(f"{k} {v:,}" for k, v in sorted(f["fo_passes"].items()))
    return (f"FarPaHC: John, --deps --hold-out 10  {f['fo_sentences']:,} sentences (mean "
            f"{f['fo_mean_words']:.1f} words, max {f['fo_max_words']}): {f['fo_mean_ms']:.1f} ms "
            f"each, max {f['fo_max_ms']:.1f} ms; settled by {passes}; held-out "
            f"{f['fo_held_out']} F1 {f['fo_f1']:.2f}; grammar {g['symbols']:,} symbols, "
            f"{g['binary_rules']:,} binary and {g['unary_rules']:,} unary rules, unary chains up "
            f"to {g['max_unary_chain']}; once per process: packing "
            f"{f['fo_packing_seconds']:.2f} s (trained on {f['fo_trained']} in "
            f"{f['fo_training_seconds']:.0f} s)")


GUM_HOLD_OUT = 10  # the bundled UD model was trained with --hold-out 10 (docs/EXPERIMENTS.md)


def gum_figures(gum: Path) -> dict:
    """The bundled UD model on GUM's held-out documents (every 10th file pair, the ones its
    README command holds out), converted from their UD d-parses as a file has them (each
    lifted to projective, then re-attached as the model says: ``Engine.best``), pruned and
    exact: EVALB F1 against their c-parses."""
    from pad_engine.decoding.choice import UD_MODEL
    from pad_engine.learning.pairs import hold_out, paired_files, pairs_f1, read_pairs
    from pad_engine.resources import resource_path

    files = paired_files(gum)
    if not files:
        raise InputError("no const/*.ptb paired with dep/*.conllu here: not GUM", str(gum))
    per_file, _ = read_pairs([str(t) for t, _ in files], [str(d) for _, d in files])
    _, held = hold_out(per_file, GUM_HOLD_OUT)
    engine = Engine.load(resource_path("models", UD_MODEL))
    f1 = {}
    for name, prune in (("pruned", True), ("exact", False)):
        lines = [to_line(engine.best(p.sentence(), prune=prune).tree, p.forms) for p in held]
        f1[name] = pairs_f1(held, lines)
    return {"gum_sentences": len(held), "gum_f1": f1}


def format_gum(f: dict) -> str:
    """The GUM row (:func:`gum_figures`)."""
    return (f"UD: GUM held-out, english-gum-ud  {f['gum_sentences']} sentences (every "
            f"{GUM_HOLD_OUT}th document): F1 pruned {f['gum_f1']['pruned']:.2f}, exact "
            f"{f['gum_f1']['exact']:.2f}")


def run_bench(treebank: Path, model_path: Path | None = None, epochs: int = 10,
              headrules: str = "collins", out: Callable[[str], None] = print,
              labels: str = "", ewt: Path | None = None, farpahc: Path | None = None,
              gum: Path | None = None) -> dict:
    """Train (unless a model is given; reading d-parse labels of the scheme ``labels``, if
    any), evaluate and time; print and return the figures. A given model's test d-parses are
    labeled the way it was trained. With ``ewt``, the UD row too (:func:`ud_figures`); with
    ``farpahc``, the FarPaHC row (:func:`farpahc_figures`); with ``gum``, the bundled UD
    model on GUM's held-out documents (:func:`gum_figures`)."""
    figures: dict = {}
    train_ex = load_split(treebank, TRAIN_FILES, headrules, labels)
    if model_path is None:
        start = time.perf_counter()
        model = bench_model(train_ex, epochs, headrules, labels)
        figures["training_seconds"] = time.perf_counter() - start
        figures["training_sentences"] = len(train_ex)
    else:
        model = Model.load(model_path)
        labels = _scheme(model, model_path)
    figures["labels"] = model.dep_labels
    test = load_split(treebank, TEST_FILES, headrules, labels)
    parser = Parser(model)
    start = time.perf_counter()
    first = test[0]
    parser.parse(first.forms, first.tags, first.heads, prune=True, rels=first.rels)
    parser.parse(first.forms, first.tags, first.heads, prune=False, rels=first.rels)
    parser.kbest(first.forms, first.tags, first.heads, 10, prune=True, rels=first.rels,
                 distinct=True)
    figures["jit_warmup_seconds"] = time.perf_counter() - start
    gold = [to_line(ex.lex, ex.forms) for ex in test]
    for prune in (False, True):
        lines, hows = [], {}
        for ex in test:
            p = parser.parse(ex.forms, ex.tags, ex.heads, prune=prune, rels=ex.rels)
            lines.append(to_line(p.tree, ex.forms))
            hows[p.how] = hows.get(p.how, 0) + 1
        report = score(gold, lines)
        name = "pruned" if prune else "exact"
        figures[f"{name}_f1"] = bracket_f1(report)
        figures[f"{name}_recall"] = report.overall.recall
        figures[f"{name}_precision"] = report.overall.precision
        figures[f"{name}_parsed"] = report.overall.valid_sentences
        figures[f"{name}_passes"] = hows
        figures[f"{name}_decoder_sent_per_s"] = decoder_speed(model, test, prune)
    figures[f"rules_{headrules}"] = rulebased_figures(test)
    if headrules != "content":
        figures["rules_content"] = rulebased_figures(load_split(treebank, TEST_FILES, "content"))
    engine = Engine(model)
    figures["kbest10_sent_per_s"] = kbest_speed(engine, test, 10, prune=True)
    figures["kbest_oracle_f1"] = kbest_oracle_f1(engine, test, (1, 5, 10, 50))
    with tempfile.TemporaryDirectory() as tmp:
        tmpdir = Path(tmp)
        mpath = model_path or tmpdir / "bench.padmodel"
        if model_path is None:
            model.save(mpath)
        figures["model_file_mb"] = os.path.getsize(mpath) / 1e6
        conll = tmpdir / "test.conll"
        write_text(conll, "".join(
            format_conllx(ex.forms, ex.tags, ex.heads, ex.rels) + "\n" for ex in test
        ), encoding="utf-8")
        one = tmpdir / "one.conll"
        write_text(one, format_conllx(first.forms, first.tags, first.heads, first.rels) + "\n",
                       encoding="utf-8")
        convert_process(mpath, one, tmpdir / "one.mrg")  # fills the JIT cache if empty
        startup, _ = convert_process(mpath, one, tmpdir / "one.mrg")
        big = tmpdir / "big.conll"
        write_text(big, read_bytes(conll).decode("utf-8") * 10, encoding="utf-8")
        wall, peak = convert_process(mpath, big, tmpdir / "big.mrg")
        # every sentence once: no cache of a repeated sentence's projection helps here
        once = [*train_ex, *test]
        every = tmpdir / "every.conll"
        write_text(every, "".join(format_conllx(ex.forms, ex.tags, ex.heads, ex.rels) + "\n"
                                  for ex in once), encoding="utf-8")
        wall_once, _ = convert_process(mpath, every, tmpdir / "every.mrg")
        figures["startup_seconds"] = startup
        figures["convert_jobs"] = default_jobs()
        figures["end_to_end_sent_per_s"] = _rate(10 * len(test), wall - startup)
        figures["distinct_sentences"] = len(once)
        figures["distinct_sent_per_s"] = _rate(len(once), wall_once - startup)
        figures["end_to_end_wall_seconds"] = wall
        figures["convert_peak_mb"] = peak / 1024
        figures["flat300_peak_mb"] = [flat_sentence_peak_mb(mpath, 300, k) for k in (1, 10)]
    if ewt is not None:
        figures.update(ud_figures(ewt))
    if farpahc is not None:
        figures.update(farpahc_figures(farpahc))
    if gum is not None:
        figures.update(gum_figures(gum))
    figures["bench_peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    figures["test_sentences"] = len(test)
    for line in format_figures(figures):
        out(line)
    return figures


_READS = {"projection": "the rule-based projection's labels, rulebased.py",
          DEPREL_AND_PROJECTION: "the d-parses' labels, deplabels.py, and the rule-based "
                                 "projection's phrases over each span"}


def format_figures(f: dict) -> list[str]:
    """The report lines."""
    lines = [f"test sentences                 {f['test_sentences']}"]
    if f.get("labels"):
        lines.append(f"d-parse labels                 {f['labels']} (the model reads "
                     + _READS.get(f["labels"], "the d-parses' labels, deplabels.py") + ")")
    if "training_seconds" in f:
        lines.append(f"training                       {f['training_sentences']} sentences, "
                     f"{f['training_seconds']:.1f} s")
    for name in ("exact", "pruned"):
        lines.append(
            f"{name:<7}F1 {f[f'{name}_f1']:6.2f}  P {f[f'{name}_precision']:6.2f}  "
            f"R {f[f'{name}_recall']:6.2f}  parsed {f[f'{name}_parsed']}/{f['test_sentences']}"
            f"  decoder {f[f'{name}_decoder_sent_per_s']:,.0f} sent/s  passes "
            + ", ".join(f"{k} {v}" for k, v in sorted(f[f"{name}_passes"].items()))
        )
    lines += format_rules(f)
    lines.append(f"candidates (10, pruned)         {f['kbest10_sent_per_s']:,.0f} sent/s")
    lines.append("k-best oracle F1                " + "  ".join(
        f"k={k}: {v:.2f}" for k, v in f["kbest_oracle_f1"].items()))
    lines += [
        f"JIT warm-up (this process)     {f['jit_warmup_seconds']:.2f} s",
        f"pad convert start-up           {f['startup_seconds']:.2f} s (model load + cached JIT)",
        f"pad convert end to end         {f['end_to_end_sent_per_s']:,.0f} sent/s after start-up"
        f" ({f['end_to_end_wall_seconds']:.2f} s wall for the test split 10 times"
        f", {f['convert_jobs']} jobs); {f['distinct_sent_per_s']:,.0f} sent/s on every sentence"
        f" once ({f['distinct_sentences']:,})",
        f"pad convert peak memory        {f['convert_peak_mb']:.0f} MB",
        "flat 300-word sentence         peak {:.0f} MB (1 tree), {:.0f} MB (10 trees), whole "
        "process".format(*f["flat300_peak_mb"]),
        f"bench peak memory              {f['bench_peak_mb']:.0f} MB",
        f"model file                     {f['model_file_mb']:.1f} MB",
    ]
    if "ud_passes" in f:
        lines.append(format_ud(f))
    if "fo_passes" in f:
        lines.append(format_farpahc(f))
    if "gum_f1" in f:
        lines.append(format_gum(f))
    return [re.sub(r"\s+$", "", line) for line in lines]


def format_ud(f: dict) -> str:
    """The UD row (:func:`ud_figures`)."""
    passes = ", ".join(f"{k} {v:,} ({f['ud_ms'][k]:.2f} ms each)"
                       for k, v in sorted(f["ud_passes"].items()))
    return (f"UD: EWT train, english-gum-ud  {f['ud_end_to_end_sent_per_s']:,.0f} sent/s end to "
            f"end after start-up ({f['ud_wall_seconds']:.2f} s wall for {f['ud_sentences']:,} "
            f"sentences, {f['ud_jobs']} jobs); settled by {passes}")
