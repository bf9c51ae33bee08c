"""Crafted model files: every kind of damage answered by one line and a non-zero exit of
``pad convert --model``, never a signal, a traceback, a hang or a memory blow-up.

The corpus is made here from a small trained model (no binary fixture is committed); each
file runs through the real command in a child process (a few processes, each running the
command for several files), so a segfault would show as a negative return code.
"""

from __future__ import annotations

import copy
import io
import json
import os
import subprocess
import sys
import textwrap
import warnings
import zipfile
from itertools import islice, product
from pathlib import Path

import numpy as np
import pytest
from toy import toy_examples

from pad_engine.decoding.capacity import PACK_BUDGET, pack_bytes
from pad_engine.decoding.model import Model
from pad_engine.decoding.model_check import MAX_FEATURE_BITS, MAX_MEMBERS, MAX_TAGS
from pad_engine.errors import ModelError
from pad_engine.io.conll import format_conllx
from pad_engine.learning.train import train

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """A good model: its metadata, weights and file."""
    path = tmp_path_factory.mktemp("base") / "good.padmodel"
    train(toy_examples(), epochs=1, bits=12).save(path)
    with np.load(path) as data:
        meta = json.loads(data["meta"].tobytes())
        weights = data["weights"].copy()
    return meta, weights, path


def npy(array: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, array, allow_pickle=True)
    return buf.getvalue()


