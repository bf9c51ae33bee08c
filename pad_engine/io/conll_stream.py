"""Reading a CoNLL file one sentence at a time, so that converting it takes memory that does
not grow with its length: ``pad convert`` and ``pad convert-dir`` write each sentence's tree
as soon as it is read, and keep nothing of it afterwards.

The sentences and errors are those :func:`pad_engine.io.conll.read_conll` gives with
``on_error="skip"``, in file order (the tests compare the two on real treebanks).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO

from pad_engine.errors import InputError
from pad_engine.io.conll import _parse_sentence
from pad_engine.io.encoding import DecodedLines
from pad_engine.trees.deptree import DepSentence


class ConllStream:
    """The sentences of a CoNLL binary stream, as they are read: iterating gives each
    sentence, or the ``InputError`` of one that is malformed, in file order (once). ``note``
    says, once all is read, when the file was not (all) UTF-8."""

    def __init__(self, f: BinaryIO, path: str | None, pos: str = "auto",
                 encoding: str | None = None):
        self.path = path
        self.pos = pos
        self._lines = DecodedLines(f, encoding)

    @property
    def note(self) -> str | None:
        return self._lines.warning(self.path)

    def __iter__(self) -> Iterator[DepSentence | InputError]:
        block: list[str] = []
        bad: dict[int, str] = {}
        start = 1  # line number of the block's first line
        for number, (line, problem) in enumerate(self._lines, 1):
            if line and not line.isspace():
                if not block:
                    start = number
                block.append(line)
                if problem is not None:
                    bad[number] = problem
                continue
            if block:
                yield self._sentence(block, start, bad)
                block, bad = [], {}
        if block:
            yield self._sentence(block, start, bad)

    def _sentence(self, block: list[str], start: int, bad: dict[int, str]
                  ) -> DepSentence | InputError:
        try:
            return _parse_sentence(block, start, self.path, self.pos, bad)[0]
        except InputError as err:
            return err
