"""Reading a model file as untrusted input: every field checked before anything uses it.

A ``.padmodel`` travels between people, and the Numba decoder trusts the grammar's indices
(it does not check bounds), so a file must prove itself before :class:`Model` is built from it.
:func:`read_model_file` answers every bad file with one :class:`ModelError` line naming the
file and the problem, and never blocks, inflates without bound or recurses without bound:

- only a regular file is opened (a FIFO, a device or a socket is refused after a ``stat``,
  and the file is opened non-blocking and checked again), of at most ``MAX_FILE_BYTES``;
- the ``.npz`` archive may hold at most ``MAX_MEMBERS`` members; ``weights.npy`` and
  ``meta.npy`` must be stored or deflated, unencrypted, and declare at most their limit
  uncompressed, which is enforced while reading them in bounded chunks (never inflated
  first); their ``.npy`` headers must declare a one-dimensional float32 (weights) or uint8
  (metadata) array whose size is exactly the bytes that follow (no pickles, no objects);
- the metadata is UTF-8 JSON of at most ``MAX_META_BYTES``, nested at most
  ``MAX_JSON_DEPTH`` deep, without NaN or Infinity;
- every field has its type and range: ``feature_bits`` in ``MIN_FEATURE_BITS..
  MAX_FEATURE_BITS`` with exactly 2**bits finite float32 weights; ``alpha`` in 0..1;
  symbols (``TOP`` and ``<unk>`` first, at most ``MAX_SYMBOLS``) and tags (at most
  ``MAX_TAGS``, each a symbol) unique, non-empty, without white space and at most
  ``MAX_LABEL_CHARS`` long, phrase labels also without brackets (they are written into
  Penn lines); binary rules (A, H, M, direction 0 or 1) and unary rules (A, B) with symbol
  indices in range, not repeated, at least one rule in all; tag rows of rules in range;
  attachment-side counts with rows in range, non-negative counts that are not both zero,
  below 2**31; ``max_unary`` in 1..``MAX_UNARY``; dependency labels from a known source,
  at most ``MAX_KNOWN_LABELS``; a re-attachment of the d-parses PAD Studio knows;
- the grammar's sizes are within what the decoder holds (``capacity``: the memory packing
  it takes, a chart cell's width), checked before its tables are read; the same limits
  are what training checks before it trains and saving before it writes
  (:func:`meta_problem`), so no model PAD Studio makes is refused here.
"""

from __future__ import annotations

import io
import itertools
import json
import math
import re
import struct
import zipfile
import zlib

import numpy as np

from pad_engine.decoding.capacity import (
    MAX_RULES,
    MAX_SYMBOLS,
    MAX_TAGS,
    MAX_UNARY,
    grammar_problem,
)
from pad_engine.errors import InputError, ModelError
from pad_engine.io.gate import open_read
from pad_engine.trees.attachment import SCHEMES as REATTACH_SCHEMES

MAX_FILE_BYTES = 256 << 20
MAX_MEMBERS = 8
MAX_DIRECTORY_BYTES = 1 << 20  # a model's central directory: a few hundred bytes
MAX_META_BYTES = 16 << 20  # the bundled UD model's metadata: 0.26 MB
MAX_JSON_DEPTH = 32  # the format itself nests 4 deep
MIN_FEATURE_BITS, MAX_FEATURE_BITS = 8, 24  # pad train writes 16..24
MAX_LABEL_CHARS = 256
MAX_KNOWN_LABELS = 100_000
MAX_COUNT = (1 << 31) - 1
# A model reading DEPREL per word and the rule-based projection's phrases over each span (the
# span templates of features.py): ``pad train --deps --labels --projection``.
DEPREL_AND_PROJECTION = "deprel+projection"
LABEL_SOURCES = ("deprel", "phrase", "projection", DEPREL_AND_PROJECTION)
POS_COLUMNS = ("auto", "xpos", "upos")  # the tag columns read_conll reads (its ``pos``)
_NPY_HEADER_BYTES = 1 << 16
_CHUNK = 1 << 20
# labels go raw into Penn and CoNLL lines: no white space, control character (C0, DEL, C1)
# or lone surrogate (which no UTF-8 file can hold: writing it fails)
_NOT_IN_LABELS = r"\s\x00-\x1f\x7f-\x9f\ud800-\udfff"
_TAG = re.compile(rf"[^{_NOT_IN_LABELS}]{{1,{MAX_LABEL_CHARS}}}")
_PHRASE = re.compile(rf"[^{_NOT_IN_LABELS}()]{{1,{MAX_LABEL_CHARS}}}")
_NAME = re.compile(r"[^\x00-\x1f]{1,4096}")  # a head table's name or path
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')  # linear on valid JSON: every string ends
_OPEN, _CLOSE = np.frombuffer(b"[{", np.uint8), np.frombuffer(b"]}", np.uint8)