def archive(members: list[tuple[str, bytes]], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as z, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a member written twice, on purpose
        for name, data in members:
            z.writestr(name, data)
    return buf.getvalue()


def model_bytes(meta: dict | bytes, weights: np.ndarray) -> bytes:
    text = meta if isinstance(meta, bytes) else json.dumps(meta).encode()
    return archive([("weights.npy", npy(weights)), ("meta.npy", npy(np.frombuffer(text,
                                                                                  np.uint8)))])


def edited(meta: dict, change) -> dict:
    m = copy.deepcopy(meta)
    change(m)
    return m


def grammar(**fields):
    return lambda m: m["grammar"].update(fields)


def damage(meta: dict, weights: np.ndarray, good: bytes) -> dict[str, tuple[bytes, str]]:
    """Kind of damage -> (file bytes, what the one-line answer must say)."""
    g = meta["grammar"]
    nsym = len(g["symbols"])
    meta_npy = npy(np.frombuffer(json.dumps(meta).encode(), np.uint8))

    def with_meta(change, says: str) -> tuple[bytes, str]:
        return model_bytes(edited(meta, change), weights), says

    def raw_meta(text: bytes, says: str) -> tuple[bytes, str]:
        return model_bytes(text, weights), says

    big_header = npy(np.zeros(4, np.float32)).replace(b"(4,)", b"(8589934592,)")
    # weights.npy saying 1000 bytes in both headers: its data inflates past that
    lying = _declared(archive([("weights.npy", npy(np.zeros(1 << 20, np.float32))),
                               ("meta.npy", meta_npy)]), 1000)
    encrypted = bytearray(good)
    for sig, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = encrypted.find(sig)
        encrypted[at + offset] |= 1
    ntags = len(g["tags"])
    more_tags = [f"T{i}" for i in range(MAX_TAGS - ntags)]  # the most tags a model may have
    many = 130_000  # about 2 MB of JSON, and more than the decoder packs over as many tags
    assert pack_bytes(nsym + len(more_tags), MAX_TAGS, many) > PACK_BUDGET

    def extra_rules(m: dict) -> None:
        m["grammar"]["symbols"] += more_tags
        m["grammar"]["tags"] += more_tags
        n = len(m["grammar"]["symbols"])
        rules = product(range(n), range(n), range(n), (0, 1))
        m["grammar"]["binary"] = [list(r) for r in islice(rules, many)]

    return {
        "empty file": (b"", "damaged or not a PAD Studio model"),
        "truncated archive": (good[: len(good) // 2], "damaged or not a PAD Studio model"),
        "random bytes": (bytes(np.random.default_rng(1).integers(0, 256, 5000, np.uint8)),
                         "damaged or not a PAD Studio model"),
        "text file": (b"(TOP (NN x))\n", "damaged or not a PAD Studio model"),
        "no meta member": (archive([("weights.npy", npy(weights))]), "missing weights/meta"),
        "no weights member": (archive([("meta.npy", meta_npy)]), "missing weights/meta"),
        "member twice": (archive([("weights.npy", npy(weights)), ("meta.npy", meta_npy),
                                  ("meta.npy", meta_npy)]), "member twice"),
        "too many members": (archive([("weights.npy", npy(weights)), ("meta.npy", meta_npy)]
                                     + [(f"x{i}.npy", b"") for i in range(MAX_MEMBERS)]),
                             "members"),
        "encrypted member": (bytes(encrypted), "encrypted"),
        "bzip2 member": (archive([("weights.npy", npy(weights)), ("meta.npy", meta_npy)],
                                 zipfile.ZIP_BZIP2), "compression method 12"),
        "weights member declaring 4 GB": (_declared(good, 0xFFFFFFF0), "declares 4294967280"),
        "inflates past its declared size": (lying, "damaged or not a PAD Studio model"),
        "weights not npy": (archive([("weights.npy", b"\x00" * 64), ("meta.npy", meta_npy)]),
                            "damaged or not a PAD Studio model"),
        "npy header declares 2**33 elements": (
            archive([("weights.npy", big_header), ("meta.npy", meta_npy)]),
            "declares 8589934592 elements"),
        "float64 weights": (model_bytes(meta, weights.astype(np.float64)), "expected <f4"),
        "pickled object weights": (archive([("weights.npy", npy(np.array([{}, 1], object))),
                                            ("meta.npy", meta_npy)]), "array of |O"),
        "2-D weights": (model_bytes(meta, weights.reshape(2, -1)), "one dimension"),
        "meta not UTF-8": raw_meta(b"\xff\xfe{}", "not UTF-8"),
        "meta not JSON": raw_meta(b"{format: 1", "not valid JSON"),
        "meta a JSON list": raw_meta(b"[1, 2, 3]", "JSON list, not an object"),
        "200,000 nested brackets": raw_meta(b"[" * 200_000 + b"]" * 200_000, "nests deeper"),
        "40 nested levels in training": with_meta(
            lambda m: m.update(training=json.loads("[" * 40 + "]" * 40)), "nests deeper"),
        "NaN in meta": raw_meta(json.dumps(meta).replace('"alpha": 0.98', '"alpha": NaN')
                                .encode(), "NaN"),
        "huge integer literal": raw_meta(json.dumps(meta).replace(
            '"max_unary": ', '"max_unary": ' + "9" * 5000 + ", \"x\": ").encode(),
            "not valid JSON"),
        "wrong format": with_meta(lambda m: m.update(format="other"), "not a PAD Studio model"),
        "version a string": with_meta(lambda m: m.update(version="2"), "format version must"),
        "version from the future": with_meta(lambda m: m.update(version=99), "newer than"),
        "negative feature_bits": with_meta(lambda m: m.update(feature_bits=-3), "feature_bits"),
        "feature_bits 40": with_meta(lambda m: m.update(feature_bits=40), "feature_bits 40"),
        "feature_bits a float": with_meta(lambda m: m.update(feature_bits=12.0),
                                          "must be an integer"),
        "weights length wrong": (model_bytes(meta, weights[:100]), "expected 2**12"),
        "NaN weight": (model_bytes(meta, np.where(np.arange(weights.size) == 5, np.nan,
                                                  weights).astype(np.float32)), "weight 5"),
        "infinite weight": (model_bytes(meta, np.full_like(weights, np.inf)), "finite"),
        "alpha a string": with_meta(lambda m: m.update(alpha="high"), "alpha"),
        "alpha 7": with_meta(lambda m: m.update(alpha=7), "alpha"),
        "headrules with a newline": with_meta(lambda m: m.update(headrules="a\nb"),
                                              "headrules"),
        "headrules a path out of its folder": with_meta(  # no reaching outside its folder
            lambda m: m.update(headrules="nope/../../etc/passwd"), "headrules must name"),
        "pos_column unknown": with_meta(lambda m: m.update(pos_column="lemma"),
                                        "pos_column must be"),
        "training a list": with_meta(lambda m: m.update(training=[1]), "training"),
        "projection not a label": with_meta(
            lambda m: m["projections"].update(NN=["NP"]), "projection of NN"),
        "phrase label with a bracket": with_meta(
            lambda m: m["grammar"]["symbols"].append("(S"), "not a label"),
        "symbol with white space": with_meta(
            lambda m: m["grammar"]["symbols"].append("N P"), "not a label"),
        "labels from nowhere": with_meta(
            lambda m: m.update(labels={"source": "magic", "known": []}), "source"),
        "grammar missing": with_meta(lambda m: m.pop("grammar"), "grammar missing"),
        "grammar without tags": with_meta(lambda m: m["grammar"].pop("tags"), "no 'tags'"),
        "empty grammar": with_meta(grammar(symbols=[], tags=[], binary=[], unary=[],
                                           binary_tags=[], unary_tags=[], side_counts=[]),
                                   "symbols"),
        "no rules": with_meta(grammar(binary=[], unary=[], binary_tags=[], unary_tags=[]),
                              "no rules"),
        "symbols not starting with TOP": with_meta(
            lambda m: m["grammar"]["symbols"].reverse(), "start with TOP"),
        "symbol index out of range": with_meta(
            lambda m: m["grammar"]["binary"].append([nsym, 1, 1, 0]), f"parent {nsym}"),
        "symbol index 2**40": with_meta(
            lambda m: m["grammar"]["binary"].append([0, 1 << 40, 1, 0]), "1099511627776"),
        "negative unary index": with_meta(
            lambda m: m["grammar"]["unary"].append([-1, 2]), "parent -1"),
        "rule direction 7": with_meta(
            lambda m: m["grammar"]["binary"].append([0, 1, 1, 7]), "direction 7"),
        "rule not a list": with_meta(
            lambda m: m["grammar"]["binary"].append("rule"), "is not a list of 4"),
        "rule index a bool": with_meta(
            lambda m: m["grammar"]["unary"].append([True, 2]), "is not a list of 2"),
        "duplicated rule": with_meta(
            lambda m: m["grammar"]["binary"].append(list(g["binary"][0])), "appears twice"),
        "duplicated tag": with_meta(
            lambda m: m["grammar"]["tags"].append(g["tags"][0]), "appears twice"),
        "tag not a symbol": with_meta(
            lambda m: m["grammar"]["tags"].append("ZZ"), "is not a grammar symbol"),
        "tag row out of range": with_meta(
            lambda m: m["grammar"]["binary_tags"].append([len(g["tags"]), 0]), "tag row"),
        "rule id out of range": with_meta(
            lambda m: m["grammar"]["unary_tags"].append([0, len(g["unary"])]), "rule"),
        "max_unary -5": with_meta(grammar(max_unary=-5), "max_unary -5"),
        "max_unary 10**9": with_meta(grammar(max_unary=10**9), "max_unary 1000000000"),
        "all-zero side counts": with_meta(
            lambda m: m["grammar"]["side_counts"].append([0, 0, 0, 0, 0]), "sum must be"),
        "side count 2**40": with_meta(
            lambda m: m["grammar"]["side_counts"].append([0, 0, 1, 1 << 40, 0]), "left count"),
        "side count row out of range": with_meta(
            lambda m: m["grammar"]["side_counts"].append([0, 10**6, 0, 1, 1]), "left row"),
        f"{200_000} tags": with_meta(grammar(tags=[f"T{i}" for i in range(200_000)]),
                                     f"1..{MAX_TAGS}"),
        "2 MB of rules past the packing budget": with_meta(extra_rules,
                                                           "more than the decoder packs"),
        "too many symbols for the chart": with_meta(
            lambda m: (m["grammar"]["symbols"].extend(f"X{i}" for i in range(4000)),
                       m["grammar"].update(max_unary=16)), "chart cell"),
    }


DRIVER = textwrap.dedent("""
    import contextlib, io, json, resource, sys
    resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))
    from pad_engine.cli import main
    conll, models = sys.argv[1], sys.argv[2:]
    for model in models:
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = main(["convert", conll, "--model", model])
        print(json.dumps([model, code, err.getvalue()]), flush=True)
""")


def run_driver(conll: Path, models: list[Path]) -> list[tuple[str, int, str]]:
    """Run ``pad convert --model M`` for each model in one child process."""
    proc = subprocess.run([sys.executable, "-c", DRIVER, str(conll), *map(str, models)],
                          capture_output=True, text=True, timeout=600, cwd=REPO,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-2000:])
    return [tuple(json.loads(line)) for line in proc.stdout.splitlines()]


def test_crafted_models_each_get_one_line_and_exit_1(base, tmp_path):
    meta, weights, good = base
    kinds = damage(meta, weights, good.read_bytes())
    folder = tmp_path / "models"
    folder.mkdir()
    files = {}
    for i, (kind, (data, says)) in enumerate(kinds.items()):
        files[kind] = (folder / f"m{i:02d}.padmodel", says)
        files[kind][0].write_bytes(data)
    files["a FIFO"] = (folder / "fifo.padmodel", "FIFO")
    os.mkfifo(files["a FIFO"][0])
    files["a folder"] = (folder / "dir.padmodel", "a folder")
    files["a folder"][0].mkdir()
    files["a device"] = (folder / "zero.padmodel", "character device")
    files["a device"][0].symlink_to("/dev/zero")
    files["no such file"] = (folder / "absent.padmodel", "no such model file")
    assert len(files) >= 30
    conll = tmp_path / "in.conll"
    conll.write_text("".join(format_conllx(e.forms, e.tags, e.heads, []) + "\n"
                             for e in toy_examples()[:3]))
    order = [good, *(path for path, _ in files.values())]
    results = {}
    half = len(order) // 2
    for chunk in (order[:half], order[half:]):
        for model, code, err in run_driver(conll, chunk):
            results[model] = (code, err)
    assert results[str(good)][0] == 0, results[str(good)]
    held = 0
    for kind, (path, says) in files.items():
        code, err = results[str(path)]
        lines = err.splitlines()
        assert code == 1, (kind, code, err)
        assert len(lines) == 1, (kind, err)
        assert str(path) in lines[0], (kind, err)
        assert says in lines[0], (kind, says, lines[0])
        assert "Traceback" not in err
        held += 1
    assert held == len(files)


def _declared(good: bytes, size: int) -> bytes:
    """``good`` with the first member (the weights) declaring ``size`` bytes uncompressed."""
    data = bytearray(good)
    for sig, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        at = data.find(sig)
        data[at + offset:at + offset + 4] = size.to_bytes(4, "little")
    return bytes(data)


def test_the_real_command_refuses_a_fifo_and_a_segfaulting_grammar(base, tmp_path):
    """The installed ``pad`` entry point itself, as a user runs it."""
    meta, weights, _ = base
    fifo = tmp_path / "x.padmodel"
    os.mkfifo(fifo)
    bad = tmp_path / "bad.padmodel"
    bad.write_bytes(model_bytes(edited(meta, lambda m: m["grammar"]["binary"].append(
        [len(m["grammar"]["symbols"]) + 5, 0, 0, 0])), weights))
    conll = tmp_path / "in.conll"
    conll.write_text(format_conllx(["a"], ["NN"], [0], []) + "\n")
    for model in (fifo, bad):
        proc = subprocess.run([sys.executable, "-m", "pad_engine", "convert", str(conll),
                               "--model", str(model)], capture_output=True, text=True,
                              timeout=300, cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)})
        assert proc.returncode == 1
        assert len(proc.stderr.splitlines()) == 1
        assert str(model) in proc.stderr


