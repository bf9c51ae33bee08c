"""Conversion streams: the CoNLL stream reads what ``read_conll`` reads,
``pad convert`` and ``pad convert-dir`` write a sentence's tree before the rest of the file is
read, so memory does not grow with the file. (Peak memory against file length is a ``pad
bench --memory`` row, not a test.)"""

from __future__ import annotations

import io
import sys

import pytest
from toy import BAD, conll_text, toy_examples

from pad_engine.batch import work
from pad_engine.batch.engines import sha256
from pad_engine.batch.files import first_sentences
from pad_engine.batch.tasks import Task
from pad_engine.cli import main
from pad_engine.errors import InputError
from pad_engine.io.conll import read_conll
from pad_engine.io.conll_stream import ConllStream
from pad_engine.io.encoding import DecodedLines, decode


def _fields(sentences):
    return [(s.forms, s.tags, s.heads, s.rels, s.lines, s.line, s.sent_id) for s in sentences]


def _same_as_read_conll(path, encoding=None, pos="auto"):
    expected = read_conll(path, on_error="skip", encoding=encoding, pos=pos)
    with open(path, "rb") as f:
        stream = ConllStream(f, str(path), pos, encoding)
        items = list(stream)
    sentences = [i for i in items if not isinstance(i, InputError)]
    errors = [i for i in items if isinstance(i, InputError)]
    assert _fields(sentences) == _fields(expected.sentences)
    assert [str(e) for e in errors] == [str(e) for e in expected.skipped]
    assert [i if not isinstance(i, InputError) else None for i in items] == \
        expected.in_file_order()
    assert stream.note == expected.note
    return items


SAMPLE = (conll_text(toy_examples()[:2]) + BAD + conll_text(toy_examples()[2:])).encode()


@pytest.mark.parametrize(("data", "encoding"), [
    (SAMPLE, None),
    (SAMPLE.replace(b"\n", b"\r\n"), None),  # CRLF
    (b"\xef\xbb\xbf" + SAMPLE.rstrip(b"\n"), None),  # a BOM, no final line end
    (SAMPLE.replace(b"dog", b"d\xf6g", 3), None),  # Latin-1 lines among UTF-8 ones
    (SAMPLE.replace(b"man", b"m\xff\xfen"), "utf-8"),  # undecodable in the given encoding
    (SAMPLE.decode().encode("utf-16"), "utf-16"),  # no line end is a byte "\n"
    (b"", None),
    (b"\n \n\n", None),
])
def test_stream_reads_what_read_conll_reads(tmp_path, data, encoding):
    path = tmp_path / "in.conll"
    path.write_bytes(data)
    _same_as_read_conll(path, encoding)


@pytest.mark.parametrize("name", ["en_ewt-ud-dev.conllu", "en_ewt-ud-test.conllu"])
def test_stream_reads_what_read_conll_reads_on_ewt(ewt_dir, name):
    assert len(_same_as_read_conll(ewt_dir / name)) > 2000


def test_stream_reads_what_read_conll_reads_on_basque_latin_1(conll2007_dir):
    _same_as_read_conll(conll2007_dir / "eus.train")
    _same_as_read_conll(conll2007_dir / "eus.train", pos="upos")


class _Pipe(io.RawIOBase):
    """A stream that cannot seek, like standard input from a pipe."""

    def __init__(self, data: bytes):
        self._data = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        chunk = self._data.read(len(buffer))
        buffer[:len(chunk)] = chunk
        return len(chunk)


def test_decoded_lines_of_a_pipe_with_latin_1_lines_are_decode_s():
    data = SAMPLE.replace(b"dog", b"d\xf6g", 3) + b"1\tx\x81\t_\tNN\tNN\t_\t0\troot\t_\t_\n"
    expected = decode(data)
    lines = DecodedLines(io.BufferedReader(_Pipe(data)))
    got = list(lines)
    assert [line for line, _ in got] == expected.text.split("\n")
    assert {n: p for n, (_, p) in enumerate(got, 1) if p} == expected.bad
    assert (lines.encoding, lines.recoded) == (expected.encoding, expected.recoded)


