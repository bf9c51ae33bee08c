"""The app's controllers driven without Qt (no QApplication, no qtbot): the worker, the
engine thread's priorities, re-attaching, time accounting, model versions, projects and
retraining. Whatever the window does, these decide."""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

from pad_engine.api import LexNode, Model, PadError, RuleBasedEngine, edits, read_conll
from pad_gui.controllers import layers
from pad_gui.controllers.engine import BACKGROUND, NOW, SOON, EngineThread
from pad_gui.controllers.models import ModelVersions
from pad_gui.controllers.project_rows import saved_sentence
from pad_gui.controllers.projects import MAX_RECENT, Projects, default_project_path
from pad_gui.controllers.reattach import Change, HeadChoice, Reattach
from pad_gui.controllers.retraining import Retraining
from pad_gui.controllers.timekeeping import TimeKeeper
from pad_gui.controllers.workspace import Step, Workspace
from pad_gui.session import IDLE_CAP, Session
from pad_gui.store import BUNDLED, SCRATCH, ProjectStore
from pad_gui.worker import Worker

WAIT = 120.0  # seconds: a safety net for a loaded machine, never a measured limit


def pump(*workers: Worker, until=lambda: False) -> None:
    """What the UI timer does: poll the workers until ``until()`` (or they all finish)."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        alive = [w.poll() for w in workers]
        if until() or not any(alive):
            return
        time.sleep(0.005)
    raise AssertionError("nothing happened in time")


class FakeSettings(dict):
    """What QSettings offers the controllers."""

    def value(self, key):
        return self.get(key)

    def setValue(self, key, value):  # noqa: N802 - QSettings' name
        self[key] = value


# -- the worker -------------------------------------------------------------------------
def test_worker_events_arrive_in_order_and_only_when_polled():
    seen = []
    worker = Worker(lambda w: [w.report(i) for i in range(3)] and "done")
    worker.started.connect(lambda: seen.append("started"))
    worker.yielded.connect(seen.append)
    worker.returned.connect(lambda r: seen.append(("returned", r)))
    worker.errored.connect(lambda e: seen.append(("errored", e)))
    worker.finished.connect(lambda: seen.append("finished"))
    worker.start()
    worker.join()
    assert seen == []
    assert worker.running
    assert worker.poll() is False
    assert seen == ["started", 0, 1, 2, ("returned", "done"), "finished"]
    assert not worker.running


def test_worker_errors_and_cancellation():
    def fail(worker):
        raise PadError("bad input")

    errors = []
    worker = Worker(fail)
    worker.errored.connect(errors.append)
    worker.start()
    pump(worker)
    assert [str(e) for e in errors] == ["bad input"]
    assert errors[0].__traceback__ is None

    steps = []

    def until_cancelled(worker):
        while not worker.cancelled:
            steps.append(1)
            time.sleep(0.001)
        return len(steps)

    results = []
    worker = Worker(until_cancelled)
    worker.returned.connect(results.append)
    worker.start()
    while not steps:
        time.sleep(0.001)
    worker.stop()  # cancel, wait, and emit what it posted
    assert results
    assert results[0] >= 1
    assert worker.is_cancelled()
    assert not worker.running


# -- the engine thread ------------------------------------------------------------------
@pytest.fixture
def engine(tiny_model):
    """The engine thread on the tiny model, started and warm."""
    engine = EngineThread(tiny_model)
    ready = []
    engine.ready.connect(lambda problem, converter: ready.append((problem, converter)))
    engine.start()
    pump(engine.worker, until=lambda: ready)
    assert ready[0][0] == ""
    assert ready[0][1] is not None
    yield engine
    engine.stop()


@pytest.fixture
def workspace(tiny_model, tmp_path) -> Workspace:
    """A workspace over its own engine thread, ready; it records its steps and messages."""
    w = Workspace(EngineThread(tiny_model), Projects(FakeSettings(), tmp_path / "data"))
    w.steps, w.messages = [], []
    w.step.connect(w.steps.append)
    w.message.connect(lambda text, ms: w.messages.append(text))
    w.engine.start()
    pump(w.engine.worker, until=lambda: w.engine_ready)
    yield w
    w.close()
    w.engine.stop()


def hold(engine: EngineThread) -> threading.Event:
    """Keep the engine thread busy with a job until the returned event is set."""
    release = threading.Event()
    engine.submit(lambda converter: release.wait(WAIT), lambda result: None)
    return release


def test_the_sentence_on_screen_and_a_model_swap_jump_the_queue(engine, sample):
    sents = read_conll(sample).sentences
    order = []
    engine.decoded.connect(lambda key, result: order.append((key, result)))
    release = hold(engine)
    engine.request("background", sents[0], BACKGROUND)
    engine.request("soon", sents[1], SOON)
    swapped = []
    engine.swap_model(RuleBasedEngine, swapped.append)
    engine.request("now", sents[2], NOW)
    release.set()
    pump(engine.worker, until=lambda: len(order) == 3)
    assert [key for key, _ in order] == ["now", "soon", "background"]
    assert isinstance(swapped[0], RuleBasedEngine)
    assert all(result[0].how == "rules" for _, result in order)  # all after the swap


def test_while_the_decoder_compiles_the_projection_answers_then_the_model(tiny_model, sample,
                                                                         monkeypatch):
    """A first start, the compile held back: the sentence on screen gets the projection's
    tree at once and the status says why; background decoding waits; once the decoder is
    ready the same sentence is decoded again with the model."""
    compiled = threading.Event()
    prepare = EngineThread._prepare
    monkeypatch.setattr(EngineThread, "_prepare",
                        lambda self, engine: (compiled.wait(WAIT), prepare(self, engine)))
    sents = read_conll(sample).sentences
    engine = EngineThread(tiny_model)
    decoded, said, ready = [], [], []
    engine.decoded.connect(lambda key, result: decoded.append((key, result)))
    engine.preparing.connect(said.append)
    engine.ready.connect(lambda problem, converter: ready.append(converter))
    engine.start()
    engine.request("background", sents[0], BACKGROUND)
    engine.request("now", sents[1], NOW)
    pump(engine.worker, until=lambda: decoded)
    assert decoded == [("now", decoded[0][1])]
    assert decoded[0][1][0].how == "rules"
    assert "Preparing the decoder" in said[0]
    assert "rule-based projection" in said[0]
    assert not ready
    compiled.set()
    pump(engine.worker, until=lambda: len(decoded) == 3)
    engine.stop()
    assert ready
    assert said[-1] == ""
    assert [key for key, _ in decoded[1:]] == ["now", "background"]
    assert all(c.how != "rules" for _, result in decoded[1:] for c in result)


def test_a_failed_swap_keeps_the_model_and_dropped_decodes_never_come(engine, sample):
    sents = read_conll(sample).sentences
    order, swapped = [], []
    engine.decoded.connect(lambda key, result: order.append(key))
    release = hold(engine)
    engine.request("dropped", sents[0], BACKGROUND)
    engine.drop_pending()

    def broken():
        raise OSError("no such model file")

    engine.swap_model(broken, swapped.append)
    engine.request("kept", sents[1], NOW)
    release.set()
    pump(engine.worker, until=lambda: order)
    assert isinstance(swapped[0], OSError)
    assert order == ["kept"]


# -- re-attaching -----------------------------------------------------------------------
@pytest.fixture
def session(sample, tmp_path) -> Session:
    session = Session(sample, read_conll(sample), ProjectStore(tmp_path / "p.padproject"))
    yield session
    session.store.close()


def test_reattach_is_refused_done_at_once_or_waits_for_its_decode(session):
    heads = session.sentences[0].heads
    root = heads.index(0) + 1
    child = heads.index(root) + 1
    machine = Reattach()
    assert "Cannot re-attach" in machine.ask(session, 0, root, child)  # a cycle
    assert machine.pending is None
    other = next(h for h in range(1, len(heads) + 1)
                 if h not in (child, heads[child - 1]) and heads[h - 1] != child)
    waiting = machine.ask(session, 0, child, other)
    assert machine.wait(session, waiting, "reattach", "Re-attach") is waiting
    assert isinstance(waiting, Change)
    assert machine.pending is waiting
    assert waiting.after.heads[child - 1] == other
    assert waiting.before == session.view(0)
    assert machine.ask(session, 0, child, root) is None  # one at a time
    assert machine.decoded(session, session.key(0)) is None  # another decode of the sentence
    assert machine.decoded(session, session.key(0, waiting.after)) is waiting
    assert machine.pending is None
    session.cache[session.key(0, waiting.after)] = []  # that d-parse is decoded now
    again = machine.ask(session, 0, child, other)
    assert again == waiting
    assert machine.wait(session, again, "reattach", "") is again
    assert machine.pending is None
    machine.forget()
    assert machine.pending is None


def test_reattached_word_gets_the_files_most_frequent_relation(session):
    """'on' (IN) moved under 'budget' (NN), rightward: the sample's IN arcs under NN to their
    right are NMOD, so its VMOD goes."""
    sent = session.sentences[0]  # The committee approved the new budget on Tuesday .
    on, budget = sent.forms.index("on") + 1, sent.forms.index("budget") + 1
    assert sent.rels[on - 1] == "VMOD"
    change = Reattach().ask(session, 0, on, budget)
    assert change.after.rels[on - 1] == "NMOD"
    rel, why = session.propose_relation(0, change.after, on)
    assert rel == "NMOD"
    assert "IN under NN, right" in why


def test_tag_and_relation_edits_change_the_view_and_survive_reopening(session, sample,
                                                                      tmp_path):
    tree = edits.relabel(LexNode("S", [LexNode("NN", [], 0, i) for i in range(9)], 2),
                         (), "S-TPC-1")
    session.set_view(0, replace(session.view(0), tree=tree))
    change = layers.tag_change(session, 0, 2, "NNS")
    assert change.after.tags[1] == "NNS"
    assert change.after.tree.children[1].label == "NNS"
    assert change.after.tree.label == "S-TPC-1"  # the function tag and index stay
    assert layers.tag_change(session, 0, 2, "NN") is None  # its tag already
    assert "Cannot change the tag" in layers.tag_change(session, 0, 2, "N N")
    session.set_view(0, change.after)
    rel = layers.relation_change(session, 0, 2, "nsubj")
    assert rel.after.rels[1] == "nsubj"
    assert rel.after.tags == change.after.tags
    assert "Cannot change the relation" in layers.relation_change(session, 0, 2, "a\tb")
    session.set_view(0, rel.after)
    assert session.key(0)[3:] == (rel.after.tags, rel.after.rels)  # decoded under them
    assert session.as_viewed(0).tags[1] == "NNS"
    assert session.changed(0)
    session.store.close()
    again = Session(sample, read_conll(sample), ProjectStore(tmp_path / "p.padproject"))
    assert again.view(0).tags == rel.after.tags
    assert again.rels(0)[1] == "nsubj"
    session.store = again.store  # the fixture closes this one


def test_stored_tags_and_relations_are_read_as_untrusted_input():
    fields = ("machine", 0, "[2, 0]", None, None, 0.0, None)
    assert saved_sentence((*fields, '["DT", "NN"]', None), 2).tags == ["DT", "NN"]
    for bad in ('["DT"]', '["DT", "N N"]', '["DT", 3]', '{"a": 1}', '["DT", "' + "X" * 200 +
                '"]', '["DT", "\\u0007"]'):
        with pytest.raises((ValueError, TypeError)):
            saved_sentence((*fields, bad, None), 2)
        with pytest.raises((ValueError, TypeError)):
            saved_sentence((*fields, None, bad), 2)


def test_choosing_a_new_head_by_keyboard_without_a_window():
    choosing = HeadChoice()
    shown = []
    choosing.changed.connect(shown.append)
    choosing.show(["a", "b", "c", "d"], (2, 0, 2, 3))
    assert "Select one node" in choosing.start(None)
    assert choosing.choice is None
    assert "word 1 (a)" in choosing.start(1)
    assert choosing.choice == (1, 2)
    choosing.move("left")  # not the word itself, nor past the first word
    assert choosing.choice == (1, 2)
    choosing.move("right")
    choosing.move("up")  # word 3's own head
    assert choosing.choice == (1, 2)
    choosing.move("right")
    choosing.move("right")
    assert choosing.choice == (1, 4)
    choosing.move("right")  # the last word: stays
    choosing.show(["a", "b", "c", "d"], (2, 0, 2, 3))  # redrawn (a decode): it stays
    assert choosing.choice == (1, 4)
    assert shown[-1] == (1, 4)
    assert choosing.end() == (1, 4)
    assert shown[-1] is None
    assert choosing.choice is None
    assert choosing.end() is None
    choosing.start(4)
    choosing.show(["x"], (0,))  # another sentence: the choice goes
    assert choosing.choice is None
    assert shown[-1] is None
    assert "one-word sentence" in choosing.start(1)


# -- time accounting --------------------------------------------------------------------
def test_time_is_booked_to_the_sentence_on_screen(session):
    now = [100.0]
    keeper = TimeKeeper(clock=lambda: now[0])
    now[0] += 0.4
    keeper.book(session, 0)  # a glance while scrolling past
    assert session.records == {}
    now[0] += 12.0
    keeper.book(session, 1)
    now[0] += 5000.0  # away from the desk
    keeper.book(session, 1)
    now[0] += 3.0
    keeper.book(None, -1)  # nothing open: nothing booked, the clock restarts
    now[0] += 2.0
    keeper.book(session, 2)
    assert {i: r.seconds for i, r in session.records.items()} == {1: 12.0 + IDLE_CAP, 2: 2.0}
    lengths = [len(session.sentences[i]) for i in range(3)]
    assert ProjectStore(session.store.path).load(
        session.keys[:3], [session.text(i) for i in range(3)], lengths)[1].seconds \
        == 12.0 + IDLE_CAP


# -- projects ---------------------------------------------------------------------------
def test_projects_are_remembered_per_treebank_and_recent_files_kept(tmp_path, sample):
    projects = Projects(FakeSettings(), tmp_path / "data")
    assert projects.project_for(sample) == sample.with_name("sample.conllu.padproject")
    chosen = tmp_path / "mine.padproject"
    assert projects.project_for(sample, chosen) == chosen
    assert projects.project_for(sample) == chosen.resolve()
    files = [tmp_path / f"f{i}.conllu" for i in range(MAX_RECENT + 2)]
    for f in files:
        projects.opened(f)
    projects.opened(files[3])
    recent = projects.recent()
    assert recent[0] == str(files[3].resolve())
    assert len(recent) == MAX_RECENT
    assert str(files[0].resolve()) not in recent


def test_the_bundled_sample_gets_its_project_in_the_data_folder(tmp_path):
    from guikit import SAMPLE

    path = default_project_path(SAMPLE, tmp_path / "data")
    assert path.parent == tmp_path / "data"
    assert path.suffix == ".padproject"


# -- the workspace ----------------------------------------------------------------------
def decoded(w: Workspace, idx: int):
    pump(w.engine.worker, until=lambda: w.session.decoded(idx) is not None)
    return w.session.decoded(idx)


def test_the_workspace_opens_navigates_edits_and_undoes(workspace, sample):
    w = workspace
    shown = []
    w.navigated.connect(shown.append)
    assert w.open(sample)
    assert w.current == 0
    assert shown == [0]
    assert len(w.session) >= 30
    assert isinstance(decoded(w, 0), list)
    w.toggle_corrected()
    w.next_uncorrected()
    assert w.session.is_corrected(0)
    assert w.current == 1
    assert shown == [0, 1]
    decoded(w, 1)
    w.pick(1)
    [step] = w.steps
    assert isinstance(step, Step)
    assert step.change.after.chosen == 1
    w.apply(step.change.idx, step.change.after)  # what the undo stack's redo does
    assert w.session.view(1).chosen == 1
    w.apply(step.change.idx, step.change.before)  # undo
    assert w.session.view(1).chosen == 0
    assert not w.edit("delete", "Delete node", lambda t: edits.delete_node(t, (0, 0, 0)))
    assert "preterminal" in w.messages[-1]
    assert len(w.steps) == 1


def test_a_reattachment_becomes_one_step_when_its_decode_arrives(workspace, sample):
    w = workspace
    w.open(sample)
    decoded(w, 0)
    sent = w.session.sentences[0]
    on, budget = sent.forms.index("on") + 1, sent.forms.index("budget") + 1
    w.reattach_word(on, budget)
    assert w.steps == []
    assert w.reattach.pending is not None
    assert w.messages[-1] == "Re-decoding…"
    pump(w.engine.worker, until=lambda: w.steps)
    [step] = w.steps
    assert step.change.after.heads[on - 1] == budget
    assert w.reattach.pending is None
    root = sent.heads.index(0) + 1
    w.reattach_word(root, sent.heads.index(root) + 1)
    assert "Cannot re-attach" in w.messages[-1]
    assert len(w.steps) == 1


# -- model versions and retraining ------------------------------------------------------
def test_a_new_version_decodes_at_once_and_a_broken_one_falls_back(workspace, sample,
                                                                   tiny_model):
    w = workspace
    models = ModelVersions(w, tiny_model)
    w.open(sample)
    pump(w.engine.worker, until=lambda: models.current_model() is not None)
    startup = models.current_model()
    fresh = Model.load(tiny_model)
    fresh.training["sentences"] = 7
    version = models.keep(SCRATCH, None, 7, 0.1, Path(tiny_model).read_bytes())
    models.use(version, fresh)
    # Known at once, on this thread: the engine thread has not even been polled.
    assert models.active == version
    assert models.current_model() is fresh
    assert models.origin(version) is None
    assert models.store.chosen_version() == version
    broken = w.session.store.add_version(SCRATCH, None, 3, 0.1, b"not a model")
    models.use(broken)
    assert models.loading
    assert models.current_model() is None
    pump(w.engine.worker, until=lambda: not models.loading)
    assert models.active == version
    assert models.current_model() is fresh
    assert "Cannot use model version" in w.messages[-1]
    models.use(BUNDLED)
    pump(w.engine.worker, until=lambda: not models.loading)
    assert models.current_model() is not fresh
    assert models.current_model() is not startup
    assert models.current_model().training == startup.training


def test_a_version_loaded_before_the_decoder_is_compiled_is_not_called_ready(
        tiny_model, sample, tmp_path, monkeypatch):
    """A first start opens a file whose project chooses a model version while the decoder
    still compiles: the status says the version is loaded and its trees follow, not that it
    decodes, and "Model ready" comes only once the decoder is."""
    compiled = threading.Event()
    prepare = EngineThread._prepare
    monkeypatch.setattr(EngineThread, "_prepare",
                        lambda self, engine: (compiled.wait(WAIT), prepare(self, engine)))
    w = Workspace(EngineThread(tiny_model), Projects(FakeSettings(), tmp_path / "data"))
    said, ambient = [], []
    w.message.connect(lambda text, ms: said.append(text))
    w.ambient.connect(lambda text, ms: ambient.append(text))
    w.engine.start()
    try:
        models = ModelVersions(w, tiny_model)
        w.open(sample)
        models.use(BUNDLED)  # as a project's choice is restored on opening
        pump(w.engine.worker, until=lambda: not models.loading)
        assert models.current_model() is not None
        assert any("loaded: its trees follow once the decoder is prepared" in t for t in said)
        assert not any(t.startswith("Decoding with model") for t in said)
        assert not ambient
        compiled.set()
        pump(w.engine.worker, until=lambda: ambient)
        assert ambient == ["Model ready"]
    finally:
        compiled.set()
        w.close()
        w.engine.stop()


def test_retraining_adds_a_measured_version_and_cancelling_adds_none(workspace, sample,
                                                                     tiny_model):
    w = workspace
    models = ModelVersions(w, tiny_model)
    runs: list[Worker] = []
    retraining = Retraining(models, runs.append)  # started by hand below
    w.open(sample)
    for idx in range(3):
        w.show(idx)
        decoded(w, idx)
        w.toggle_corrected()
    retraining.start(continued=False, labels=True)
    assert retraining.running
    assert "Training on 3" in retraining.status
    runs[-1].start()
    pump(runs[-1], w.engine.worker, until=lambda: not retraining.running)
    assert retraining.outcome == "measured", retraining.status
    [v] = models.versions()
    assert v.cv_f1 is not None
    assert v.against == BUNDLED
    assert v.against_f1 is not None
    # in use at once only when it scores better, beyond the noise of the held-out trees,
    # and changes no uncorrected tree
    better = retraining.measured.better
    assert not better or v.cv_f1 > v.against_f1
    unchanged_better = better and not retraining.review
    assert (models.active == v.id) == unchanged_better == retraining.in_use
    retraining.use_new()  # the annotator's choice, whatever the scores
    assert models.active == v.id
    assert models.current_model().dep_labels == "deprel"  # the sample has DEPREL

    retraining.start(continued=True, labels=True)
    assert retraining.plan == ("continued", v.id, 3)
    retraining.cancel()
    runs[-1].start()
    retraining.stop()  # as when the window closes: waits for the run
    assert not retraining.running
    assert retraining.outcome == "cancelled"
    assert len(models.versions()) == 1
    assert models.active == v.id


def test_next_uncorrected_least_sure_first(workspace, sample):
    """With least_sure_first, Next uncorrected goes to the decoded sentence whose two best
    candidates are closest in score per word (short sentences first); else file order."""
    from pad_engine.api import margin_of, priority

    w = workspace
    assert w.open(sample)
    s = w.session
    pump(w.engine.worker, until=lambda: all(s.decoded(i) is not None for i in range(len(s))))
    w.show(0)
    w.next_uncorrected()
    assert w.current == 1  # file order
    w.least_sure_first = True
    w.show(0)
    w.next_uncorrected()
    ranked = sorted((priority(margin_of([c.score for c in s.decoded(i)], len(s.sentences[i])),
                              len(s.sentences[i]), i), i) for i in range(1, len(s)))
    assert w.current == ranked[0][1]
    assert ranked[0][1] != 1 or ranked[0][0] <= ranked[1][0]


def test_packed_candidates_of_a_deep_tree_unpack_without_recursion():
    from pad_engine.api import Candidate, LexNode
    from pad_gui.controllers.decoded import DecodedCache

    deep = LexNode("NN", [], 0, 2999)
    for w in range(2998, -1, -1):
        deep = LexNode("NP", [LexNode("NN", [], 0, w), deep], 1, -1)
    cache = DecodedCache()
    cache["k"] = [Candidate(deep, 2.5, "exact"), Candidate(deep, 1.0, "exact")]
    assert cache.scores("k") == [2.5, 1.0]
    back = cache["k"][0].tree
    for _ in range(2999):
        back = back.children[1]
    assert back.word == 2999