def test_weights_member_is_refused_before_inflating(base, tmp_path):
    """A declared size over the limit is refused from the archive's directory alone."""
    meta, _, _ = base
    meta = edited(meta, lambda m: m.update(feature_bits=MAX_FEATURE_BITS))
    zeros = np.zeros((1 << MAX_FEATURE_BITS) + (1 << 16), np.float32)
    path = tmp_path / "bomb.padmodel"
    path.write_bytes(model_bytes(meta, zeros))
    assert path.stat().st_size < (1 << MAX_FEATURE_BITS) // 8
    with pytest.raises(ModelError, match=r"declares .* bytes uncompressed"):
        Model.load(path)


def test_good_models_still_load(base):
    meta, weights, good = base
    model = Model.load(good)
    assert np.array_equal(model.weights, weights)
    assert model.grammar.symbols == meta["grammar"]["symbols"]


def test_a_model_trained_with_a_table_of_the_users_records_its_name_and_loads(tmp_path):
    """A model records the file name of the user's head table, never a path (a model file
    naming a path is refused, lest it reach outside its folder), so it loads back."""
    from pad_engine.cli import main
    from pad_engine.resources import resource_path

    lines = resource_path("sample", "sample.heads.ptb").read_text().splitlines()[:6]
    trees = tmp_path / "trees.mrg"
    trees.write_text("\n".join(line.replace("*", "") for line in lines) + "\n")
    table = tmp_path / "tables" / "mine.txt"
    table.parent.mkdir()
    table.write_text(resource_path("headrules", "collins.txt").read_text())
    out = tmp_path / "mine.padmodel"
    assert main(["train", str(trees), "-o", str(out), "--headrules", str(table),
                 "--epochs", "1", "--bits", "16"]) == 0
    assert Model.load(out).headrules == "mine.txt"
