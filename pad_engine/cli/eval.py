"""``pad eval``: score parses against gold, with EVALB's own output format or UAS/LAS."""

from __future__ import annotations

import argparse

from pad_engine.cli._options import add_encoding

HELP = "Score trees against gold as EVALB (COLLINS.prm) does, or UAS/LAS with --deps."


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("gold", help="gold trees (bracketed; or CoNLL-X/CoNLL-U with --deps)")
    parser.add_argument("test", help="trees to score, one per gold tree, same words in order")
    parser.add_argument(
        "--deps",
        action="store_true",
        help="compare CoNLL files: attachment scores over all words and without punctuation",
    )
    parser.add_argument(
        "--delete-label", action="append", default=[], metavar="LABEL",
        help="also delete brackets and leaves with this label, as a DELETE_LABEL line of an "
             "EVALB parameter file does (e.g. ROOT for treebanks rooted in ROOT, as COLLINS.prm "
             "deletes TOP); repeatable. The default scores digit for digit like COLLINS.prm",
    )
    add_encoding(parser)


def run(args: argparse.Namespace) -> int:
    from pad_engine.io.gate import check_inputs

    check_inputs([args.gold, args.test])
    if args.deps:
        _run_deps(args.gold, args.test, args.encoding)
    else:
        _run_evalb(args.gold, args.test, args.delete_label, args.encoding)
    return 0


def _run_evalb(gold_path: str, test_path: str, delete: list[str], encoding: str | None
               ) -> None:
    import sys

    from pad_engine.errors import InputError
    from pad_engine.learning import evalb

    def warn(note: str) -> None:
        print(f"pad eval: {note}", file=sys.stderr)

    gold = evalb.read_trees(gold_path, encoding, warn)
    test = evalb.read_trees(test_path, encoding, warn)
    if len(gold) != len(test):
        raise InputError(f"{len(test)} trees here but {len(gold)} in {gold_path}", test_path)
    try:
        report = evalb.score(gold, test, delete)
    except InputError as err:
        raise InputError(f"against {gold_path}: {err.problem}", test_path) from None
    for row in report.rows:
        if row.error:  # EVALB reports these on stderr too; this says which side differs
            print(f"{row.sent_id} : {row.error}: {row.difference}", file=sys.stderr)
    if report.lone_roots:
        fixed = evalb.bracket_f1(evalb.score(gold, test, [*delete, ""]))
    for side, count in report.lone_roots.items():
        other = "test" if side == "gold" else "gold"
        print(f"pad eval: in {count} sentences the {side} tree has an outer "
              f"unlabeled bracket, as in '( (S ...) )', and the {other} tree has none "
              "(rooted in TOP, which COLLINS.prm deletes): EVALB counts it as a bracket "
              f"nothing matches, and so does this score (F-measure "
              f"{evalb.bracket_f1(report):.2f}); with it deleted on both sides "
              f"(--delete-label ''), {fixed:.2f}", file=sys.stderr)
    if report.realigned_words:
        print(f"pad eval: {report.realigned_words} words in {report.realigned_sentences} "
              "sentences are punctuation by the tags of one tree only: deleted by the gold "
              "tree's tags on both sides (EVALB would count those sentences as errors)",
              file=sys.stderr)
    sys.stdout.write(evalb.format_report(report))


def _run_deps(gold_path: str, test_path: str, encoding: str | None) -> None:
    import sys

    from pad_engine.errors import InputError
    from pad_engine.io.conll import read_conll
    from pad_engine.learning.evalb import attachment_scores, is_punct

    read = [read_conll(p, encoding=encoding) for p in (gold_path, test_path)]
    for result in read:
        if result.note:
            print(f"pad eval: {result.note}", file=sys.stderr)
    gold, test = read[0].sentences, read[1].sentences
    if len(gold) != len(test):
        raise InputError(f"{len(test)} sentences here but {len(gold)} in {gold_path}", test_path)
    for i, (g, t) in enumerate(zip(gold, test), 1):
        if g.forms != t.forms:
            if len(g.forms) != len(t.forms):
                why = f"{len(t.forms)} words here but {len(g.forms)}"
            else:
                j = next(j for j, (a, b) in enumerate(zip(g.forms, t.forms)) if a != b)
                why = f"word {j + 1} is {t.forms[j]!r} here but {g.forms[j]!r}"
            raise InputError(
                f"sentence {i}: {why} in {gold_path} (line {g.line})", test_path, t.line
            )
    labeled = _has_rels(gold) and _has_rels(test)
    scores = attachment_scores(
        [s.heads for s in gold],
        [s.heads for s in test],
        [s.rels for s in gold] if labeled else None,
        [s.rels for s in test] if labeled else None,
        punct_mask=[[is_punct(f) for f in s.forms] for s in gold],
    )
    print(f"Sentences  {scores['sentences']:10d}")
    print(f"{'':10} {'all words':>10} {'no punct':>10}")
    print(f"Words      {scores['words']:10d} {scores['words_no_punct']:10d}")
    print(f"UAS        {scores['uas']:10.2f} {scores['uas_no_punct']:10.2f}")
    if labeled:
        print(f"LAS        {scores['las']:10.2f} {scores['las_no_punct']:10.2f}")


def _has_rels(sentences: list) -> bool:
    """Whether a file gives dependency relations at all (CoNLL writes '_' when it has none)."""
    return all(len(s.rels) == len(s.forms) for s in sentences) and any(
        r != "_" for s in sentences for r in s.rels
    )
