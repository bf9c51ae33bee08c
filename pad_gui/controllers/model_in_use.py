"""Which model decodes: the one place every part of the app asks (the workspace for its
converter's labels, the versions dialog, retraining for the model to continue from).

Two things are known at different times. The version chosen, and its ``Model``, are known
on the UI thread as soon as it is chosen (a freshly trained model at once, a stored one
once the engine thread has loaded it); the ``converter`` is what the engine thread decodes
with, known when it says so. A failed load puts the previous choice back.
"""

from __future__ import annotations

from pad_engine.api import Engine, Model
from pad_gui.controllers.engine import Converter
from pad_gui.store import BUNDLED


def as_model(loaded: Model | Converter | None) -> Model | None:
    """The model behind what a loader gave (an Engine when the app chose the model itself;
    None for the rule-based projection, which has none to continue from)."""
    if isinstance(loaded, Engine):
        return loaded.model
    return loaded if isinstance(loaded, Model) else None


class ModelInUse:
    """The model version chosen, its model, and the converter the engine decodes with.

    ``version``: the project's version in use (BUNDLED: the one the app started with);
    ``model``: its model (None while it loads, or when there is none or the rule-based
    projection decodes); ``loading``: a chosen version's model is being loaded;
    ``converter``: what decodes now; ``ready``: the engine has loaded its first converter
    or said why it could not (``problem``).
    """

    def __init__(self) -> None:
        self.version = BUNDLED
        self.model: Model | None = None
        self.loading = False
        self.converter: Converter | None = None
        self.ready = False
        self.problem: str | None = None

    def decodes_with(self, converter: Converter | None, problem: str = "") -> None:
        """The engine decodes with ``converter`` from now on (None: nothing, for
        ``problem``); unless a chosen version is still loading, it is that version's."""
        self.ready = True
        self.problem = problem or None
        self.converter = converter
        if not self.loading:
            self.model = as_model(converter)

    def choose(self, version: int, model: Model | None) -> tuple[int, Model | None]:
        """Use ``version`` from now on (``model`` None: it is loaded first); returns the
        choice it replaces, for :meth:`settle`."""
        previous = self.version, self.model
        self.version, self.model, self.loading = version, model, model is None
        return previous

    def settle(self, loaded: Converter | Exception, previous: tuple[int, Model | None]
               ) -> None:
        """The chosen version's load ended: its model, or (it failed, and the engine kept
        the model it had) the ``previous`` choice back."""
        self.loading = False
        if isinstance(loaded, Exception):
            self.version, self.model = previous
        else:
            self.model = as_model(loaded)
