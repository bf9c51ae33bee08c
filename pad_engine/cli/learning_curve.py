"""``pad learning-curve``: the paper's low-resource experiment on the Penn Treebank sample,
simulated annotation in two orders on it or on Dutch Alpino, and Retrain's two ways
(continuing from a model or from scratch) compared on it or on GUM."""

from __future__ import annotations

import argparse

HELP = ("F1 on the Penn Treebank sample test split (wsj_0160-0199, gold tags and d-parses) "
        "when retrained on the first N train sentences (wsj_0001-0159); a table and a plot. "
        "--select: simulated annotation in file order or least-sure-first, also on Dutch "
        "Alpino (--alpino). --compare-continued: retrained continuing from a model beside "
        "from scratch, also on GUM's paired c- and d-parses. --adapt: per genre, the first "
        "half's corrections and F1 on the second half, for each way of adapting a model.")

DEFAULT_SIZES = (50, 100, 200, 500, 1000, 2000)
SELECT_SIZES = [25, 50, 100, 200]
TIMED_SIZE = 200
COMPARE_SIZES = [5, 15, 50, 200]
COMPARE_TEST = 300  # test trees at most, spread over the test split
PAIRED_HOLD_OUT = 10  # the bundled UD model was trained with --hold-out 10 (docs/EXPERIMENTS.md)
ALPINO_TEST = 1000  # held-out trees, as pad bench-labels scores on
ADAPT_SIZES = [10, 25, 50, 100, 200]


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--treebank", metavar="DIR",
                        help="folder with wsj_0001.mrg .. wsj_0199.mrg (default: NLTK's "
                             "corpora/treebank/combined, if installed)")
    parser.add_argument("-o", "--output", metavar="PLOT.png",
                        help="write the learning curve as a PNG plot")
    parser.add_argument("--sizes", type=int, nargs="+", metavar="N",
                        help="training sizes (default: 50 100 200 500 1000 2000 and all)")
    parser.add_argument("--headrules", default="collins",
                        help="head table for the gold d-parses (collins)")
    parser.add_argument("--select", choices=["sequential", "uncertain", "both"],
                        help="simulated annotation instead: correct the train split in file "
                             "order or least-sure-first (score margin of the two best trees per "
                             "word), retrain after each batch, print sentences, words and F1")
    parser.add_argument("--alpino", metavar="ALPINO.xml",
                        help="with --select: simulate on Dutch Alpino (NLTK's alpino.xml) "
                             "instead of the PTB sample: trees converted as pad bench-labels "
                             "does (c- and d-parses both from Alpino's dependency structures), "
                             f"the last {ALPINO_TEST} held out, the rest corrected; models read "
                             "the relations; EVALB F1 with punctuation deleted")
    parser.add_argument("--test", type=int, metavar="K",
                        help=f"with --alpino: hold out the last K trees instead of "
                             f"{ALPINO_TEST} (a quicker, rougher figure)")
    parser.add_argument("--labels", action="store_true",
                        help="label the d-parses as the original PAD's scripts do (phrase+"
                             "dependent phrase, e.g. S+NP) and train models that read them")
    parser.add_argument("--compare-continued", action="store_true",
                        help="Retrain's two ways instead, on the first N train sentences (default "
                             "5 15 50 200): continuing from the model (--model, else the bundled "
                             "one that fits the d-parses) and from scratch, scored on at most "
                             f"{COMPARE_TEST} test sentences beside the model itself; rows SIZE "
                             "CONTINUED-F1 SCRATCH-F1. --treebank may also be a folder of const/"
                             "*.ptb paired with dep/*.conllu (GUM): train on the documents "
                             f"`pad train --deps --hold-out {PAIRED_HOLD_OUT}` keeps, test on "
                             "the ones it holds out, against their c-parses; from scratch the "
                             "model reads their DEPREL, as Retrain offers")
    parser.add_argument("--model", metavar="MODEL",
                        help="with --compare-continued or --adapt: the model to continue from")
    parser.add_argument("--adapt", action="store_true",
                        help="corrections that teach: --treebank holds const/NAME.ptb paired "
                             "with dep/NAME.conllu, grouped by genre (the second _-separated "
                             "field of NAME); per group the first half of the sentences "
                             "(documents in name order) is corrected, the second half scored "
                             "(exact decoding). Per size (default 10 25 50 100 200 corrected "
                             "sentences per group): the model alone (--model, else the bundled "
                             "one that fits the d-parses), the projection alone, Retrain's "
                             "default, the other adaptation methods and Retrain from scratch, "
                             "micro-averaged over the groups, with retrain seconds; then one "
                             "line per group")
    parser.add_argument("--groups", nargs="+", metavar="NAME",
                        help="with --adapt: only these groups (e.g. news whow)")
    parser.add_argument("--methods", nargs="+", metavar="NAME",
                        help="with --adapt: compare only these adaptation methods beside "
                             "Retrain's default (names: learning/adaptation.py METHODS; "
                             "'scratch': Retrain from scratch, run when --methods is not "
                             "given); 'none' for the default alone")
    parser.add_argument("--scored", type=int, metavar="K",
                        help="with --adapt: score at most K sentences per group, spread over "
                             "its second half (a quicker, rougher figure)")


