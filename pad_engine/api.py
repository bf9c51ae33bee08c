"""The engine as the app sees it: the one module ``pad_gui`` imports from ``pad_engine``.

Everything here is either a data type that flows between engine and app, or one call per
job the app runs (decode, read, write, choose a model, retrain, convert a folder). Errors
reach the app as :class:`PadError` (or :class:`Cancelled` for a job it cancelled), never as
an exception of some inner layer: the app shows them, it does not interpret them.
``tests/test_architecture.py`` keeps the app to this module.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pad_engine.batch.folders import convert_folder
from pad_engine.batch.pool import default_jobs
from pad_engine.batch.progress import BatchProgress
from pad_engine.batch.report import FAILED, BatchReport, FileResult
from pad_engine.decoding.choice import Choice, choose
from pad_engine.decoding.engine import Candidate, Converter, Engine
from pad_engine.decoding.model import Model, default_model_path
from pad_engine.decoding.rulebased import RuleBasedEngine
from pad_engine.errors import InputError, PadError
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
from pad_engine.learning import retrain as _retrain
from pad_engine.learning.retrain import Comparison, CrossValidation, Plan
from pad_engine.learning.selection import margin_of, priority
from pad_engine.learning.train import Cancelled, Progress, example_from_lextree
from pad_engine.parsing import adapt as _adapt
from pad_engine.parsing.adapt import ParserComparison
from pad_engine.parsing.annotation import TEXT_MODEL, open_for_annotation, read_for_annotation
from pad_engine.parsing.model import TextModel
from pad_engine.parsing.pipeline import load_text_model
from pad_engine.quality.agreement import agree_trees
from pad_engine.quality.consistency import Entry as ConsistencyEntry
from pad_engine.quality.consistency import apply_variant, find_inconsistencies
from pad_engine.quality.forest import Flat, Treebank
from pad_engine.quality.forest import Sentence as SearchSentence
from pad_engine.quality.match import Match, find
from pad_engine.quality.query import QueryError, parse_query
from pad_engine.quality.sources import trees_for
from pad_engine.resources import resource_path
from pad_engine.trees import edits
from pad_engine.trees.compare import removed_brackets
from pad_engine.trees.deptree import DepSentence, tree_problem
from pad_engine.trees.headrules import SHIPPED as HEADRULES
from pad_engine.trees.lextree import LexNode, induced_heads, to_line

# A corrected sentence as the app keeps it: its tree, its words, its DEPREL column.
CorrectedTree = tuple[LexNode, list[str], list[str]]

__all__ = [
    "DEFAULT_HEADRULES", "HEADRULES", "PSD_HEADRULES", "TreeFileResult",
    "FAILED", "BatchProgress", "BatchReport", "Cancelled", "Candidate", "Choice",
    "Comparison", "ConllResult", "Converter", "CorrectedTree", "CrossValidation",
    "DepSentence", "Engine", "ParserComparison", "Plan", "TEXT_MODEL", "TextModel",
    "adapt_parser", "compare", "compare_parsers", "load_parser", "plan", "predict_arcs",
    "FileResult", "InputError", "LexNode", "Model", "PadError", "Progress", "RuleBasedEngine",
    "check_inputs", "check_output", "choose", "convert_folder", "cross_validate",
    "default_jobs", "default_model_path", "edits", "induced_heads", "margin_of", "priority",
    "open_write", "open_for_annotation", "prepare_outputs", "read_bytes", "read_conll",
    "read_for_annotation", "resource_path", "retrain", "to_line", "tree_problem", "write_bytes",
    "write_conll", "write_text",
    # what a candidate drops of candidate 1, drawn in the parse view
    "removed_brackets",
    # treebank quality: search, consistency, agreement
    "ConsistencyEntry", "Flat", "Match", "QueryError", "SearchSentence", "Treebank", "agree_trees",
    "apply_variant", "find", "find_inconsistencies", "parse_query", "trees_for",
]


def retrain(trees: list[CorrectedTree], base: Model | None = None, *,
            progress: Callable[[Progress], None] | None = None,
            cancel: Callable[[], bool] | None = None, labels: bool = False,
            pool: Sequence[DepSentence] = ()) -> Model:
    """A model trained on the corrected trees, from scratch (``base`` None) or continuing
    from ``base``; with ``labels`` a model from scratch also reads the DEPREL column, without
    them the rule-based projection of each d-parse; ``pool``: the file's d-parses, whose
    projections widen the grammar of a model from scratch."""
    examples = _examples(trees)
    return _guarded(lambda: _retrain.retrain(examples, base, progress=progress, cancel=cancel,
                                             labels="deprel" if labels else "", pool=pool))


def cross_validate(trees: list[CorrectedTree], folds: int, base: Model | None = None, *,
                   progress: Callable[[int, int], None] | None = None,
                   cancel: Callable[[], bool] | None = None,
                   labels: bool = False, pool: Sequence[DepSentence] = ()) -> CrossValidation:
    """k-fold cross-validated F1 of :func:`retrain` on the corrected trees (at least 2)."""
    examples = _examples(trees)
    return _guarded(lambda: _retrain.cross_validate(
        examples, folds, base, progress=progress, cancel=cancel,
        labels="deprel" if labels else "", pool=pool))


def plan(base: Model | None = None, labels: bool = False,
         pool: Sequence[DepSentence] = ()) -> Plan:
    """A way to train on corrected trees: from scratch or from ``base``, with the DEPREL
    column read when ``labels`` (a model from scratch only; a base keeps its choice), and
    the file's d-parses ``pool`` widening the grammar of a model from scratch."""
    if base is not None:
        return Plan(base, "")
    return Plan(None, "deprel" if labels else "", tuple(pool))


