"""The engine as the app sees it: the one module ``pad_gui`` imports from ``pad_engine``.

Everything here is either a data type that flows between engine and app, or one call per
job the app runs (decode, read, write, choose a model, retrain, convert a folder). Errors
reach the app as :class:`PadError` (or :class:`Cancelled` for a job it cancelled), never as
an exception of some inner layer: the app shows them, it does not interpret them.
``tests/test_architecture.py`` keeps the app to this module.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from pad_engine.errors import InputError, PadError
from pad_engine.trees.lextree import LexNode, Spans

if TYPE_CHECKING:  # what the names below are, for readers, type checkers and the layering
    from pad_engine.batch.folders import convert_folder
    from pad_engine.batch.pool import default_jobs
    from pad_engine.batch.progress import BatchProgress
    from pad_engine.batch.report import FAILED, BatchReport, FileResult
    from pad_engine.decoding.choice import Choice, choose
    from pad_engine.decoding.engine import Candidate, Converter, Engine
    from pad_engine.decoding.model import Model, default_model_path
    from pad_engine.decoding.parser import decoder_cached
    from pad_engine.decoding.rulebased import RuleBasedEngine
    from pad_engine.io.conll import ConllResult, read_conll, write_conll
    from pad_engine.io.gate import (
        check_inputs,
        check_output,
        open_write,
        prepare_outputs,
        read_bytes,
        write_bytes,
        write_text,
    )
    from pad_engine.io.treefiles import DEFAULT_HEADRULES, PSD_HEADRULES, TreeFileResult
    from pad_engine.learning.retrain import (
        LABELS_RECOMMENDED,
        LABELS_WHY,
        Comparison,
        CrossValidation,
        Plan,
    )
    from pad_engine.learning.selection import margin_of, priority
    from pad_engine.learning.train import Cancelled, Progress
    from pad_engine.parsing.adapt import ParserComparison
    from pad_engine.parsing.annotation import TEXT_MODEL, open_for_annotation, read_for_annotation
    from pad_engine.parsing.model import TextModel
    from pad_engine.quality.agreement import agree_trees
    from pad_engine.quality.consistency import Entry as ConsistencyEntry
    from pad_engine.quality.consistency import apply_variant, find_inconsistencies
    from pad_engine.quality.forest import Flat, Treebank
    from pad_engine.quality.forest import Sentence as SearchSentence
    from pad_engine.quality.match import Match, find
    from pad_engine.quality.query import QueryError, parse_query
    from pad_engine.quality.sources import trees_for
    from pad_engine.resources import resource_path
    from pad_engine.significance import CONFIDENCE
    from pad_engine.trees import edits
    from pad_engine.trees.attachment import edited_heads
    from pad_engine.trees.compare import describe as describe_change
    from pad_engine.trees.compare import merged_brackets, removed_brackets
    from pad_engine.trees.deptree import DepSentence, tree_problem
    from pad_engine.trees.headrules import SHIPPED as HEADRULES
    from pad_engine.trees.lextree import induced_heads, strip_label, to_line

# Where each name lives, imported on first use (PEP 562): the app's window comes up without
# the readers of tree files, the quality tools and learning, whose nltk (and with it scipy)
# took most of the 2.4 s ``import pad_engine.api`` cost. A name maps to its module, or to
# (module, name there); a module itself is named with a "" attribute.
_WHERE: dict[str, str | tuple[str, str]] = {
    **dict.fromkeys(("convert_folder",), "pad_engine.batch.folders"),
    **dict.fromkeys(("default_jobs",), "pad_engine.batch.pool"),
    **dict.fromkeys(("BatchProgress",), "pad_engine.batch.progress"),
    **dict.fromkeys(("FAILED", "BatchReport", "FileResult"), "pad_engine.batch.report"),
    **dict.fromkeys(("Choice", "choose"), "pad_engine.decoding.choice"),
    **dict.fromkeys(("Candidate", "Converter", "Engine"), "pad_engine.decoding.engine"),
    **dict.fromkeys(("Model", "default_model_path"), "pad_engine.decoding.model"),
    **dict.fromkeys(("decoder_cached",), "pad_engine.decoding.parser"),
    **dict.fromkeys(("RuleBasedEngine",), "pad_engine.decoding.rulebased"),
    **dict.fromkeys(("ConllResult", "read_conll", "write_conll"), "pad_engine.io.conll"),
    **dict.fromkeys(("check_inputs", "check_output", "open_write", "prepare_outputs",
                     "read_bytes", "write_bytes", "write_text"), "pad_engine.io.gate"),
    **dict.fromkeys(("DEFAULT_HEADRULES", "PSD_HEADRULES", "TreeFileResult"),
                    "pad_engine.io.treefiles"),
    **dict.fromkeys(("LABELS_RECOMMENDED", "LABELS_WHY", "Comparison", "CrossValidation",
                     "Plan"), "pad_engine.learning.retrain"),
    **dict.fromkeys(("margin_of", "priority"), "pad_engine.learning.selection"),
    **dict.fromkeys(("CONFIDENCE",), "pad_engine.significance"),
    **dict.fromkeys(("Cancelled", "Progress"), "pad_engine.learning.train"),
    **dict.fromkeys(("ParserComparison",), "pad_engine.parsing.adapt"),
    **dict.fromkeys(("TEXT_MODEL", "open_for_annotation", "read_for_annotation"),
                    "pad_engine.parsing.annotation"),
    **dict.fromkeys(("TextModel",), "pad_engine.parsing.model"),
    **dict.fromkeys(("agree_trees",), "pad_engine.quality.agreement"),
    **dict.fromkeys(("apply_variant", "find_inconsistencies"), "pad_engine.quality.consistency"),
    "ConsistencyEntry": ("pad_engine.quality.consistency", "Entry"),
    **dict.fromkeys(("Flat", "Treebank"), "pad_engine.quality.forest"),
    "SearchSentence": ("pad_engine.quality.forest", "Sentence"),
    **dict.fromkeys(("Match", "find"), "pad_engine.quality.match"),
    **dict.fromkeys(("QueryError", "parse_query"), "pad_engine.quality.query"),
    **dict.fromkeys(("trees_for",), "pad_engine.quality.sources"),
    **dict.fromkeys(("resource_path",), "pad_engine.resources"),
    "edits": ("pad_engine.trees.edits", ""),
    "describe_change": ("pad_engine.trees.compare", "describe"),
    **dict.fromkeys(("merged_brackets", "removed_brackets"), "pad_engine.trees.compare"),
    **dict.fromkeys(("edited_heads",), "pad_engine.trees.attachment"),
    **dict.fromkeys(("DepSentence", "tree_problem"), "pad_engine.trees.deptree"),
    "HEADRULES": ("pad_engine.trees.headrules", "SHIPPED"),
    **dict.fromkeys(("induced_heads", "strip_label", "to_line"), "pad_engine.trees.lextree"),
}


def __getattr__(name: str) -> Any:
    """A facade name on first use, imported from where it lives (then kept here)."""
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, attribute = (where, name) if isinstance(where, str) else where
    value = importlib.import_module(module)
    if attribute:
        value = getattr(value, attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_WHERE))


# A corrected sentence as the app keeps it: its tree, its words, its DEPREL column.
CorrectedTree = tuple[LexNode, list[str], list[str]]

__all__ = [
    "CONFIDENCE",
    "DEFAULT_HEADRULES",
    "FAILED",
    "HEADRULES",
    "LABELS_RECOMMENDED",
    "LABELS_WHY",
    "PSD_HEADRULES",
    "TEXT_MODEL",
    "BatchProgress",
    "BatchReport",
    "Cancelled",
    "Candidate",
    "Choice",
    "Comparison",
    "ConllResult",
    # treebank quality: search, consistency, agreement
    "ConsistencyEntry",
    "Converter",
    "CorrectedTree",
    "CrossValidation",
    "DepSentence",
    "Engine",
    "FileResult",
    "Flat",
    "InputError",
    "LexNode",
    "Match",
    "Model",
    "PadError",
    "ParserComparison",
    "Plan",
    "Progress",
    "QueryError",
    "RuleBasedEngine",
    "SearchSentence",
    "Spans",
    "TextModel",
    "TreeFileResult",
    "Treebank",
    "adapt_parser",
    "agree_trees",
    "apply_variant",
    "check_inputs",
    "check_output",
    "choose",
    "compare",
    "compare_parsers",
    "convert_folder",
    "cross_validate",
    "decoder_cached",
    "default_jobs",
    "default_model_path",
    "describe_change",
    "edited_heads",
    "edits",
    "find",
    "find_inconsistencies",
    "induced_heads",
    "load_parser",
    "margin_of",
    "merged_brackets",
    "open_for_annotation",
    "open_write",
    "parse_query",
    "plan",
    "predict_arcs",
    "prepare_outputs",
    "priority",
    "read_bytes",
    "read_conll",
    "read_for_annotation",
    "removed_brackets",
    "resource_path",
    "retrain",
    "strip_label",
    "to_line",
    "tree_problem",
    "trees_for",
    "write_bytes",
    "write_conll",
    "write_text",
]


def retrain(trees: list[CorrectedTree], base: Model | None = None, *,
            progress: Callable[[Progress], None] | None = None,
            cancel: Callable[[], bool] | None = None, labels: bool = False,
            pool: Sequence[DepSentence] = ()) -> Model:
    """A model trained on the corrected trees, from scratch (``base`` None) or continuing
    from ``base``; with ``labels`` a model from scratch also reads the DEPREL column, without
    them the rule-based projection of each d-parse; ``pool``: the file's d-parses, whose
    projections widen the grammar of a model from scratch."""
    from pad_engine.learning import retrain as _retrain

    examples = _examples(trees)
    return _guarded(lambda: _retrain.retrain(examples, base, progress=progress, cancel=cancel,
                                             labels="deprel" if labels else "", pool=pool))


def cross_validate(trees: list[CorrectedTree], folds: int, base: Model | None = None, *,
                   progress: Callable[[int, int], None] | None = None,
                   cancel: Callable[[], bool] | None = None,
                   labels: bool = False, pool: Sequence[DepSentence] = ()) -> CrossValidation:
    """k-fold cross-validated F1 of :func:`retrain` on the corrected trees (at least 2)."""
    from pad_engine.learning import retrain as _retrain

    examples = _examples(trees)
    return _guarded(lambda: _retrain.cross_validate(
        examples, folds, base, progress=progress, cancel=cancel,
        labels="deprel" if labels else "", pool=pool))


def plan(base: Model | None = None, labels: bool = False,
         pool: Sequence[DepSentence] = ()) -> Plan:
    """A way to train on corrected trees: from scratch or from ``base``, with the DEPREL
    column read when ``labels`` (a model from scratch only; a base keeps its choice), and
    the file's d-parses ``pool``, whose projections widen the grammar of a model from
    scratch or of a label-free base (as :func:`retrain` trains it)."""
    from pad_engine.learning.retrain import Plan

    if base is not None:
        return Plan(base, "", tuple(pool))
    return Plan(None, "deprel" if labels else "", tuple(pool))


def compare(trees: list[CorrectedTree], folds: int, new: Plan, current: Plan | Model | Converter,
            *, progress: Callable[[int, int], None] | None = None,
            cancel: Callable[[], bool] | None = None) -> Comparison:
    """A new training plan cross-validated beside the model in use, on the same held-out
    corrected trees (a plan is re-run per fold, a model or converter scored as it is)."""
    from pad_engine.learning import retrain as _retrain

    examples = _examples(trees)
    return _guarded(lambda: _retrain.compare(examples, folds, new, current, progress=progress,
                                             cancel=cancel))


def load_parser(name: str | None = None) -> TextModel:
    """A text model: the bundled one by short name (None: :data:`TEXT_MODEL`), or a
    ``.padparser`` file (an untrusted file: a damaged one raises PadError)."""
    from pad_engine.parsing.annotation import TEXT_MODEL
    from pad_engine.parsing.pipeline import load_text_model

    return _guarded(lambda: load_text_model(name or TEXT_MODEL)[0])


def adapt_parser(model: TextModel, sentences: list[DepSentence], *,
                 progress: Callable[[int, int], None] | None = None,
                 cancel: Callable[[], bool] | None = None) -> TextModel:
    """``model``'s d-parser continued on the sentences' (corrected) heads, read with their
    own tags (see ``pad_engine.parsing.adapt``)."""
    from pad_engine.parsing import adapt as _adapt

    return _guarded(lambda: _adapt.adapt(model, _parser_examples(model, sentences),
                                         progress=progress, cancel=cancel))


def compare_parsers(base: TextModel, sentences: list[DepSentence],
                    current: TextModel | None = None, adapted_on: set[int] | None = None, *,
                    progress: Callable[[int, int], None] | None = None,
                    cancel: Callable[[], bool] | None = None) -> ParserComparison:
    """Cross-validated UAS of ``base`` adapted to the corrected sentences against the parser
    in use (``current`` as it is, or ``base`` adapted to the sentences ``adapted_on`` names
    by index, re-run per fold)."""
    from pad_engine.parsing import adapt as _adapt

    return _guarded(lambda: _adapt.compare(base, _parser_examples(base, sentences), current,
                                           adapted_on=adapted_on, progress=progress,
                                           cancel=cancel))


def predict_arcs(model: TextModel, sentences: list[DepSentence]
                 ) -> list[tuple[list[int], list[str]]]:
    """Heads and relations a text model predicts for each sentence, with its own tags."""
    from pad_engine.parsing import adapt as _adapt

    return _guarded(lambda: _adapt.predict(model, sentences))


def _parser_examples(model: TextModel, sentences: list[DepSentence]) -> list:
    from pad_engine.parsing import adapt as _adapt

    return [_adapt.sentence_example(model, s, s.heads) for s in sentences]


def _examples(trees: list[CorrectedTree]) -> list:
    from pad_engine.learning.train import example_from_lextree

    return _guarded(lambda: [example_from_lextree(t, forms, rels) for t, forms, rels in trees])


def _guarded(job: Callable):
    """Run a learning job; its inner errors become one PadError the app can show."""
    from pad_engine.learning.train import Cancelled

    try:
        return job()
    except (PadError, Cancelled):
        raise
    except (ValueError, OSError) as err:
        raise PadError(str(err)) from err