class _Counted(io.RawIOBase):
    """A stream of many sentences that counts the bytes read from it."""

    def __init__(self, data: bytes):
        self._data = io.BytesIO(data)
        self.size = len(data)
        self.read_bytes = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        chunk = self._data.read(min(len(buffer), 4096))
        buffer[:len(chunk)] = chunk
        self.read_bytes += len(chunk)
        return len(chunk)


class _Output(io.StringIO):
    """Standard output that notes how much of the input was read at its first tree."""

    def __init__(self, source: _Counted):
        super().__init__()
        self.source = source
        self.read_at_first_tree: int | None = None

    def write(self, text: str) -> int:
        if self.read_at_first_tree is None and text.strip():
            self.read_at_first_tree = self.source.read_bytes
        return super().write(text)


def test_convert_writes_the_first_tree_before_reading_the_rest(monkeypatch, capsys):
    data = (conll_text(toy_examples()) * 300).encode()
    source = _Counted(data)
    out = _Output(source)
    monkeypatch.setattr(sys, "stdin", type("Stdin", (), {"buffer": io.BufferedReader(source)}))
    monkeypatch.setattr(sys, "stdout", out)
    assert main(["convert", "--rules"]) == 0
    assert out.read_at_first_tree is not None
    assert out.read_at_first_tree < source.size // 10
    assert out.getvalue().count("\n") == 300 * len(toy_examples())


def test_first_sentences_reads_no_further_than_it_needs():
    items = iter([InputError("bad"), *range(10)])
    sample, again = first_sentences(items, 3)
    assert sample == [0, 1, 2]
    assert next(items) == 3  # not read yet
    assert [type(i).__name__ for i in again][:4] == ["InputError", "int", "int", "int"]


class _Positions(io.StringIO):
    """An output that notes where the input file was read to at each write."""

    def __init__(self, opened: list):
        super().__init__()
        self.opened = opened
        self.positions: list[int] = []

    def write(self, text: str) -> int:
        self.positions.append(self.opened[-1].tell())
        return super().write(text)


def test_convert_dir_writes_the_first_tree_before_reading_the_rest(tmp_path, monkeypatch,
                                                                   toy_model_path):
    src = tmp_path / "in.conll"
    src.write_text(conll_text(toy_examples()) * 300 + BAD, encoding="utf-8")
    opened: list = []

    real = work.open_read

    def recorded(path, *args, **kwargs):
        f = real(path, *args, **kwargs)
        if str(path) == str(src):
            opened.append(f)
        return f

    monkeypatch.setattr(work, "open_read", recorded)  # every input goes through the gate
    task = Task(0, str(src), str(tmp_path / "in.mrg"), "in.conll", "in.mrg",
                str(toy_model_path), sha256(toy_model_path), 0, True, "auto")
    out = _Positions(opened)
    result, _ = work.convert_range(task, 0, 1, out, lambda: False, None)
    assert result.converted == 300 * len(toy_examples())
    assert len(result.skipped) == 1
    assert out.getvalue().count("\n") == result.sentences
    assert out.positions[0] < src.stat().st_size // 10  # the first tree before the rest is read


def test_convert_dir_parts_keep_each_malformed_sentence_once(tmp_path, toy_model_path):
    """A large file of malformed sentences only, in parts: each sentence's empty line is
    written once (each part wrote them all, having no sentence to start its range at)."""
    src = tmp_path / "in.conll"
    src.write_text(BAD * 3, encoding="utf-8")
    task = Task(0, str(src), str(tmp_path / "in.mrg"), "in.conll", "in.mrg",
                str(toy_model_path), sha256(toy_model_path), 0, True, "auto")
    text, skipped = "", 0
    for part in range(3):
        out = io.StringIO()
        result, _ = work.convert_range(task, part, 3, out, lambda: False, None)
        text += out.getvalue()
        skipped += len(result.skipped)
    assert (text, skipped) == ("\n\n\n", 3)
