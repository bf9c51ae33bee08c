"""ModelInUse, the one place asked which model decodes: a choice, its load, a failed load."""

from __future__ import annotations

from pad_engine.api import Engine, Model, RuleBasedEngine
from pad_gui.controllers.model_in_use import ModelInUse
from pad_gui.store import BUNDLED


def test_a_choice_its_load_and_a_failed_load():
    in_use = ModelInUse()
    assert (in_use.version, in_use.model, in_use.ready) == (BUNDLED, None, False)
    startup = Model()
    in_use.decodes_with(Engine(startup))
    assert in_use.ready
    assert in_use.problem is None
    assert in_use.model is startup
    fresh = Model()
    previous = in_use.choose(3, fresh)  # a freshly trained model: known at once
    assert (in_use.version, in_use.model, in_use.loading) == (3, fresh, False)
    in_use.settle(Engine(fresh), previous)
    assert in_use.model is fresh
    before = in_use.choose(2, None)  # a stored one: loaded first
    assert in_use.loading
    assert in_use.model is None
    in_use.decodes_with(Engine(startup))  # an earlier swap lands meanwhile
    assert in_use.model is None
    assert in_use.version == 2
    in_use.settle(OSError("damaged"), before)  # the engine kept what it had
    assert (in_use.version, in_use.model, in_use.loading) == (3, fresh, False)
    in_use.decodes_with(RuleBasedEngine())
    assert in_use.model is None  # the rules have no model to continue from


def test_no_model_at_start_says_why():
    in_use = ModelInUse()
    in_use.decodes_with(None, "ModelError: damaged")
    assert in_use.ready
    assert in_use.problem == "ModelError: damaged"
    assert in_use.converter is None