class _Bad(Exception):
    """A problem of the file being read (the caller adds the file's name)."""


def read_model_file(path: str, fmt: str, version: int, oldest: int = 1
                    ) -> tuple[dict, np.ndarray]:
    """The checked metadata and float32 weights of the model file at ``path``, whose format
    name must be ``fmt`` and version from ``oldest`` to ``version``; ModelError otherwise."""
    with _Reading(path), _open_regular(path) as f:
        return _checked(f, fmt, version, oldest)


def read_model_bytes(data: bytes, name: str, fmt: str, version: int, oldest: int = 1
                     ) -> tuple[dict, np.ndarray]:
    """:func:`read_model_file` on a model file's bytes held in memory (a project keeps its
    models' bytes), under the same limits; ``name`` says whose bytes in a ModelError."""
    with _Reading(name):
        if len(data) > MAX_FILE_BYTES:
            raise _Bad(f"{len(data)} bytes (at most {MAX_FILE_BYTES} are read)")
        return _checked(io.BytesIO(data), fmt, version, oldest)


def _checked(f: io.BufferedIOBase, fmt: str, version: int, oldest: int
             ) -> tuple[dict, np.ndarray]:
    """What both readers check, on the archive's bytes open as ``f``."""
    limits = {"meta.npy": MAX_META_BYTES + _NPY_HEADER_BYTES,
              "weights.npy": (4 << MAX_FEATURE_BITS) + _NPY_HEADER_BYTES}
    raw = _members(f, limits, MAX_MEMBERS)
    meta = _json(_npy(raw["meta.npy"], "meta", ("|u1",)).tobytes())
    weights = _npy(raw["weights.npy"], "weights", ("<f4", ">f4"))
    check_meta(meta, weights, fmt, version, oldest)
    return meta, np.ascontiguousarray(weights, dtype=np.float32)


class _Reading:
    """Turn the problems of reading ``path`` into one ModelError line naming it."""

    def __init__(self, path: str, what: str = "model"):
        self.path = path
        self.what = what

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind, err, tb) -> bool:
        if err is None or isinstance(err, ModelError):
            return False
        if isinstance(err, _Bad):
            raise ModelError(f"{self.path}: {err}") from None
        if isinstance(err, zipfile.BadZipFile | zlib.error | EOFError | OSError | ValueError
                      | NotImplementedError):
            raise ModelError(f"{self.path}: damaged or not a PAD Studio {self.what} "
                             f"({_shown(str(err), 120)})") from None
        return False


def _open_regular(path: str, what: str = "model") -> io.BufferedReader:
    try:
        return open_read(path, what, MAX_FILE_BYTES)
    except InputError as err:
        raise _Bad(err.problem) from None


