"""Shared test fixtures: where the real treebanks live, and skipping when they are absent; the
toy model (trained, as a file, or with random weights); the GUI tests' tiny model, sample copy
and isolated settings."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

# No test fails for being slow on a busy machine: Hypothesis's deadline and its too-slow health
# check time each example, so both are off (speeds belong in ``pad bench``).
settings.register_profile("untimed", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("untimed")

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO.parent / "shared" / "data"
PTB_DIR = SHARED_DATA / "ptb-sample"
EWT_DIR = SHARED_DATA / "ud-english-ewt"
GUM_DIR = SHARED_DATA / "gum"
GSD_DIR = SHARED_DATA / "ud-chinese-gsd"
EVALB_DIR = REPO.parent / "shared" / "evalb"


def _need(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"needs the shared treebank data at {path.relative_to(REPO.parent)} (absent)")
    return path


@pytest.fixture(scope="session")
def ptb_dir() -> Path:
    """The Penn Treebank WSJ sample (wsj_0001..0199)."""
    return _need(PTB_DIR)


@pytest.fixture(scope="session")
def ewt_dir() -> Path:
    """UD English EWT r2.16."""
    return _need(EWT_DIR)


@pytest.fixture(scope="session")
def gum_dir() -> Path:
    """GUM train documents: dep/*.conllu paired with const/*.ptb."""
    return _need(GUM_DIR)


@pytest.fixture(scope="session")
def gsd_dir() -> Path:
    """UD Chinese GSD dev and test (Chinese XPOS tags no bundled model knows)."""
    return _need(GSD_DIR)


@pytest.fixture(scope="session")
def conll2007_dir() -> Path:
    """CoNLL 2007 sample: Spanish and Basque CoNLL-X files (several roots, Latin-1 lines)."""
    return _need(SHARED_DATA / "nltk-multilingual" / "conll2007")


@pytest.fixture(scope="session")
def alpino_dir() -> Path:
    """NLTK's Dutch Alpino treebank: alpino.xml, 7,136 dependency-structure trees."""
    return _need(SHARED_DATA / "nltk-multilingual" / "alpino")


@pytest.fixture(scope="session")
def farpahc_dir() -> Path:
    """FarPaHC (Faroese): Penn-Helsinki .psd trees with their UD d-parses."""
    return _need(SHARED_DATA / "farpahc-faroese")


@pytest.fixture(scope="session")
def evalb_dir() -> Path:
    """Gold/test pairs with the reference EVALB (COLLINS.prm) output."""
    return _need(EVALB_DIR)


def _toy_model(epochs: int, **options):
    """The toy treebank's model (tests/toy.py): its grammar, trained for ``epochs``."""
    from toy import toy_examples

    from pad_engine.learning.train import train

    return train(toy_examples(), epochs=epochs, bits=14, **options)


@pytest.fixture(scope="session")
def toy_model():
    """A model trained on the toy treebank: made in a blink, it parses the toy sentences.
    Shared by the whole session, so a test must not change it."""
    return _toy_model(epochs=3)


@pytest.fixture(scope="session")
def toy_model_path(toy_model, tmp_path_factory) -> Path:
    """The toy model as a model file (for the command line, batch and dialogs)."""
    path = tmp_path_factory.mktemp("model") / "toy.padmodel"
    toy_model.save(path)
    return path


def _random_model(backoff: bool, labels: str = ""):
    import numpy as np

    model = _toy_model(epochs=0, backoff=backoff, labels=labels)  # weights are replaced below
    model.weights = np.random.default_rng(7).normal(0, 1, model.weights.shape).astype(np.float32)
    return model


@pytest.fixture(scope="session")
def random_model():
    """A model with the toy grammar and random weights (for exactness tests)."""
    return _random_model(backoff=False)


@pytest.fixture(scope="session")
def random_backoff_model():
    """The same with the back-off rules of ``pad train --backoff`` added to the grammar."""
    return _random_model(backoff=True)


@pytest.fixture(scope="session")
def random_labeled_model():
    """The toy grammar with random weights, reading dependency labels (the label templates)."""
    return _random_model(backoff=False, labels="deprel")


@pytest.fixture(scope="session")
def random_projection_model():
    """The toy grammar with random weights, reading the rule-based projection of each d-parse
    (its labels per word and over each span: the projection templates)."""
    return _random_model(backoff=False, labels="projection")


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory) -> Path:
    """A small model trained once per session on the sample's head-marked trees."""
    from guikit import head_marked

    from pad_engine.learning.train import example_from_lextree, train
    from pad_engine.resources import resource_path

    lines = resource_path("sample", "sample.heads.ptb").read_text().splitlines()
    examples = [example_from_lextree(*head_marked(line)) for line in lines]
    path = tmp_path_factory.mktemp("model") / "tiny.padmodel"
    train(examples, epochs=3, bits=16).save(path)
    return path


@pytest.fixture
def isolated_settings(qapp):
    """QSettings and data folder of a test app, cleared before and after (GUI modules use it
    for every test). Named for this process: the tests run in several at once (pytest-xdist),
    and one's clearing must not wipe what another's test just remembered."""
    from PySide6.QtCore import QSettings, QStandardPaths

    QStandardPaths.setTestModeEnabled(True)
    qapp.setOrganizationName("PAD Studio Tests")
    qapp.setApplicationName(f"PAD Studio Tests {os.getpid()}")
    QSettings().clear()
    yield
    settings = QSettings()
    settings.clear()
    settings.sync()
    Path(settings.fileName()).unlink(missing_ok=True)
    shutil.rmtree(QStandardPaths.writableLocation(QStandardPaths.AppDataLocation),
                  ignore_errors=True)


@pytest.fixture(autouse=True)
def _windows_deleted(request):
    """Close and delete a Qt test's windows when it ends, at a point of our choosing. Left
    to the garbage collector, a window (with its scene, timers and threads) was destroyed
    wherever a later test happened to allocate, once inside Qt's event loop: a segfault that
    ended the whole run."""
    yield
    if "qtbot" not in request.fixturenames:
        return
    import gc

    from PySide6.QtCore import QCoreApplication, QEvent
    from PySide6.QtWidgets import QApplication

    from pad_gui import collector

    qapp = QApplication.instance()
    for widget in qapp.topLevelWidgets():
        if widget.isVisible():
            widget.close()
        widget.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.DeferredDelete)
    collector.uninstall()  # the next window installs it again; plain tests use Python's own
    gc.collect()


@pytest.fixture
def sample(tmp_path) -> Path:
    """A copy of the app's sample treebank that a test may change."""
    from guikit import SAMPLE

    path = tmp_path / "sample.conllu"
    shutil.copy(SAMPLE, path)
    return path
