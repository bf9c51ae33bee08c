"""Reading a text model file (``.padparser``) as untrusted input: every field checked, and
every size checked against its bounds and the file's own bytes before an array is allocated.

The text model's counterpart of :mod:`pad_engine.decoding.model_check`, with the same archive
safeguards (a regular file, bounded members, no pickles, bounded JSON) and one
:class:`ModelError` line for every bad file. A crafted file used to make a 15 MB archive cost
6.4 GB, a list of taggers raise ``AttributeError``, and a label holding a tab write 11-column
CoNLL; so, before anything is inflated or allocated:

- the metadata: format and version; ``parse_column`` and ``arc_column`` among
  ``TAG_COLUMNS``, each with a tagger; ``convention`` among ``CONVENTIONS``; ``taggers`` an
  object of 1..``MAX_TAGS`` tags per column, ``labels`` a list of at most ``MAX_LABELS``, each
  tag or label a string of 1..``MAX_LABEL_CHARS`` characters without white space or control
  characters (they are written into CoNLL columns and Penn lines), none twice;
- ``sizes``: exactly the tables the taggers and labels need, each an integer of the shape its
  reader indexes (``2**bits`` arcs, ``2**bits + tags`` per tagger pass, ``2**bits + labels``
  or 0), bits at most what the trainer writes;
- the archive: exactly those tables' ``NAME.index`` (uint32) and ``NAME.value`` (float32 or
  float16) members; each declares at most the bytes its table can hold, and a table's two
  members at most ``MAX_INFLATION`` times their compressed bytes (the bundled models: 2.7 at
  most; deflate reaches 1,000 on zeros), so the inflated bytes answer to the file's size;
- each table is read and made dense one at a time: indices strictly increasing below its
  size, values finite (the arc filter's whole numbers of words).

The largest file accepted, every page of every table touched, peaks at 421 MB (arcs of
``pad train-deps --bits 26``); the bundled UD model at 244 MB (306 MB before, when every
member was inflated at once).
"""

from __future__ import annotations

import re
import zipfile

import numpy as np

from pad_engine.decoding.model_check import (  # the archive safeguards of the PAD model reader
    _NPY_HEADER_BYTES,
    _Bad,
    _json,
    _members,
    _npy,
    _open_regular,
    _Reading,
    _shown,
    _unique,
    open_zip,
)
from pad_engine.parsing.arcs import FILTER_BITS
from pad_engine.parsing.tagger import DEFAULT_TAGGER_BITS

WHAT = "text model"
TAG_COLUMNS = ("xpos", "upos")
CONVENTIONS = ("collins", "ud")
MAX_META_BYTES = 1 << 20  # the bundled models' metadata: 2 KB
MAX_TAGS = 1024
MAX_LABELS = 1024  # pad train-deps learns at most 200
MAX_LABEL_CHARS = 256
MAX_ARC_BITS = 26  # pad train-deps --bits: 16..26
MAX_TAGGER_BITS = DEFAULT_TAGGER_BITS  # what the trainer writes (no option changes it)
MAX_LABEL_BITS = 20  # the trainer's: 18
MAX_FILTER_SPAN = 1 << 24  # words; float32 holds every whole number up to here
MAX_INFLATION = 16
INFLATION_FLOOR = 1 << 20  # bytes a table may inflate to whatever it compresses to
_LABEL = re.compile(rf"[^\s\x00-\x1f\x7f-\x9f\ud800-\udfff]{{1,{MAX_LABEL_CHARS}}}")
_INDEX, _VALUE = ("<u4",), ("<f4", "<f2")