def _members(f: io.BufferedReader, limits: dict[str, int], max_members: int
             ) -> dict[str, bytes]:
    """The bytes of the members named in ``limits``, each read in bounded chunks up to its
    limit."""
    with open_zip(f, max_members) as z:
        infos = z.infolist()
        if len(infos) > max_members:
            raise _Bad(f"the archive has {len(infos)} members (at most {max_members} are "
                       "read)")
        names = [i.filename for i in infos]
        if len(set(names)) != len(names):
            raise _Bad("the archive holds a member twice")
        if not set(limits) <= set(names):
            raise _Bad("not a PAD Studio model (missing weights/meta)")
        out = {}
        for name, limit in limits.items():
            info = z.getinfo(name)
            if info.flag_bits & 1:
                raise _Bad(f"archive member {name} is encrypted")
            if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                raise _Bad(f"archive member {name} uses compression method "
                           f"{info.compress_type} (a model uses 0 or 8)")
            if info.file_size > limit:
                raise _Bad(f"archive member {name} declares {info.file_size} bytes "
                           f"uncompressed (at most {limit})")
            parts, size = [], 0
            with z.open(info) as member:
                while chunk := member.read(min(_CHUNK, limit + 1 - size)):
                    parts.append(chunk)
                    size += len(chunk)
                    if size > limit:
                        raise _Bad(f"archive member {name} inflates past {limit} bytes")
            out[name] = b"".join(parts)
    return out


def open_zip(f: io.BufferedReader, max_members: int) -> zipfile.ZipFile:
    """The archive of ``f`` once its end record declares at most ``max_members`` entries and
    a central directory of at most ``MAX_DIRECTORY_BYTES``: :class:`zipfile.ZipFile` reads
    and lists the whole directory when it opens, so 200 MB of five million tiny entries
    would take half a minute and gigabytes before any count could refuse them."""
    f.seek(0, 2)
    size = f.tell()
    # the end record is found as zipfile finds it: last 22 bytes, else the last signature
    # within a 64 KiB comment; a zip64 locator (20 bytes) and record (56) may precede it
    f.seek(max(0, size - (22 + 0xFFFF + 76)))
    tail = f.read()
    at = len(tail) - 22
    if not (at >= 0 and tail[at:at + 4] == b"PK\x05\x06" and tail[-2:] == b"\0\0"):
        at = tail.rfind(b"PK\x05\x06", max(0, len(tail) - (22 + 0xFFFF)))
    if at >= 0 and len(tail) - at >= 22:
        entries, directory = struct.unpack_from("<HL", tail, at + 10)
        record = at - 76
        if record >= 0 and tail[at - 20:at - 16] == b"PK\x06\x07" \
                and tail[record:record + 4] == b"PK\x06\x06":
            entries, directory = struct.unpack_from("<QQ", tail, record + 32)
        if entries > max_members:
            raise _Bad(f"the archive has {entries} members (at most {max_members} are read)")
        if directory > MAX_DIRECTORY_BYTES:
            raise _Bad(f"the archive's directory is {directory} bytes (at most "
                       f"{MAX_DIRECTORY_BYTES} are read)")
    f.seek(0)
    return zipfile.ZipFile(f)


def _npy(raw: bytes, name: str, dtypes: tuple[str, ...]) -> np.ndarray:
    """A one-dimensional array of one of ``dtypes`` from ``.npy`` bytes, without copying."""
    fp = io.BytesIO(raw)
    fmt = np.lib.format
    magic = fmt.read_magic(fp)
    if magic == (1, 0):
        shape, fortran, dtype = fmt.read_array_header_1_0(fp, _NPY_HEADER_BYTES)
    elif magic == (2, 0):
        shape, fortran, dtype = fmt.read_array_header_2_0(fp, _NPY_HEADER_BYTES)
    else:
        raise _Bad(f"{name}: .npy format version {magic} (a model uses 1.0)")
    if dtype.hasobject or dtype.str not in dtypes:
        raise _Bad(f"{name}: array of {dtype.str} (expected {' or '.join(dtypes)})")
    if len(shape) != 1 or fortran:
        raise _Bad(f"{name}: array of shape {_shown(shape)} (expected one dimension)")
    body = len(raw) - fp.tell()
    if shape[0] * dtype.itemsize != body:
        raise _Bad(f"{name}: header declares {shape[0]} elements, the member holds "
                   f"{body // dtype.itemsize}")
    return np.frombuffer(raw, dtype, shape[0], fp.tell())


