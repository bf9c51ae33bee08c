"""The models a run converts with, loaded once per worker process and kept for its next
files: the run's model file, or per file the bundled model that fits the file."""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path

from pad_engine.batch.tasks import Task
from pad_engine.decoding.choice import COLLINS_MODEL, FAST_TWIN, UD_MODEL, choose
from pad_engine.decoding.engine import Converter, Engine
from pad_engine.decoding.model import Model
from pad_engine.errors import PadError
from pad_engine.io.gate import open_read
from pad_engine.resources import resource_path

PER_FILE = "per file"  # the model of a run that chooses, for each file, the model fitting it
PER_FILE_FAST = "per file, fast"  # the same, the fitting model's fast twin where it has one
PER_FILE_RUNS = (PER_FILE, PER_FILE_FAST)
_ENGINES: dict[tuple[str, str], Engine] = {}
_ENGINES_LOCK = threading.Lock()


def engine_for(task: Task, sentences: list) -> tuple[Converter, str]:
    """The task's model, loaded once per worker process (and kept for the next files), and
    its name; per file, the one that fits the file's sentences."""
    with _ENGINES_LOCK:
        if task.model in PER_FILE_RUNS:
            choice = choose(sentences, load=_bundled_engine, fast=task.model == PER_FILE_FAST)
            return choice.engine, f"{choice.name} ({choice.reason})"
        key = (task.model, task.sha256)
        if key not in _ENGINES:
            if sha256(Path(task.model)) != task.sha256:
                raise PadError(f"{task.model}: the model file changed during the run")
            keep_engine(key, Engine(Model.load(task.model)))
        return _ENGINES[key], Path(task.model).name


def _bundled_engine(path: Path) -> Engine:
    key = (str(path), PER_FILE)
    if key not in _ENGINES:
        keep_engine(key, Engine.load(path))
    return _ENGINES[key]


def keep_engine(key: tuple[str, str], engine: Engine) -> None:
    """Keep few models per process: the app may run many batches with different models
    (a run that chooses per file needs the two bundled ones)."""
    if len(_ENGINES) >= 2:
        _ENGINES.clear()
    _ENGINES[key] = engine


def bundled_sha256() -> str:
    """One digest of the bundled models: a run choosing per file is up to date only with
    the models it chose from."""
    digest = hashlib.sha256()
    for name in (COLLINS_MODEL, UD_MODEL, *FAST_TWIN.values()):
        digest.update(sha256(resource_path("models", name)).encode())
    return digest.hexdigest()


def sha256(path: Path) -> str:
    """The digest of a model file, which names the model in the state file and the report."""
    digest = hashlib.sha256()
    with open_read(path, "model", None) as f:  # Model.load bounds its size
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