def _check_curve(args: argparse.Namespace, paired: bool) -> None:
    """The options a learning curve (not --adapt, not --alpino) refuses together."""
    from pad_engine.errors import InputError

    if args.model and not args.compare_continued:
        raise InputError("--model needs --compare-continued")
    if args.compare_continued and (args.select or args.output):
        raise InputError("--compare-continued prints a table: no --select, no -o")
    if paired and args.labels:
        raise InputError("--labels is for Penn trees: paired d-parses have their own labels")


def run(args: argparse.Namespace) -> int:
    import sys
    import time
    from pathlib import Path

    from pad_engine.errors import InputError
    from pad_engine.io.gate import check_inputs
    from pad_engine.learning.bench import TEST_FILES, TRAIN_FILES, load_split
    from pad_engine.learning.retrain import curve_point, retrain

    if args.sizes and min(args.sizes) < 1:
        raise InputError("--sizes must be positive")
    check_inputs([args.alpino, args.model], [args.treebank])
    _check_alpino(args)
    _check_adapt(args)
    if args.output:
        _need_matplotlib()
    if args.adapt:
        _adapt(args)
        return 0
    if args.alpino:
        _alpino(args.alpino, args.select, args.sizes or SELECT_SIZES, args.test or ALPINO_TEST)
        return 0
    treebank = Path(args.treebank) if args.treebank else _nltk_treebank()
    paired = args.compare_continued and (treebank / "const").is_dir() \
        and (treebank / "dep").is_dir()
    if not paired and not (treebank / "wsj_0001.mrg").exists():
        raise InputError("no wsj_0001.mrg here: not the Penn Treebank sample (nor, with "
                         "--compare-continued, a folder with const/*.ptb and dep/*.conllu)",
                         str(treebank))
    _check_curve(args, paired)
    if args.output:
        from pad_engine.io.gate import prepare_outputs

        prepare_outputs([args.output], [treebank / f"wsj_{n:04d}.mrg"
                                        for n in (*TRAIN_FILES, *TEST_FILES)])
    labels = "phrase" if args.labels else ""
    pairs: list = []  # the train split's pairs (paired folders): their trees are remade
    if paired:
        train, test, pairs = _paired_split(treebank)
    else:
        train = load_split(treebank, TRAIN_FILES, args.headrules, labels)
        test = load_split(treebank, TEST_FILES, args.headrules, labels)
    sizes = args.sizes or (COMPARE_SIZES if args.compare_continued else
                           [*(s for s in DEFAULT_SIZES if s < len(train)), len(train)])
    if max(sizes) > len(train):
        raise InputError(f"--sizes: the train split has only {len(train)} sentences")
    if args.compare_continued:
        what = (f"every {PAIRED_HOLD_OUT}th document, against its c-parses" if paired
                else f"wsj_0160-0199, {args.headrules} heads")
        _compare_continued(train, test, sizes, args.model, "deprel" if paired else labels, what,
                           pairs)
        return 0
    print(f"# {len(test)} test sentences, gold tags and d-parses ({args.headrules} heads"
          + (", labeled as the original PAD's scripts do" if labels else "") + "), exact decoding")
    if args.select:
        _simulate(args.select, train, test, args.sizes or SELECT_SIZES, labels)
        return 0
    print("# SENTENCES\tF1")
    points = []
    for size in sizes:
        point = curve_point(train, test, size, labels=labels)
        points.append(point)
        print(f"{point.size}\t{point.f1:.2f}", flush=True)
        passes = ", ".join(f"{k} {v}" for k, v in sorted(point.hows.items()))
        print(f"pad learning-curve: {size} trees: trained in {point.train_seconds:.1f} s; "
              f"test sentences by decoder pass: {passes}", file=sys.stderr)
    timed = min(TIMED_SIZE, len(train))
    start = time.perf_counter()
    retrain(train[:timed], labels=labels, pool=train)
    print(f"# retrain on {timed} sentences: {time.perf_counter() - start:.2f} s")
    if args.output:
        plot(points, args.output, labeled=bool(labels))
        print(f"pad learning-curve: plot written to {args.output}", file=sys.stderr)
    return 0


