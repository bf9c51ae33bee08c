"""``pad learning-curve``: the paper's low-resource experiment on the Penn Treebank sample."""

from __future__ import annotations

import argparse

HELP = ("F1 on the Penn Treebank sample test split (wsj_0160-0199, gold tags and d-parses) "
        "when retrained on the first N train sentences (wsj_0001-0159); a table and a plot.")

DEFAULT_SIZES = (50, 100, 200, 500, 1000, 2000)
SELECT_SIZES = [25, 50, 100, 200]
TIMED_SIZE = 200


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
    parser.add_argument("--labels", action="store_true",
                        help="label the d-parses as the original PAD's scripts do (phrase+"
                             "dependent phrase, e.g. S+NP) and train models that read them")


def run(args: argparse.Namespace) -> int:
    import sys
    import time
    from pathlib import Path

    from pad_engine.errors import InputError
    from pad_engine.learning.bench import TEST_FILES, TRAIN_FILES, load_split
    from pad_engine.learning.retrain import curve_point, retrain

    treebank = Path(args.treebank) if args.treebank else _nltk_treebank()
    if not (treebank / "wsj_0001.mrg").exists():
        raise InputError("no wsj_0001.mrg here: not the Penn Treebank sample", str(treebank))
    if args.sizes and min(args.sizes) < 1:
        raise InputError("--sizes must be positive")
    if args.output:
        from pad_engine.io.atomic import prepare_output

        prepare_output(args.output, [treebank / f"wsj_{n:04d}.mrg"
                                     for n in (*TRAIN_FILES, *TEST_FILES)])
    labels = "phrase" if args.labels else ""
    train = load_split(treebank, TRAIN_FILES, args.headrules, labels)
    test = load_split(treebank, TEST_FILES, args.headrules, labels)
    sizes = args.sizes or [*(s for s in DEFAULT_SIZES if s < len(train)), len(train)]
    if max(sizes) > len(train):
        raise InputError(f"--sizes: the train split has only {len(train)} sentences")
    print(f"# {len(test)} test sentences, gold tags and d-parses ({args.headrules} heads"
          + (", labeled as the original PAD's scripts do" if labels else "") + "), exact decoding")
    if args.select:
        _simulate(args.select, train, test, args.sizes or SELECT_SIZES)
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
    retrain(train[:timed], labels=labels)
    print(f"# retrain on {timed} sentences: {time.perf_counter() - start:.2f} s")
    if args.output:
        plot(points, args.output, labeled=bool(labels))
        print(f"pad learning-curve: plot written to {args.output}", file=sys.stderr)
    return 0


def _simulate(select: str, train: list, test: list, sizes: list[int]) -> None:
    """Both (or one) orders of simulated annotation, as rows ORDER SENTENCES WORDS F1."""
    from pad_engine.learning.selection import simulate

    print("# ORDER\tSENTENCES\tWORDS\tF1")
    for order in ("sequential", "uncertain") if select == "both" else (select,):
        simulate(train, test, sizes, order, progress=lambda s, o=order: print(
            f"{o}\t{s.sentences}\t{s.words}\t{s.f1:.2f}", flush=True))


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


def plot(points: list, path: str, labeled: bool = False) -> None:
    """F1 against training sentences (log scale), written atomically as a PNG."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    from pad_engine.io.atomic import atomic_open

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
    with atomic_open(path, "wb") as out:
        out.write(buf.getvalue())
