"""``pad search``: find every instance of a construction in c-trees and d-parses together."""

from __future__ import annotations

import argparse

from pad_engine.cli._options import add_encoding

HELP = "Find the nodes a Tregex-style query matches in Penn trees and their d-parses."

DESCRIPTION = HELP + """

Nodes: NP (a label, with or without function tags), NP|VP, /regex/ (searched in the full
label), __ (any node), !NP (any but NP); words are nodes too (under their tag). Name a node
with NP=subj and refer to it again with =subj.
Relations, each about the first node (A < B < C: A has a B child and a C child; nest with
parentheses, A < (B < C)); ! before one negates it:
  A < B  B is a child of A         A << B  B is a descendant of A
  A > B  B is A's parent           A >> B  B is an ancestor of A
  A $ B  B is a sister of A
  A . B  A immediately precedes B  A .. B  A precedes B
  A , B  A immediately follows B   A ,, B  A follows B
Arcs of the d-parse relate nodes by their head words:
  A -rel-> B   B's head word depends on A's with DEPREL rel (or rel:subtype)
  A -/re/-> B  ... with a DEPREL the regex finds;  A --> B  ... with any DEPREL
  A <-rel- B   A's head word depends on B's (also <-/re/- and <--)
Penn files get their d-parse from the head table (DEPREL like S:NP>VP, as pad deps writes);
CoNLL files take their c-trees from --trees (pad convert's output for them) or are decoded.
Example: pad search 'VP < (VB|VBD|VBZ -nsubj-> NP)' en.conllu --trees en.mrg"""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.description = DESCRIPTION
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("query", help="the pattern (quote it for the shell)")
    parser.add_argument("files", nargs="+", metavar="FILE",
                        help="Penn tree files (.mrg/.ptb/.psd) or CoNLL files")
    parser.add_argument("--trees", action="append", default=[], metavar="PENN",
                        help="the c-trees of a CoNLL file (one --trees per CoNLL file, in "
                             "order): its sentences converted, e.g. by pad convert")
    parser.add_argument("--headrules", default="collins",
                        help="head table for Penn files: collins, content, or a path")
    parser.add_argument("--count", action="store_true", help="print only the count")
    add_encoding(parser)


def run(args: argparse.Namespace) -> int:
    import sys

    from pad_engine.io.gate import check_inputs
    from pad_engine.quality.forest import Treebank
    from pad_engine.quality.match import find
    from pad_engine.quality.query import parse_query
    from pad_engine.quality.sources import read_sentences
    from pad_engine.trees.headrules import SHIPPED

    # a head table named by its path is a file read too (a shipped one is named)
    check_inputs([*args.files, *args.trees,
                  *([] if args.headrules in SHIPPED else [args.headrules])])
    pattern = parse_query(args.query)  # before the files are read: a typo fails fast
    bank = Treebank.of(read_sentences(args.files, args.trees, args.headrules, args.encoding,
                                      lambda note: print(f"pad search: {note}",
                                                         file=sys.stderr)))
    count, sentences = 0, set()
    out = sys.stdout
    for match in find(bank, pattern):
        count += 1
        sentences.add(match.sentence)
        if args.count:
            continue
        flat = bank.flats[match.sentence]
        s = flat.sentence
        named = "".join(f"  ={name}: {flat.penn(node)}" for name, node in
                        sorted(match.names.items()))
        out.write(f"{s.file}:{s.number}: {flat.penn(match.node)}{named}\n")
    out.write(f"{count} matches in {len(sentences)} of {len(bank.flats)} sentences\n")
    return 0