def _json(raw: bytes) -> dict:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise _Bad("metadata is not UTF-8 text") from None
    try:
        meta = json.loads(text, parse_constant=_constant)
    except RecursionError:
        raise _Bad(f"metadata nests deeper than {MAX_JSON_DEPTH} levels") from None
    except ValueError as err:
        raise _Bad(f"metadata is not valid JSON ({_shown(str(err), 120)})") from None
    if _depth(text) > MAX_JSON_DEPTH:
        raise _Bad(f"metadata nests deeper than {MAX_JSON_DEPTH} levels")
    if not isinstance(meta, dict):
        raise _Bad(f"metadata is a JSON {type(meta).__name__}, not an object")
    return meta


def _constant(name: str) -> float:
    raise _Bad(f"metadata holds {name} (not a finite number)")


def _depth(text: str) -> int:
    """How deep the brackets of valid JSON ``text`` nest (strings left out), in C speed."""
    codes = np.frombuffer(_STRING.sub("", text).encode("utf-8"), np.uint8)
    steps = np.isin(codes, _OPEN).astype(np.int64) - np.isin(codes, _CLOSE)
    return int(np.cumsum(steps).max(initial=0))


def check_meta(meta: dict, weights: np.ndarray, fmt: str, version: int, oldest: int = 1
               ) -> None:
    """Raise _Bad with the first problem of a model's metadata and weights."""
    if meta.get("format") != fmt:
        raise _Bad(f"not a PAD Studio model (format {_shown(meta.get('format'))})")
    got = _int(meta.get("version"), "format version", 1, None)
    if got > version:
        raise _Bad(f"model format version {got} is newer than this PAD Studio understands "
                   f"({version}); upgrade PAD Studio")
    if got < oldest:
        raise _Bad(f"model format version {got} hashes its features in a way this PAD Studio "
                   f"no longer uses (version {oldest} on); retrain the model from its trees "
                   "(pad train, or Retrain in the app)")
    try:
        _check_fields(meta, weights)
    except _Bad as bad:
        raise _Bad(f"damaged model metadata: {bad}") from None


def meta_problem(text: bytes, weights: np.ndarray) -> str | None:
    """What loading would refuse in a model's metadata (its UTF-8 JSON ``text``) and weights
    (one line), or None: what training asks before it trains, and saving before it writes."""
    if len(text) > MAX_META_BYTES:
        return (f"its metadata is {len(text):,} bytes, more than a model file holds "
                f"({MAX_META_BYTES:,})")
    try:
        _check_fields(_json(text), weights)
    except _Bad as bad:
        return str(bad)
    return None


def _check_fields(meta: dict, weights: np.ndarray) -> None:
    bits = _int(meta.get("feature_bits"), "feature_bits", MIN_FEATURE_BITS, MAX_FEATURE_BITS)
    if weights.shape != (1 << bits,):
        raise _Bad(f"weights have {weights.shape[0]} entries, expected 2**{bits}")
    if not np.isfinite(weights).all():
        bad = int(np.flatnonzero(~np.isfinite(weights))[0])
        raise _Bad(f"weight {bad} is {weights[bad]} (weights must be finite)")
    alpha = meta.get("alpha", 0.98)
    if type(alpha) not in (int, float) or not (math.isfinite(alpha) and 0 <= alpha <= 1):
        raise _Bad(f"alpha must be a number in 0..1, not {_shown(alpha)}")
    _check_recorded(meta)
    if not isinstance(meta.get("training", {}), dict):
        raise _Bad("training must be a JSON object")
    projections = meta.get("projections", {})
    if not isinstance(projections, dict) or len(projections) > MAX_SYMBOLS:
        raise _Bad(f"projections must map at most {MAX_SYMBOLS} tags to phrase labels")
    for tag, label in projections.items():
        _label(tag, "projected tag", _TAG)
        _label(label, f"projection of {tag}", _PHRASE)
    if "labels" in meta:
        _check_labels(meta["labels"])
    if meta.get("reattach", "") not in REATTACH_SCHEMES:
        raise _Bad("reattach must be " + " or ".join(repr(x) for x in REATTACH_SCHEMES) +
                   f", not {_shown(meta['reattach'])}")
    grammar = meta.get("grammar")
    if not isinstance(grammar, dict):
        raise _Bad("grammar missing or not a JSON object")
    _check_grammar(grammar)


