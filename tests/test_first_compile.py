"""What a first start (an empty Numba cache) compiles: nothing for the rule-based projection
of a projective d-parse, whose trees the app shows while the decoder compiles, and the
decoder's chart once for the k best and the best tree alike. Each case runs in a process of
its own on an empty cache, since a test process has the kernels loaded already."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

# Prints, as JSON, the Numba functions compiled by each step: steps are Python statements
# run in order, with the sentences of the file named by argv[1] as `sents`.
RECORD = """
import json, sys
from numba.core import event
from pad_engine.api import Engine, RuleBasedEngine, decoder_cached, read_conll
sents = read_conll(sys.argv[1]).sentences
model = sys.argv[2]
out = []
for step in sys.argv[3:]:
    with event.install_recorder("numba:compile") as rec:
        value = eval(step)
    out.append([[e.data["dispatcher"].py_func.__name__ for _, e in rec.buffer if e.is_start],
                value if isinstance(value, bool) else None])
print(json.dumps(out))
"""


def compiled(cache: Path, sample: Path, model: Path, *steps: str) -> list:
    """Per step: the names of the functions it compiled, and its value when a bool."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": str(REPO)}
    env.pop("NUMBA_DISABLE_JIT", None)
    done = subprocess.run([sys.executable, "-c", RECORD, str(sample), str(model), *steps],
                          env=env, capture_output=True, text=True, timeout=600, check=True)
    return json.loads(done.stdout.splitlines()[-1])


def test_the_projection_compiles_nothing_on_a_first_start(tmp_path, sample, tiny_model):
    from pad_engine.api import read_conll
    from pad_engine.trees.deptree import is_projective

    projective = [i for i, s in enumerate(read_conll(sample).sentences)
                  if is_projective(s.heads) and s.heads.count(0) == 1]
    assert len(projective) > 10
    (first, _), = compiled(tmp_path / "cache", sample, tiny_model,
                           f"[RuleBasedEngine().candidates(sents[i]) for i in {projective}]")
    assert first == []


@pytest.mark.slow
def test_the_best_tree_compiles_nothing_more_than_the_k_best(tmp_path, sample, tiny_model):
    cache = tmp_path / "cache"
    steps = compiled(cache, sample, tiny_model, "decoder_cached()",
                     "Engine.load(model).candidates(sents[0], k=10)",
                     "Engine.load(model).best(sents[1])",
                     "Engine.load(model).best_line(sents[2])")
    (_, cached), (kbest, _), (best, _), (line, _) = steps
    assert cached is False
    assert kbest.count("_chart") == 1
    assert best == line == []
    (_, cached), (again, _) = compiled(cache, sample, tiny_model, "decoder_cached()",
                                       "Engine.load(model).candidates(sents[0], k=10)")
    assert cached is True
    assert again == []
