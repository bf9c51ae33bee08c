"""Model versions: the models retrained in a project, which one decodes, and their files.

Version 0 is the model the app started with: the one ``--model`` named or else, per file,
the bundled model that fits the file (UD or Collins-style d-parses), or the rule-based
projection when none does (``choose`` in the engine). Every retrain adds a version to the
project file, with the model's own ``.padmodel`` bytes, so switching back, exporting and
reopening need nothing else.

Choosing a version is done here; which one decodes is the workspace's ``ModelInUse``
(``active``, ``loading`` and ``current_model`` ask it).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pad_engine.api import (
    Choice,
    Model,
    PadError,
    Plan,
    choose,
    default_model_path,
    plan,
    prepare_outputs,
    read_bytes,
    write_bytes,
)
from pad_gui.controllers.engine import Converter
from pad_gui.controllers.model_in_use import ModelInUse, as_model
from pad_gui.controllers.workspace import Workspace
from pad_gui.events import Event
from pad_gui.store import BUNDLED, SCRATCH, ModelVersion, ProjectStore


def describe(v: ModelVersion) -> str:
    """How a version was trained, in words."""
    if v.how == SCRATCH:
        return "from scratch"
    return f"continued from version {v.base}"


class ModelVersions:
    """Choosing the model version that decodes in a workspace, and the versions of its
    project.

    Event: ``changed()`` when a version was added, measured or chosen, or its model loaded.
    """

    def __init__(self, workspace: Workspace, startup_path: str | Path | None):
        self.workspace = workspace
        self.startup_path = startup_path
        self.choice: Choice | None = None  # what version 0 is for this file, when chosen
        self.changed = Event()
        workspace.ready.connect(self._ready)
        workspace.opened.connect(self.restore)

    @property
    def in_use(self) -> ModelInUse:
        return self.workspace.in_use

    @property
    def active(self) -> int:
        """The version in use."""
        return self.in_use.version

    @property
    def loading(self) -> bool:
        """Whether the version in use is still being loaded."""
        return self.in_use.loading

    @property
    def store(self) -> ProjectStore | None:
        s = self.workspace.session
        return s.store if s is not None else None

    @property
    def startup_name(self) -> str:
        if self.startup_path is not None:
            return Path(self.startup_path).name
        return self.choice.name if self.choice is not None else "bundled model"

    def describe_active(self) -> str:
        """Which model decodes, and why version 0 is the one it is, in words."""
        if self.active != BUNDLED:
            text = f"Model: version {self.active} (retrained in this project)"
        elif self.startup_path is None and self.choice is not None:
            text = f"Model: {self.choice.name}, for {self.choice.reason}"
        else:
            text = f"Model: {self.startup_name}"
        model = self.current_model()
        if model is None or not model.dep_labels:
            return text
        if model.dep_labels == "projection":
            return text + "; reads the rule-based projection of each d-parse"
        return text + "; reads dependency labels" + (
            " and the rule-based projection" if model.reads_projection else "")

    def versions(self) -> list[ModelVersion]:
        return self.store.versions() if self.store is not None else []

    def curve(self) -> list[tuple[int, float]]:
        return self.store.learning_curve() if self.store is not None else []

    def current_model(self) -> Model | None:
        """The active version's model (None while it loads, or when there is none or the
        rule-based projection decodes)."""
        return self.in_use.model

    def _ready(self) -> None:
        """The engine decodes with a new converter: the start-up one, or one we chose."""
        if not self.loading:
            self.changed.emit()

    def origin(self, version: int) -> int | None:
        """Where a chain of continued trainings started: BUNDLED, or None (from scratch)."""
        by_id = {v.id: v for v in self.versions()}
        while version in by_id:
            v = by_id[version]
            if v.how == SCRATCH:
                return None
            version = v.base if v.base is not None else BUNDLED
        return BUNDLED

    def startup_loader(self) -> Callable[[], Model | Converter]:
        """Version 0's loader (run on the engine thread): the named model, or the converter
        that fits the open file."""
        if self.startup_path is not None:
            path = self.startup_path
            return lambda: Model.load(path)
        session = self.workspace.session
        if session is None:
            return lambda: Model.load(default_model_path())
        sentences = session.sentences

        def fitting() -> Converter:
            self.choice = choose(sentences)
            return self.choice.engine

        return fitting

    def rival(self) -> Callable[[], Plan | Model | Converter]:
        """What the version in use is scored as beside a new one (run on the worker): the
        start-up model as it is (it never saw the corrected trees), a retrained version
        by its own training plan re-run on each fold (it saw some of them)."""
        if self.active == BUNDLED:
            converter = self.in_use.converter
            return lambda: as_model(converter) or converter
        model, start = self.current_model(), self.startup_loader()
        labels = model is not None and model.reads_deprel
        session = self.workspace.session
        pool = list(session.sentences) if session is not None else []
        if self.origin(self.active) == BUNDLED:
            return lambda: plan(as_model(start()), labels, pool)
        return lambda: plan(None, labels, pool)

    def bundled_f1(self) -> tuple[float, int] | None:
        """Version 0's F1 and folds the last time a new version was compared with it."""
        scored = [v for v in self.versions() if v.against == BUNDLED and v.against_f1 is not None]
        return (scored[-1].against_f1, scored[-1].cv_folds) if scored else None

    # -- changes ------------------------------------------------------------------------
    def keep(self, how: str, base: int | None, sentences: int, seconds: float,
             data: bytes) -> int:
        """Keep a freshly trained model as a new version (not in use until chosen)."""
        version = self.store.add_version(how, base, sentences, seconds, data)
        self.changed.emit()
        return version

    def set_cv(self, version: int, f1: float, folds: int, against: int | None = None,
               against_f1: float | None = None) -> None:
        if self.store is not None:
            self.store.set_cv(version, f1, folds, against, against_f1)
        self.changed.emit()

    def use(self, version: int, model: Model | None = None) -> None:
        """Decode with ``version`` from now on (uncorrected sentences are re-decoded)."""
        if version == BUNDLED:
            load = self.startup_loader()
            name = lambda: f"version 0 ({self.startup_name})"  # noqa: E731 - chosen on load
        elif model is not None:
            load, name = (lambda: model), f"version {version}"
        else:
            data = self.store.version_bytes(version)
            load, name = (lambda: Model.from_bytes(data, f"model version {version}")), \
                f"version {version}"
        previous, store = self.in_use.choose(version, model), self.store
        if store is not None:
            store.choose_version(version)

        def done(result: Converter | Exception) -> None:
            if self.store is not store or self.active != version:
                return  # chosen again meanwhile: that choice decides
            self.in_use.settle(result, previous)
            if isinstance(result, Exception) and store is not None:
                store.choose_version(self.active)  # the engine kept the previous model
            self.changed.emit()

        self.workspace.use_model(load, name, done)
        self.changed.emit()

    def restore(self) -> None:
        """A project was opened: decode with the version it last chose."""
        wanted = self.store.chosen_version() if self.store is not None else BUNDLED
        if wanted != self.active or (wanted == BUNDLED and self.startup_path is None):
            self.use(wanted)
        else:
            self.changed.emit()

    def export(self, version: int, path: str | Path) -> str:
        """Write a version's model file (atomically) for ``pad convert --model``; says
        what happened."""
        session = self.workspace.session
        try:
            prepare_outputs([path], [session.path, session.store.path] if session else [])
            if version == BUNDLED:
                if (self.startup_path is None and self.choice is not None
                        and self.choice.path is None):
                    raise PadError("the rule-based projection has no model file")
                chosen = self.choice.path if self.choice is not None else None
                data = read_bytes(self.startup_path or chosen or default_model_path(), "model")
            else:
                data = self.store.version_bytes(version)
            write_bytes(path, data)
        except (OSError, KeyError, PadError) as e:
            message = f"Cannot export model version {version}: {e}"
        else:
            message = f"Model version {version} written to {path}"
        self.workspace.message.emit(message, 10000)
        return message
