"""Feature hashing: keyed by the symbols' names, so a grammar that grows keeps every
old score, and written in explicit 64-bit arithmetic, so the kernels run without the JIT."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from copy import deepcopy

import numpy as np
import pytest
from conftest import REPO
from toy import random_projective

from pad_engine.decoding.parser import Parser
from pad_engine.trees.lextree import to_line


def _grown(model, extra: list[str], tags: tuple[str, ...] = ("NEWTAG", "ZZ")):
    """The same model (weights and rules) with unused symbols and tags added to its grammar,
    as continued retraining adds them (a tag gets a pruning row, and shifts the row of
    unknown tags)."""
    grown = deepcopy(model)
    for label in extra:
        grown.grammar.symbol(label)
    for tag in tags:
        grown.grammar.add_tag(tag)
    grown.invalidate()
    return grown


@pytest.mark.parametrize("which", ["random_model", "random_backoff_model",
                                   "random_labeled_model", "random_projection_model"])
def test_unused_symbols_leave_every_score_identical(which, request):
    model = request.getfixturevalue(which)
    grown = _grown(model, ["NEWPHRASE", "@NEWPHRASE>", "XYZ-TAG", "NP+VP"])
    assert grown.packed().nsym == model.packed().nsym + 6
    assert grown.packed().nrows == model.packed().nrows + 2
    rng = random.Random(8)
    before, after = Parser(model), Parser(grown)
    for trial in range(150):
        n = rng.randint(1, 9)
        heads = random_projective(n, rng)
        tags = [rng.choice(["DT", "NN", "VBD", "IN", "JJ", "XX"]) for _ in range(n)]
        rels = [rng.choice(["nsubj", "obj", "_"]) for _ in range(n)]
        forms = [f"u{trial}_{i}" for i in range(n)]
        for prune in (True, False):
            a = before.parse(forms, tags, heads, prune=prune, rels=rels)
            b = after.parse(forms, tags, heads, prune=prune, rels=rels)
            assert (a.score, to_line(a.tree, forms), a.how) == (
                b.score, to_line(b.tree, forms), b.how)
        ka = before.kbest(forms, tags, heads, 5, rels=rels)
        kb = after.kbest(forms, tags, heads, 5, rels=rels)
        assert [(p.score, to_line(p.tree, forms)) for p in ka] == [
            (p.score, to_line(p.tree, forms)) for p in kb]


def test_bundled_model_keeps_its_parses_with_extra_symbols(ptb_dir):
    """The bundled PTB model with unused symbols added: the same tree and score for every
    sentence of a test-split subset, hence the same F1 (hashed by symbol number, one
    extra symbol took exact F1 from 97.52 to 97.29; before format version 4 a new tag
    changed every score)."""
    from pad_engine.decoding.model import Model, default_model_path
    from pad_engine.learning.bench import load_split

    model = Model.load(default_model_path())
    test = load_split(ptb_dir, range(160, 170), "collins")
    before, after = Parser(model), Parser(_grown(model, ["NEWPHRASE", "@NEWPHRASE<"]))
    for ex in test:
        a = before.parse(ex.forms, ex.tags, ex.heads, prune=False)
        b = after.parse(ex.forms, ex.tags, ex.heads, prune=False)
        assert (a.score, to_line(a.tree, ex.forms)) == (b.score, to_line(b.tree, ex.forms))


# Trains a toy model (loss-augmented decoding, feature extraction, updates), then decodes
# 1-best pruned and exact and k-best with labels; prints what it got as JSON.
_PROBE = """
import json, sys
import numpy as np
sys.path.insert(0, sys.argv[1])
from toy import toy_examples
from pad_engine.decoding.parser import Parser
from pad_engine.learning.train import train
from pad_engine.trees.lextree import to_line
exs = toy_examples()
model = train(exs, epochs=2, bits=12, labels="deprel", backoff=True)
weights = model.weights.astype(float).tolist()
parser = Parser(model)
rels = ["nsubj", "obj", "det", "_", "obl", "punct", "root"]
out = []
for ex in exs[:4]:
    r = rels[:len(ex.forms)] + ["_"] * (len(ex.forms) - len(rels))
    for prune in (True, False):
        p = parser.parse(ex.forms, ex.tags, ex.heads, prune=prune, rels=r)
        out.append([p.score, to_line(p.tree, ex.forms), p.how])
    out += [[p.score, to_line(p.tree, ex.forms)] for p in parser.kbest(
        ex.forms, ex.tags, ex.heads, 4, rels=r)]
print(json.dumps({"weights": weights, "parses": out}))
"""


def _probe(disable_jit: bool) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")])
    env.pop("NUMBA_DISABLE_JIT", None)
    if disable_jit:
        env["NUMBA_DISABLE_JIT"] = "1"
    proc = subprocess.run([sys.executable, "-c", _PROBE, str(REPO / "tests")], env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.splitlines()[-1])


def test_kernels_run_without_the_jit_and_agree_with_it():
    """Training and both kernels under NUMBA_DISABLE_JIT=1 (plain Python, where hashing
    without explicit 64-bit arithmetic raised an OverflowError) give the compiled results
    exactly."""
    plain, compiled = _probe(True), _probe(False)
    assert np.array_equal(plain["weights"], compiled["weights"])
    assert np.any(compiled["weights"])
    assert plain["parses"] == compiled["parses"]