def compare(trees: list[CorrectedTree], folds: int, new: Plan, current: Plan | Model | Converter,
            *, progress: Callable[[int, int], None] | None = None,
            cancel: Callable[[], bool] | None = None) -> Comparison:
    """A new training plan cross-validated beside the model in use, on the same held-out
    corrected trees (a plan is re-run per fold, a model or converter scored as it is)."""
    examples = _examples(trees)
    return _guarded(lambda: _retrain.compare(examples, folds, new, current, progress=progress,
                                             cancel=cancel))


def load_parser(name: str = TEXT_MODEL) -> TextModel:
    """A text model: the bundled one by short name, or a ``.padparser`` file (an untrusted
    file: a damaged one raises PadError)."""
    return _guarded(lambda: load_text_model(name)[0])


def adapt_parser(model: TextModel, sentences: list[DepSentence], *,
                 progress: Callable[[int, int], None] | None = None,
                 cancel: Callable[[], bool] | None = None) -> TextModel:
    """``model``'s d-parser continued on the sentences' (corrected) heads, read with their
    own tags (see ``pad_engine.parsing.adapt``)."""
    return _guarded(lambda: _adapt.adapt(model, _parser_examples(model, sentences),
                                         progress=progress, cancel=cancel))


def compare_parsers(base: TextModel, sentences: list[DepSentence],
                    current: TextModel | None = None, adapted_on: set[int] | None = None, *,
                    progress: Callable[[int, int], None] | None = None,
                    cancel: Callable[[], bool] | None = None) -> ParserComparison:
    """Cross-validated UAS of ``base`` adapted to the corrected sentences against the parser
    in use (``current`` as it is, or ``base`` adapted to the sentences ``adapted_on`` names
    by index, re-run per fold)."""
    return _guarded(lambda: _adapt.compare(base, _parser_examples(base, sentences), current,
                                           adapted_on=adapted_on, progress=progress,
                                           cancel=cancel))


def predict_arcs(model: TextModel, sentences: list[DepSentence]
                 ) -> list[tuple[list[int], list[str]]]:
    """Heads and relations a text model predicts for each sentence, with its own tags."""
    return _guarded(lambda: _adapt.predict(model, sentences))


def _parser_examples(model: TextModel, sentences: list[DepSentence]) -> list:
    return [_adapt.sentence_example(model, s, s.heads) for s in sentences]


def _examples(trees: list[CorrectedTree]) -> list:
    return _guarded(lambda: [example_from_lextree(t, forms, rels) for t, forms, rels in trees])


def _guarded(job: Callable):
    """Run a learning job; its inner errors become one PadError the app can show."""
    try:
        return job()
    except (PadError, Cancelled):
        raise
    except (ValueError, OSError) as err:
        raise PadError(str(err)) from err
