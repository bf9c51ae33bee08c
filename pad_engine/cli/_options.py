"""Options several commands share (not a command itself: the leading underscore)."""

from __future__ import annotations

import argparse


def add_encoding(parser: argparse.ArgumentParser) -> None:
    """``--encoding``: how the command's input files are decoded."""
    parser.add_argument("--encoding", metavar="NAME",
                        help="decode input files with this encoding (e.g. latin-1, cp1252, "
                             "gb18030); default UTF-8, with lines that are not UTF-8 read in a "
                             "detected encoding and a warning naming it")
