"""``pad check``: where the same material was bracketed two ways, most suspicious first."""

from __future__ import annotations

import argparse

from pad_engine.cli._options import add_encoding

HELP = "List material bracketed differently in different sentences, most suspicious first."

DESCRIPTION = HELP + """

Compared across sentences: word n-grams (same words and tags, same tag on either side),
d-subtrees (same shape, tags and, for CoNLL input, relations), a word with its dependents,
and phrases made of the same children. Each entry is a rare variant against the majority,
ranked by how sure it is to be the odd one out (corrected sentences weigh more than machine
ones in a project; a swap of labels seen in many places is taken for a convention)."""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.description = DESCRIPTION
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("files", nargs="+", metavar="FILE",
                        help="Penn tree files, or CoNLL files (with --trees, else decoded)")
    parser.add_argument("--trees", action="append", default=[], metavar="PENN",
                        help="the c-trees of a CoNLL file (one --trees per CoNLL file)")
    parser.add_argument("--top", type=int, default=50, help="entries to list (default 50)")
    parser.add_argument("--headrules", default="collins",
                        help="head table for Penn files: collins, content, or a path")
    add_encoding(parser)


def run(args: argparse.Namespace) -> int:
    import sys

    from pad_engine.errors import InputError
    from pad_engine.io.gate import check_inputs
    from pad_engine.quality.consistency import find_inconsistencies
    from pad_engine.quality.sources import is_conll, read_sentences
    from pad_engine.trees.headrules import SHIPPED

    # a head table named by its path is a file read too (a shipped one is named)
    check_inputs([*args.files, *args.trees,
                  *([] if args.headrules in SHIPPED else [args.headrules])])
    if args.top < 1:
        raise InputError(f"--top must be at least 1, not {args.top}")
    sentences = read_sentences(args.files, args.trees, args.headrules, args.encoding,
                               lambda note: print(f"pad check: {note}", file=sys.stderr))
    # relations read off the trees themselves name the labels in question: not evidence
    use_rels = all(is_conll(p) for p in args.files)
    entries = find_inconsistencies(sentences, use_rels=use_rels, limit=args.top)
    for rank, entry in enumerate(entries, 1):
        print(f"{rank}. {entry.describe()} (score {entry.score:.3f})")
        for occ in entry.suspects[:5]:
            s = sentences[occ.sentence]
            words = " ".join(s.forms[occ.start:occ.end + 1])
            print(f"   {s.file}:{s.number} words {occ.start + 1}-{occ.end + 1}: {words}")
        if len(entry.suspects) > 5:
            print(f"   ... and {len(entry.suspects) - 5} more")
    print(f"{len(entries)} entries over {len(sentences)} sentences")
    return 0