def read_text_model_file(path: str, fmt: str, version: int) -> tuple[dict, dict[str, np.ndarray]]:
    """The checked metadata and the dense float32 tables (by name) of the text model file at
    ``path``, whose format name must be ``fmt`` and version ``version``; ModelError
    otherwise."""
    with _Reading(path, WHAT), _open_regular(path, WHAT) as f:
        with open_zip(f, 1 + 2 * len(_table_names(TAG_COLUMNS))) as z:
            infos = z.infolist()
            if len(infos) > 1 + 2 * len(_table_names(TAG_COLUMNS)):
                raise _Bad(f"the archive has {len(infos)} members (a text model has at "
                           f"most {1 + 2 * len(_table_names(TAG_COLUMNS))})")
            members = {i.filename: i for i in infos}
        if "meta.npy" not in members:
            raise _Bad(f"not a PAD Studio {WHAT} (no meta)")
        raw = _members(f, {"meta.npy": MAX_META_BYTES + _NPY_HEADER_BYTES}, len(infos))
        meta = _json(_npy(raw.pop("meta.npy"), "meta", ("|u1",)).tobytes())
        check_meta(meta, fmt, version)
        sizes = meta["sizes"]
        expected = {f"{name}.{part}.npy" for name in sizes for part in ("index", "value")}
        extra = sorted(set(members) - expected - {"meta.npy"})
        if extra:
            raise _Bad(f"unexpected archive member {_shown(extra[0])}")
        missing = sorted(expected - set(members))
        if missing:
            raise _Bad(f"the archive has no member {missing[0]} (its sizes name the table)")
        tables = {name: _table(f, members, name, size, len(infos))
                  for name, size in sizes.items()}
    return meta, tables


def check_meta(meta: dict, fmt: str, version: int) -> None:
    """Raise _Bad with the first problem of a text model's metadata."""
    if meta.get("format") != fmt:
        raise _Bad(f"not a PAD Studio {WHAT} (format {_shown(meta.get('format'))})")
    got = meta.get("version")
    if type(got) is not int or got > version:
        raise _Bad(f"{WHAT} format version {_shown(got, 20)} is newer than this PAD Studio "
                   f"understands ({version}); upgrade PAD Studio")
    if got != version:
        raise _Bad(f"{WHAT} format version {got} is older than this PAD Studio's ({version}); "
                   "retrain it with pad train-deps")
    try:
        _check_fields(meta)
    except _Bad as bad:
        raise _Bad(f"damaged {WHAT} metadata: {bad}") from None


def _check_fields(meta: dict) -> None:
    taggers = meta.get("taggers")
    if not isinstance(taggers, dict) or not 1 <= len(taggers) <= len(TAG_COLUMNS):
        raise _Bad(f"taggers must be an object of 1..{len(TAG_COLUMNS)} tag columns, not "
                   f"{_shown(taggers)}")
    for column, tagger in taggers.items():
        _choice(column, "tagger column", TAG_COLUMNS)
        if not isinstance(tagger, dict) or not isinstance(tagger.get("training", {}), dict):
            raise _Bad(f"tagger {column} must be an object with tags and a training record")
        _labels(tagger.get("tags"), f"tag of {column}", 1, MAX_TAGS)
    for key in ("parse_column", "arc_column"):
        if _choice(meta.get(key), key, TAG_COLUMNS) not in taggers:
            raise _Bad(f"{key} {meta[key]} has no tagger")
    _choice(meta.get("convention"), "convention", CONVENTIONS)
    labels = _labels(meta.get("labels"), "label", 0, MAX_LABELS)
    if not isinstance(meta.get("training", {}), dict):
        raise _Bad("training must be a JSON object")
    _check_sizes(meta.get("sizes"), {c: len(t["tags"]) for c, t in taggers.items()},
                 len(labels))


def _check_sizes(sizes: object, tags: dict[str, int], labels: int) -> None:
    """The tables' sizes: exactly those named, each of the shape its reader indexes."""
    if not isinstance(sizes, dict) or set(sizes) != set(_table_names(tags)):
        have = sorted(sizes) if isinstance(sizes, dict) else sizes
        raise _Bad(f"sizes must name the tables {', '.join(_table_names(tags))}, not "
                   f"{_shown(have, 80)}")
    for name, size in sizes.items():
        if type(size) is not int or size < 0:
            raise _Bad(f"size of table {name} must be a whole number, not {_shown(size)}")
    _hashed(sizes["arcs"], "arcs", 0, MAX_ARC_BITS)
    if sizes["filter"] != 1 << FILTER_BITS:
        raise _Bad(f"table filter has {sizes['filter']} entries, not 2**{FILTER_BITS}")
    if labels:
        _hashed(sizes["labels"], "labels", labels, MAX_LABEL_BITS)
    elif sizes["labels"]:
        raise _Bad(f"table labels has {sizes['labels']} entries and no labels")
    for column, count in tags.items():
        first, second = sizes[f"tagger.{column}.1"], sizes[f"tagger.{column}.2"]
        _hashed(first, f"tagger.{column}.1", count, MAX_TAGGER_BITS)
        if second != first:
            raise _Bad(f"table tagger.{column}.2 has {second} entries, its first pass {first}")


