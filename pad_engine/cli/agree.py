"""``pad agree``: how far two annotations of the same sentences agree, and where not."""

from __future__ import annotations

import argparse

from pad_engine.cli._options import add_encoding

HELP = ("Compare two annotations of the same sentences: bracket F1 and exact match (EVALB), "
        "UAS/LAS, and each disagreement.")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("a", help="Penn trees, a project (.padproject) or a CoNLL file (arcs "
                                  "only) of annotator A")
    parser.add_argument("b", help="the same sentences as annotated by B (same kind of file); "
                                  "two projects are compared on the sentences both hold a "
                                  "tree of, paired by sentence")
    parser.add_argument("--headrules", default="collins",
                        help="head table giving Penn trees their d-parse: collins, content, "
                             "or a path")
    parser.add_argument("--quiet", action="store_true",
                        help="only the overall figures, not every sentence")
    add_encoding(parser)


def run(args: argparse.Namespace) -> int:
    from pad_engine.errors import InputError
    from pad_engine.io.gate import check_inputs
    from pad_engine.io.projects import is_project
    from pad_engine.quality.sources import is_conll

    check_inputs([args.a, args.b])
    kinds = [("project" if is_project(p) else "CoNLL" if is_conll(p) else "Penn")
             for p in (args.a, args.b)]
    if kinds[0] != kinds[1]:
        raise InputError(f"compare two files of one kind, not a {kinds[0]} file and a "
                         f"{kinds[1]} file", args.b)
    result = (_projects(args) if kinds[0] == "project" else _conll(args)
              if kinds[0] == "CoNLL" else _penn(args))
    _print(result, args.quiet)
    return 0


def _penn(args: argparse.Namespace):
    import sys

    from pad_engine.errors import InputError
    from pad_engine.learning import evalb

    def warn(note: str) -> None:
        print(f"pad agree: {note}", file=sys.stderr)

    trees_a, trees_b = (evalb.read_trees(p, args.encoding, warn) for p in (args.a, args.b))
    if len(trees_a) != len(trees_b):
        raise InputError(f"{len(trees_b)} trees here but {len(trees_a)} in {args.a}", args.b)
    return _trees(args, trees_a, trees_b)


def _projects(args: argparse.Namespace):
    """Two annotators' projects of the same file: the sentences both made a tree of, paired
    by sentence (the app's key), in A's order."""
    import sys

    from pad_engine.errors import InputError
    from pad_engine.io.projects import read_project_trees

    a, b = read_project_trees(args.a), read_project_trees(args.b)
    by_key = {t.key: t for t in b}
    pairs = [(x, by_key[x.key]) for x in a if x.key in by_key]
    if not pairs:
        raise InputError(f"no sentence holds a tree in both projects ({len(a)} in A, "
                         f"{len(b)} in B)", args.b)
    print(f"pad agree: {len(pairs)} sentences hold a tree in both projects ({len(a)} in A, "
          f"{len(b)} in B); sentences numbered as in the file", file=sys.stderr)
    result = _trees(args, [x.penn for x, _ in pairs], [y.penn for _, y in pairs])
    for row, (x, _) in zip(result.sentences, pairs):
        row.number = x.index + 1
    return result


def _trees(args: argparse.Namespace, trees_a: list[str], trees_b: list[str]):
    """Agreement of two lists of one-line trees, with the d-parses the head table reads off
    them."""
    from pad_engine.io.penn import normalize, parse_penn
    from pad_engine.quality.agreement import agree_trees
    from pad_engine.trees.headrules import HeadRules, dependencies

    rules = HeadRules.load(args.headrules)
    arcs = []
    for path, lines in ((args.a, trees_a), (args.b, trees_b)):
        side = []
        for line in lines:
            trees = parse_penn(line, path, on_error="skip").trees if line.strip() else []
            norm = normalize(trees[0]) if trees else None
            side.append(dependencies(norm, rules)[2:] if norm is not None and len(norm)
                        else ([], []))
        arcs.append(side)
    return agree_trees(trees_a, trees_b, arcs[0], arcs[1])


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