def _check_recorded(meta: dict) -> None:
    """The head table and tag column a model records: a name, never a path (a shipped
    table's, or the file name of the user's own, which ``pad train`` records; nothing opens
    it from the model), and a known column."""
    headrules = meta.get("headrules", "collins")
    if not isinstance(headrules, str) or not _NAME.fullmatch(headrules) or headrules in (
            ".", "..") or set(headrules) & set("/\\:"):
        raise _Bad("headrules must name a head table (a shipped one, such as collins, or "
                   f"a table file's name without its folder), not {_shown(headrules)}")
    if meta.get("pos_column", "auto") not in POS_COLUMNS:
        raise _Bad(f"pos_column must be {' or '.join(POS_COLUMNS)}, not "
                   f"{_shown(meta['pos_column'])}")


def _check_labels(labels: object) -> None:
    if not isinstance(labels, dict) or labels.get("source") not in LABEL_SOURCES:
        raise _Bad("labels must say their source (" + " or ".join(LABEL_SOURCES) + ")")
    known = labels.get("known")
    if not isinstance(known, list) or len(known) > MAX_KNOWN_LABELS:
        raise _Bad(f"labels.known must list at most {MAX_KNOWN_LABELS} labels")
    _unique([_label(x, "dependency label", _TAG) for x in known], "dependency label")


def _check_grammar(g: dict) -> None:
    missing = [k for k in ("symbols", "tags", "binary", "unary", "binary_tags", "unary_tags",
                           "side_counts", "max_unary") if k not in g]
    if missing:
        raise _Bad(f"grammar has no {missing[0]!r}")
    symbols, tags = g["symbols"], g["tags"]
    if not isinstance(symbols, list) or not 2 <= len(symbols) <= MAX_SYMBOLS:
        raise _Bad(f"grammar symbols must be a list of 2..{MAX_SYMBOLS}")
    if not isinstance(tags, list) or not 1 <= len(tags) <= MAX_TAGS:
        raise _Bad(f"grammar tags must be a list of 1..{MAX_TAGS}")
    _unique([_label(t, "tag", _TAG) for t in tags], "tag")
    tagset = set(tags)
    for s in symbols:
        _label(s, "symbol", _TAG if s in tagset else _PHRASE)
    _unique(symbols, "symbol")
    if symbols[:2] != ["TOP", "<unk>"]:
        raise _Bad(f"grammar symbols must start with TOP, <unk>, not {_shown(symbols[:2])}")
    if not tagset <= set(symbols):
        raise _Bad(f"tag {_shown(next(t for t in tags if t not in set(symbols)))} is not "
                   "a grammar symbol")
    nsym, ntags = len(symbols), len(tags)
    binary = _table(g["binary"], "binary rule", ("parent", "head", "modifier", "direction"),
                    (nsym, nsym, nsym, 2), MAX_RULES)
    unary = _table(g["unary"], "unary rule", ("parent", "child"), (nsym, nsym), MAX_RULES)
    nb, nu = len(binary), len(unary)
    if nb + nu == 0:
        raise _Bad("the grammar has no rules")
    max_unary = _int(g["max_unary"], "max_unary", 1, MAX_UNARY)
    too_large = grammar_problem(nsym, ntags, nb + nu, max_unary)
    if too_large:
        raise _Bad(too_large)
    # (row, rule) pairs and side-count keys are unique: more rows than these must repeat
    _table(g["binary_tags"], "binary rule tag", ("tag row", "rule"), (ntags, nb), ntags * nb)
    _table(g["unary_tags"], "unary rule tag", ("tag row", "rule"), (ntags, nu), ntags * nu)
    sides = _table(g["side_counts"], "side count", ("head row", "left row", "right row",
                   "left count", "right count"),
                   (ntags + 1, ntags + 1, ntags + 1, MAX_COUNT + 1, MAX_COUNT + 1),
                   (ntags + 1) ** 3, key=3)
    if len(sides):
        total = sides[:, 3] + sides[:, 4]
        wrong = np.flatnonzero((total < 1) | (total > MAX_COUNT))
        if len(wrong):
            raise _Bad(f"side count {int(wrong[0])}: counts {sides[wrong[0], 3]} and "
                       f"{sides[wrong[0], 4]} (their sum must be 1..{MAX_COUNT})")


