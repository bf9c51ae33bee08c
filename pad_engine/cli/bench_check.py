"""``pad bench-check``: how many injected bracket errors the consistency check ranks high."""

from __future__ import annotations

import argparse

HELP = ("Inject bracket errors into clean Penn trees and count how many pad check's first "
        "entries find.")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="PENN",
                        help="clean Penn tree files (a folder: its .mrg/.ptb files)")
    parser.add_argument("--rate", type=float, default=0.02,
                        help="share of sentences given one error (default 0.02)")
    parser.add_argument("--top", type=int, default=100,
                        help="entries of the ranked list that count (default 100)")
    parser.add_argument("--seeds", type=int, default=5,
                        help="runs, with seeds 1..N, each injecting anew (default 5)")


def run(args: argparse.Namespace) -> int:
    import random
    import time
    from pathlib import Path

    from pad_engine.errors import InputError
    from pad_engine.io.gate import check_inputs
    from pad_engine.quality.inject import inject
    from pad_engine.quality.scoring import found_errors, penn_files
    from pad_engine.quality.sources import penn_sentences
    from pad_engine.trees.headrules import HeadRules

    # a folder of Penn files, or Penn files: what is not a regular file is asked as a folder
    check_inputs(folders=[p for p in args.files if not Path(p).is_file()])
    if not 0 < args.rate <= 1:
        raise InputError(f"--rate must be in (0, 1], not {args.rate}")
    if args.seeds < 1:
        raise InputError(f"--seeds must be at least 1, not {args.seeds}")
    if args.top < 1:
        raise InputError(f"--top must be at least 1, not {args.top}")
    rules = HeadRules.load("collins")
    clean = [s for path in penn_files(args.files) for s in penn_sentences(path, rules)]
    for s in clean:  # the d-parse is the given input: its relations must not name labels
        s.rels = ["_"] * len(s.forms)
    original = [s.tree for s in clean]
    print(f"{len(clean)} sentences; one error in {args.rate:.0%} of them per run "
          f"(random relabels and re-attachments); found: an entry among the first {args.top} "
          "flags the changed span")
    shares = []
    for seed in range(1, args.seeds + 1):
        trees, injected = inject(original, args.rate, random.Random(seed))
        for s, tree in zip(clean, trees):
            s.tree = tree
        start = time.perf_counter()
        found, entries = found_errors(clean, injected, args.top)
        seconds = time.perf_counter() - start
        kinds = {k: sum(1 for e in injected if e.kind == k) for k in ("relabel", "reattach")}
        hit = {k: sum(1 for e in found if e.kind == k) for k in kinds}
        shares.append(len(found) / len(injected))
        print(f"seed {seed}: found {len(found)} of {len(injected)} ({100 * shares[-1]:.1f}%): "
              f"relabels {hit['relabel']} of {kinds['relabel']}, re-attachments "
              f"{hit['reattach']} of {kinds['reattach']}; {len(entries)} entries flag "
              f"{sum(len(e.suspects) for e in entries)} occurrences; {seconds:.1f} s")
    print(f"mean found: {100 * sum(shares) / len(shares):.1f}%")
    return 0