def _hashed(size: int, name: str, extra: int, max_bits: int) -> None:
    """A hashed table: 2**bits slots (bits up to ``max_bits``) and ``extra`` more."""
    slots = size - extra
    if slots <= 0 or slots & (slots - 1) or slots > 1 << max_bits:
        more = f" + {extra}" if extra else ""
        raise _Bad(f"table {name} has {size} entries, not 2**bits{more} with bits "
                   f"0..{max_bits}")


def _table_names(tags) -> list[str]:
    return ["arcs", "filter", "labels", *(f"tagger.{c}.{p}" for c in tags for p in (1, 2))]


def _choice(value: object, what: str, choices: tuple[str, ...]) -> str:
    if value not in choices or not isinstance(value, str):
        raise _Bad(f"{what} must be {' or '.join(choices)}, not {_shown(value)}")
    return value


def _labels(value: object, what: str, least: int, most: int) -> list[str]:
    """Tags or labels: strings without white space or control characters, none twice."""
    if not isinstance(value, list) or not least <= len(value) <= most:
        raise _Bad(f"{what}s must be a list of {least}..{most}, not {_shown(value)}")
    for x in value:
        if not isinstance(x, str) or not _LABEL.fullmatch(x):
            raise _Bad(f"{what} {_shown(x)} is not 1..{MAX_LABEL_CHARS} characters without "
                       "white space or control characters")
    _unique(value, what)
    return value


def _table(f, members: dict[str, zipfile.ZipInfo], name: str, size: int, count: int
           ) -> np.ndarray:
    """Table ``name`` made dense from its sparse members, which are first checked to hold
    no more than ``size`` entries and to inflate at most MAX_INFLATION times."""
    index, value = members[f"{name}.index.npy"], members[f"{name}.value.npy"]
    for info in (index, value):
        most = _NPY_HEADER_BYTES + 4 * size
        if info.file_size > most:
            raise _Bad(f"archive member {info.filename} declares {info.file_size} bytes, more "
                       f"than table {name} of {size} entries holds")
    inflated = index.file_size + value.file_size
    packed = index.compress_size + value.compress_size
    if inflated > max(INFLATION_FLOOR, MAX_INFLATION * packed):
        raise _Bad(f"table {name} inflates {packed} bytes to {inflated} (at most "
                   f"{MAX_INFLATION} times)")
    raw = _members(f, {index.filename: index.file_size, value.filename: value.file_size}, count)
    at = _npy(raw[index.filename], f"{name}.index", _INDEX)
    weights = _npy(raw[value.filename], f"{name}.value", _VALUE)
    if at.shape != weights.shape or at.shape[0] > size:
        raise _Bad(f"table {name}: {at.shape[0]} indices, {weights.shape[0]} values, "
                   f"{size} entries")
    if at.shape[0] and (at[-1] >= size or np.any(at[1:] <= at[:-1])):
        raise _Bad(f"table {name}: indices not strictly increasing below its size {size}")
    if not np.all(np.isfinite(weights)):
        raise _Bad(f"table {name} has weights that are not finite")
    if name == "filter" and np.any((weights < 0) | (weights > MAX_FILTER_SPAN)
                                   | (weights != np.floor(weights))):
        raise _Bad(f"table filter holds spans that are not 0..{MAX_FILTER_SPAN} words")
    table = np.zeros(size, np.float32)
    table[at] = weights
    return table
