"""``pad bench-search``: how fast queries answer over an already-decoded treebank."""

from __future__ import annotations

import argparse

from pad_engine.cli._options import add_encoding

HELP = "Time pad search's queries over decoded trees (reading and indexing timed apart)."

QUERIES = (
    "NP < PP",
    "VP < (VB|VBD|VBZ|VBP . NP)",
    "S < (NP $ VP)",
    "NP !< DT << JJ",
    "/^V/ -nsubj-> NP",
    "VP -obj-> (NP < (DT . NN))",
    "PP <-/^obl|nmod/- __",
    "__ < (NN $ NN)",
)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE",
                        help="Penn files, or CoNLL files with their trees in --trees")
    parser.add_argument("--trees", action="append", default=[], metavar="PENN",
                        help="the converted trees of each CoNLL file (pad convert's output)")
    parser.add_argument("--query", action="append", default=[],
                        help="a query to time (repeatable; default a set of common ones)")
    parser.add_argument("--repeat", type=int, default=3,
                        help="runs per query; the fastest is reported (default 3)")
    add_encoding(parser)


def run(args: argparse.Namespace) -> int:
    import time

    from pad_engine.errors import InputError
    from pad_engine.io.gate import check_inputs
    from pad_engine.quality.forest import Treebank
    from pad_engine.quality.match import find
    from pad_engine.quality.query import parse_query
    from pad_engine.quality.sources import read_sentences

    check_inputs([*args.files, *args.trees])
    if args.repeat < 1:
        raise InputError(f"--repeat must be at least 1, not {args.repeat}")
    patterns = [(q, parse_query(q)) for q in args.query or QUERIES]
    start = time.perf_counter()
    sentences = read_sentences(args.files, args.trees, encoding=args.encoding)
    read = time.perf_counter() - start
    start = time.perf_counter()
    bank = Treebank.of(sentences)
    indexed = time.perf_counter() - start
    nodes = sum(len(f) for f in bank.flats)
    print(f"{len(bank.flats)} sentences, {nodes} nodes: read {read:.2f} s, indexed "
          f"{indexed:.2f} s")
    print(f"{'seconds':>8} {'cpu s':>8} {'matches':>8}  query")
    worst = 0.0
    for text, pattern in patterns:
        best = cpu = float("inf")
        for _ in range(args.repeat):
            start, process = time.perf_counter(), time.process_time()
            count = sum(1 for _ in find(bank, pattern))
            best = min(best, time.perf_counter() - start)
            cpu = min(cpu, time.process_time() - process)
        worst = max(worst, best)
        print(f"{best:8.3f} {cpu:8.3f} {count:8d}  {text}")
    print(f"slowest query: {worst:.3f} s (wall clock; cpu s: this process's own time, "
          "lower when other processes share the cores)")
    return 0
