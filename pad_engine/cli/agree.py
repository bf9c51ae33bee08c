"""``pad agree``: how far two annotations of the same sentences agree, and where not."""

from __future__ import annotations

import argparse

from pad_engine.cli._options import add_encoding

HELP = ("Compare two annotations of the same sentences: bracket F1 and exact match (EVALB), "
        "UAS/LAS, and each disagreement.")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("a", help="Penn trees (or a CoNLL file: arcs only) of annotator A")
    parser.add_argument("b", help="the same sentences as annotated by B (same kind of file)")
    parser.add_argument("--headrules", default="collins",
                        help="head table giving Penn trees their d-parse: collins, content, "
                             "or a path")
    parser.add_argument("--quiet", action="store_true",
                        help="only the overall figures, not every sentence")
    add_encoding(parser)


def run(args: argparse.Namespace) -> int:
    from pad_engine.errors import InputError
    from pad_engine.io.gate import check_inputs
    from pad_engine.quality.sources import is_conll

    check_inputs([args.a, args.b])
    for path in (args.a, args.b):
        if path.lower().endswith(".padproject"):
            raise InputError("a project: export its trees (File > Export Penn Trees) and "
                             "compare those, or use File > Compare With… in the app", path)
    if is_conll(args.a) != is_conll(args.b):
        raise InputError("compare two Penn files or two CoNLL files, not one of each", args.b)
    result = _conll(args) if is_conll(args.a) else _penn(args)
    _print(result, args.quiet)
    return 0


def _penn(args: argparse.Namespace):
    import sys

    from pad_engine.errors import InputError
    from pad_engine.io.penn import normalize, parse_penn
    from pad_engine.learning import evalb
    from pad_engine.quality.agreement import agree_trees
    from pad_engine.trees.headrules import HeadRules, dependencies

    def warn(note: str) -> None:
        print(f"pad agree: {note}", file=sys.stderr)

    rules = HeadRules.load(args.headrules)
    sides = []
    for path in (args.a, args.b):
        lines = evalb.read_trees(path, args.encoding, warn)
        arcs = []
        for line in lines:
            trees = parse_penn(line, path, on_error="skip").trees if line.strip() else []
            norm = normalize(trees[0]) if trees else None
            arcs.append(dependencies(norm, rules)[2:] if norm is not None and len(norm)
                        else ([], []))
        sides.append((lines, arcs))
    (trees_a, arcs_a), (trees_b, arcs_b) = sides
    if len(trees_a) != len(trees_b):
        raise InputError(f"{len(trees_b)} trees here but {len(trees_a)} in {args.a}", args.b)
    return agree_trees(trees_a, trees_b, arcs_a, arcs_b)


def _conll(args: argparse.Namespace):
    from pad_engine.errors import InputError
    from pad_engine.io.conll import read_conll
    from pad_engine.quality.agreement import agree_arcs

    a, b = (read_conll(p, encoding=args.encoding).sentences for p in (args.a, args.b))
    if len(a) != len(b):
        raise InputError(f"{len(b)} sentences here but {len(a)} in {args.a}", args.b)
    for i, (x, y) in enumerate(zip(a, b), 1):
        if x.forms != y.forms:
            raise InputError(f"sentence {i} has other words than in {args.a}", args.b, y.line)
    return agree_arcs([(s.heads, s.rels) for s in a], [(s.heads, s.rels) for s in b])


def _print(result, quiet: bool) -> None:
    trees = result.f1 is not None
    if not quiet:
        print("sentence " + ("   F1  exact " if trees else "") + "  arcs differing")
        for s in result.sentences:
            cols = ""
            if trees:
                cols = (f"{s.f1:6.2f}  {'yes' if s.exact else 'no ':>5} " if s.f1 is not None
                        else f"{'-':>6}  {'-':>5} ")
            print(f"{s.number:8d} {cols}{len(s.arcs):6d}")
    if trees:
        print(f"Bracket F1 {result.f1:.2f}, exact match {result.exact:.2f}% "
              f"(EVALB, COLLINS.prm; {result.report.overall.valid_sentences} sentences scored)")
    print(f"UAS {result.uas:.2f}, LAS {result.las:.2f}")
    differ = [s for s in result.sentences if not s.agrees]
    print(f"{len(differ)} of {len(result.sentences)} sentences differ")
    if quiet:
        return
    for s in differ:
        parts = []
        if s.error:
            parts.append(s.error)
        if s.only_a:
            parts.append("only in A: " + ", ".join(_bracket(x) for x in s.only_a))
        if s.only_b:
            parts.append("only in B: " + ", ".join(_bracket(x) for x in s.only_b))
        if s.arcs:
            parts.append("arcs: " + ", ".join(f"word {m} {x} / {y}" for m, x, y in s.arcs))
        print(f"sentence {s.number}: " + "; ".join(parts))


def _bracket(b: tuple[str, int, int]) -> str:
    return f"{b[0]} {b[1] + 1}-{b[2] + 1}"