def _table(value: object, what: str, columns: tuple[str, ...], bounds: tuple[int, ...],
           limit: int, key: int | None = None) -> np.ndarray:
    """Rows of integers, column c in 0..bounds[c]-1, no two rows alike in their first
    ``key`` columns (all of them by default), at most ``limit`` rows."""
    width = len(columns)
    if not isinstance(value, list) or len(value) > limit:
        raise _Bad(f"{what}s must be a list of at most {limit}")
    # the checks run in C (``map`` of builtins over up to 10^5 rules: a bundled model's load
    # would take a tenth of a second longer in Python loops); a failing one names the row
    if not set(map(type, value)) <= {list} or not set(map(len, value)) <= {width}:
        i, row = next((i, row) for i, row in enumerate(value)
                      if type(row) is not list or len(row) != width)
        raise _Bad(f"{what} {i}: {_shown(row)} is not a list of {width} integers")
    flat = list(itertools.chain.from_iterable(value))
    if not set(map(type, flat)) <= {int}:
        i = next(i for i, row in enumerate(value) if any(type(x) is not int for x in row))
        raise _Bad(f"{what} {i}: {_shown(value[i])} is not a list of {width} integers")
    if flat and (min(flat) < 0 or max(flat) > MAX_COUNT):
        i = next(i for i, row in enumerate(value) if min(row) < 0 or max(row) > MAX_COUNT)
        c = next(c for c, x in enumerate(value[i]) if not 0 <= x < bounds[c])
        raise _Bad(f"{what} {i}: {columns[c]} {_shown(value[i][c])} is out of range "
                   f"0..{bounds[c] - 1}")
    rows = np.array(flat, dtype=np.int64).reshape(-1, width)
    wrong = rows >= np.array(bounds, dtype=np.int64)
    if wrong.any():
        i, c = (int(x) for x in np.argwhere(wrong)[0])
        raise _Bad(f"{what} {i}: {columns[c]} {rows[i, c]} is out of range 0..{bounds[c] - 1}")
    _unique_rows(rows[:, :key], what)
    return rows


def _unique_rows(keys: np.ndarray, what: str) -> None:
    """:func:`_unique` over the rows of an integer array, in NumPy: as tuples, the 35,000
    rules of the bundled PTB model took a tenth of a second of every load. Names the first
    row, in file order, that an earlier one equals, as :func:`_unique` does."""
    if keys.shape[0] < 2:
        return
    order = np.lexsort(keys.T[::-1])  # stable: equal rows keep their file order
    ordered = keys[order]
    again = (ordered[1:] == ordered[:-1]).all(axis=1)
    if again.any():
        first = int(order[1:][again].min())
        raise _Bad(f"{what} {_shown(tuple(keys[first].tolist()))} appears twice")


def _unique(items: list, what: str) -> None:
    if len(set(items)) != len(items):
        seen: set = set()
        dup = next(x for x in items if x in seen or seen.add(x))
        raise _Bad(f"{what} {_shown(dup)} appears twice")


def _int(value: object, what: str, lo: int, hi: int | None) -> int:
    if type(value) is not int:
        raise _Bad(f"{what} must be an integer, not {_shown(value)}")
    if value < lo or (hi is not None and value > hi):
        raise _Bad(f"{what} {_shown(value)} is out of range {lo}..{hi if hi else ''}")
    return value


def _label(value: object, what: str, pattern: re.Pattern) -> str:
    if not isinstance(value, str) or not pattern.fullmatch(value):
        rule = ("white space or control characters" if pattern is _TAG
                else "white space, control characters or brackets")
        raise _Bad(f"{what} {_shown(value)} is not a label (1..{MAX_LABEL_CHARS} characters "
                   f"without {rule})")
    return value


def _shown(value: object, limit: int = 40) -> str:
    """A value for a one-line message: its repr, cut short."""
    try:
        text = repr(value)
    except ValueError:  # an int too long to print
        text = f"<{type(value).__name__}>"
    text = text.replace("\n", "\\n")
    return text if len(text) <= limit else text[:limit] + "..."
