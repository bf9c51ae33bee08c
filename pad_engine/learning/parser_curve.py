"""How much adapting the d-parser to corrected sentences gains (``pad adapt-parser-curve``):
a text model adapted to N gold d-parses of GUM documents (genres beyond EWT's), scored on
held-out GUM documents with the model's own predicted tags, as the app's Retrain adapts it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pad_engine.parsing.adapt import SETTINGS, ParserExample, Settings, adapt, example_of, uas
from pad_engine.parsing.model import TextModel
from pad_engine.parsing.train import read_treebank

TEST, DEV = 0, 5  # document i is test when i % 10 == TEST, dev when i % 10 == DEV


@dataclass
class CurveRow:
    """UAS (all words) after adapting to ``size`` sentences, averaged over draws."""

    size: int
    uas: float
    draws: list[float]


def split(folder: Path) -> tuple[list[Path], list[Path], list[Path]]:
    """GUM's ``*.conllu`` documents in name order: every 10th for testing, another 10th for
    tuning (dev), the rest to draw corrected sentences from."""
    files = sorted(folder.glob("*.conllu"))
    test = [f for i, f in enumerate(files) if i % 10 == TEST]
    dev = [f for i, f in enumerate(files) if i % 10 == DEV]
    pool = [f for i, f in enumerate(files) if i % 10 not in (TEST, DEV)]
    return test, dev, pool


def tagged_examples(model: TextModel, files: Sequence[Path]) -> list[ParserExample]:
    """The documents' sentences with gold heads and relations and the model's own tags (in
    the app the annotator corrects arcs, the tags stay the predicted ones)."""
    bank = read_treebank([str(f) for f in files])
    return [example_of(model, s.forms, model.tag(s.forms), s.heads, s.rels)
            for s in bank.sentences if s.forms]


def curve(model: TextModel, pool: list[ParserExample], test: list[ParserExample],
          sizes: Sequence[int], draws: int = 3, settings: Settings = SETTINGS,
          say: Callable[[str], None] | None = None) -> tuple[float, list[CurveRow]]:
    """UAS of the model itself, and after adapting to ``size`` sentences drawn at random
    from the pool (``draws`` draws, seeds 0, 1, ...)."""
    right, words = uas(model, test)
    rows = []
    for size in sizes:
        got = []
        for d in range(draws):
            pick = np.random.default_rng(d).choice(len(pool), size, replace=False)
            adapted = adapt(model, [pool[i] for i in pick], settings=settings, seed=d)
            r, n = uas(adapted, test)
            got.append(100 * r / n)
        rows.append(CurveRow(size, float(np.mean(got)), got))
        if say is not None:
            say(f"{size} sentences: {rows[-1].uas:.2f}")
    return 100 * right / words, rows