def _compare_continued(train: list, test: list, sizes: list[int], model: str | None,
                       labels: str, what: str, pairs: list) -> None:
    """Rows SIZE CONTINUED-F1 SCRATCH-F1: Retrain on the first SIZE train sentences continuing
    from the model, and from scratch (reading labels from ``labels``, as Retrain may), both
    scored on at most COMPARE_TEST test sentences spread over the split, after the model's
    own F1 on them. A model that re-attaches its d-parses continues on the trees of the
    train ``pairs`` made for its re-attached d-parses, as its candidates are, which the
    annotator corrects."""
    import sys

    from pad_engine.learning.pairs import candidate_examples
    from pad_engine.learning.retrain import curve_point, evaluate

    base, name = _base_model(model, train)
    mine = train
    if base.reattach and pairs:
        # twice the trees asked for: a pair whose closest tree cannot be made is skipped
        mine = candidate_examples(pairs[: 2 * max(sizes)], base).examples
    n = min(COMPARE_TEST, len(test))
    kept = [test[i * len(test) // n] for i in range(n)]
    print(f"# {n} of {len(test)} test sentences ({what}), gold tags and d-parses, exact "
          f"decoding; continued from {name}")
    print(f"# {name} itself: F1 {evaluate(base, kept).f1:.2f}", flush=True)
    print("# SIZE\tCONTINUED F1\tSCRATCH F1")
    for size in sizes:
        continued = curve_point(mine, kept, size, base=base)
        scratch = curve_point(train, kept, size, labels=labels)
        print(f"{size}\t{continued.f1:.2f}\t{scratch.f1:.2f}", flush=True)
        print(f"pad learning-curve: {size} trees: trained in {continued.train_seconds:.1f} s "
              f"continued, {scratch.train_seconds:.1f} s from scratch", file=sys.stderr)


def _check_adapt(args: argparse.Namespace) -> None:
    """--groups, --methods and --scored belong to --adapt, which needs a paired folder."""
    from pad_engine.errors import InputError

    own = [name for name, value in (("--groups", args.groups), ("--methods", args.methods),
                                    ("--scored", args.scored)) if value is not None]
    if own and not args.adapt:
        raise InputError(f"{', '.join(own)} need --adapt")
    if not args.adapt:
        return
    if args.scored is not None and args.scored < 1:
        raise InputError("--scored needs a positive K")
    given = [name for name, value in (("--select", args.select), ("-o", args.output),
                                      ("--labels", args.labels),
                                      ("--compare-continued", args.compare_continued)) if value]
    if given:
        raise InputError(f"--adapt prints a table: no {', '.join(given)}")
    if not args.treebank:
        raise InputError("--adapt needs --treebank DIR with const/*.ptb and dep/*.conllu")


def _adapt(args: argparse.Namespace) -> None:
    """The --adapt benchmark (learning/adapt_bench.py) on --treebank's paired files."""
    import sys
    from pathlib import Path

    from pad_engine.errors import InputError
    from pad_engine.learning.adapt_bench import make_groups, read_group_pairs, report
    from pad_engine.learning.adaptation import DEFAULT, METHODS, by_name

    treebank = Path(args.treebank)
    if not (treebank / "const").is_dir() or not (treebank / "dep").is_dir():
        raise InputError("--adapt needs const/*.ptb and dep/*.conllu here", str(treebank))
    named = args.methods if args.methods is not None else [m.name for m in METHODS]
    try:
        methods = [by_name(m) for m in named if m not in ("none", "scratch")]
    except ValueError as err:
        raise InputError(f"--methods: {err} (or scratch, none)") from None
    def warn(message: str) -> None:
        print(f"pad learning-curve: {message}", file=sys.stderr)

    pairs, problems = read_group_pairs(treebank, args.groups or ())
    for problem in problems:
        warn(f"skipped {problem}")
    base, name = _base_model(args.model, [p for ps in pairs.values() for p in ps[:500]])
    groups = make_groups(pairs, base, args.scored or 0, warn)
    if not any(g.correctable and g.scored for g in groups):
        raise InputError("no group has sentences to correct and to score", str(treebank))
    print(f"# {name} adapted per group on its first N correctable sentences, scored on the "
          "second half of each group against its c-parses (gold tags and d-parses, exact "
          "decoding), EVALB F1 micro-averaged over the groups", flush=True)
    report(groups, base, args.sizes or ADAPT_SIZES, methods, DEFAULT,
           scratch_too=args.methods is None or "scratch" in args.methods,
           say=lambda line: print(line, flush=True))


def _base_model(path: str | None, train: list) -> tuple:
    """The model to continue from, and its name: ``path``, else the bundled model that
    fits the train split's d-parses (as the app picks one for a file; examples or pairs)."""
    from pathlib import Path

    from pad_engine.decoding.choice import choose
    from pad_engine.decoding.model import Model
    from pad_engine.errors import InputError

    if path:
        return Model.load(path), Path(path).name
    choice = choose([ex.sentence() for ex in train[:500]])
    if choice.path is None:
        raise InputError(f"no bundled model to continue from: {choice.reason}; give --model")
    return choice.engine.model, choice.name


def _paired_split(treebank) -> tuple[list, list, list]:
    """GUM's layout (const/NAME.ptb with dep/NAME.conllu): the train split is the training
    trees `pad train --deps --hold-out 10` makes of the kept documents (the bundled UD
    model's), the test split the held-out documents' d-parses with their c-parses; and the
    kept documents' pairs."""
    import sys

    from pad_engine.errors import InputError
    from pad_engine.learning.pairs import (
        examples_from_pairs,
        hold_out,
        paired_files,
        read_pairs,
        scored_examples,
    )

    files = paired_files(treebank)
    if len(files) < PAIRED_HOLD_OUT:
        raise InputError(f"{len(files)} tree files in const/: at least {PAIRED_HOLD_OUT} "
                         f"needed (every {PAIRED_HOLD_OUT}th is held out)", str(treebank))
    per_file, problems = read_pairs([str(t) for t, _ in files], [str(d) for _, d in files])
    kept, held = hold_out(per_file, PAIRED_HOLD_OUT)
    made = examples_from_pairs(kept)
    for problem in [*map(str, problems), *made.skipped]:
        print(f"pad learning-curve: skipped {problem}", file=sys.stderr)
    return made.examples, scored_examples(held), kept


def _simulate(select: str, train: list, test: list, sizes: list[int], labels: str,
              delete: tuple[str, ...] = ()) -> None:
    """Both (or one) orders of simulated annotation, as rows ORDER SENTENCES WORDS F1."""
    from pad_engine.learning.selection import simulate

    print("# ORDER\tSENTENCES\tWORDS\tF1")
    for order in ("sequential", "uncertain") if select == "both" else (select,):
        simulate(train, test, sizes, order, labels=labels, delete=delete,
                 progress=lambda s, o=order: print(
                     f"{o}\t{s.sentences}\t{s.words}\t{s.f1:.2f}", flush=True))


def _check_alpino(args: argparse.Namespace) -> None:
    """--alpino is a source for --select alone: refuse the options of the other experiments."""
    from pad_engine.errors import InputError

    if args.test is not None and (not args.alpino or args.test < 1):
        raise InputError("--test needs --alpino and a positive K")
    if not args.alpino:
        return
    if not args.select:
        raise InputError("--alpino needs --select (it simulates annotation only)")
    given = [name for name, value in (("--treebank", args.treebank), ("-o", args.output),
                                      ("--labels", args.labels), ("--model", args.model),
                                      ("--compare-continued", args.compare_continued)) if value]
    if given:
        raise InputError(f"--alpino is the treebank and prints a table: no {', '.join(given)}")


def _alpino(path: str, select: str, sizes: list[int], test_size: int) -> None:
    """Simulated annotation on Dutch Alpino, converted, split and scored as pad bench-labels
    does, so both commands' figures are of the same trees."""
    import sys

    from pad_engine.errors import InputError
    from pad_engine.learning.label_bench import LABELS, PUNCT, example_of, held_out, read_alpino

    trees, problems = read_alpino(path)
    for err in problems:
        print(f"pad learning-curve: skipped {err}", file=sys.stderr)
    if len(trees) < test_size + max(sizes):
        raise InputError(f"{len(trees)} trees: too few to hold out {test_size} and correct "
                         f"{max(sizes)}", path)
    pool, test = held_out(trees, test_size)
    print(f"# {test_size} test sentences: the last of {len(trees)} Dutch Alpino trees, gold "
          "tags and d-parses (c- and d-parses from Alpino's dependency structures), models "
          "reading the relations, EVALB F1 with punctuation deleted, exact decoding")
    _simulate(select, [example_of(t) for t in pool], [example_of(t) for t in test], sizes,
              LABELS, (PUNCT,))


def _nltk_treebank():
    """NLTK's copy of the Penn Treebank sample, or an error saying to give --treebank."""
    from pathlib import Path

    import nltk

    from pad_engine.errors import PadError

    try:
        return Path(nltk.data.find("corpora/treebank/combined"))
    except LookupError:
        raise PadError("no Penn Treebank sample found: give --treebank DIR "
                         "(or install NLTK's 'treebank' corpus)") from None


def _need_matplotlib() -> None:
    """The plot needs matplotlib, an optional extra: say which before the training, not after."""
    from pad_engine.errors import PadError

    try:
        import matplotlib  # noqa: F401 - imported only to see that it is there
    except ImportError:
        raise PadError("-o draws with matplotlib, which is not installed: "
                       "pip install 'pad-studio[plot]'") from None


def plot(points: list, path: str, labeled: bool = False) -> None:
    """F1 against training sentences (log scale), written atomically as a PNG."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    from pad_engine.io.gate import open_write

    fig = Figure(figsize=(6.4, 4.2), dpi=100)
    ax = fig.add_subplot()
    sizes = [p.size for p in points]
    f1s = [p.f1 for p in points]
    ax.plot(sizes, f1s, marker="o")
    for x, y in zip(sizes, f1s):
        ax.annotate(f"{y:.1f}", (x, y), textcoords="offset points", xytext=(0, 6),
                    ha="center", fontsize=8)
    if len(set(sizes)) > 1:
        ax.set_xscale("log")
        ax.minorticks_off()
    ax.set_xticks(sizes, [str(s) for s in sizes])
    ax.set_xlabel("training sentences (Penn Treebank sample, wsj_0001-0159)")
    ax.set_ylabel("F1 on wsj_0160-0199 (gold d-parses" + (", labeled)" if labeled else ")"))
    ax.set_title("PAD learning curve" + (", models reading d-parse labels" if labeled else ""))
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    with open_write(path, "wb") as out:
        out.write(buf.getvalue())
