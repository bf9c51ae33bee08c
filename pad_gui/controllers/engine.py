"""The engine's thread: loads the model, decodes sentences and runs jobs off the UI.

One thread owns the engine, so decoding never races itself, and a priority queue lets the
sentence on screen jump ahead of background prefetching; a model swap goes before every
decode queued after it. The thread is a :class:`~pad_gui.worker.Worker`: its results reach
the UI thread through the worker's ``poll``.

On a first start the decoder's Numba code is compiled, not loaded from the cache: a minute
and more on two busy cores. That happens on a thread of its own while this one answers the
sentence on screen, and those soon after, with the rule-based projection, which compiles
nothing; once the decoder is ready, those sentences are decoded again with the model and
the background pass starts.
"""

from __future__ import annotations

import itertools
import queue
import threading
import time
import traceback
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any

from pad_engine.api import (
    DepSentence,
    Engine,
    Model,
    PadError,
    RuleBasedEngine,
    decoder_cached,
)
from pad_gui.controllers.messages import Decoded, JobDone, Preparing, Ready
from pad_gui.events import Event
from pad_gui.worker import Worker

# Priorities: lower runs first.
SWAP = -1  # a model change goes before every decode queued after it
NOW = 0
SOON = 1
BACKGROUND = 2

K_BEST = 10
QUIET = 0.4  # seconds background decoding holds off after the annotator moved
DecodeKey = Hashable  # names the sentence and the d-parse it is decoded under
Converter = Engine | RuleBasedEngine
GRACE = 0.5  # seconds the decoder may take to load from the cache before the projection helps
PREPARING = 90  # seconds a first start takes to compile the decoder, about (2 busy cores)
HOLD = 3.0  # seconds a cold decoder's compile waits for the first sentence to be answered
PREPARING_TEXT = (f"Preparing the decoder (first start only, about {PREPARING} s) — "
                  "showing the rule-based projection meanwhile")
HELLO = DepSentence(["Hello", "."], ["UH", "."], [0, 1])  # what compiles or loads the code
_PROBE = threading.Lock()
_first_start: list[bool] = []  # once probed: whether the decoder will be compiled


def first_start() -> bool:
    """Whether the decoder will be compiled rather than loaded from Numba's cache (a first
    start), asked once per process (:func:`~pad_engine.api.decoder_cached`, which loads
    Numba). The app asks on a thread of its own while the window loads; the engine thread
    asks again (and waits for that answer)."""
    with _PROBE:
        if not _first_start:
            _first_start.append(not decoder_cached())
        return _first_start[0]


class EngineThread:
    """Decodes requests and runs jobs, one at a time, on a worker thread.

    Events (on the thread that polls ``worker``): ``ready(problem, converter)`` once the
    start-up model is loaded and warm (problem "" or why there is none),
    ``decoded(key, list[Candidate] | PadError)`` (the projection's candidates while the
    decoder is prepared, the model's once it is: a key may be decoded twice),
    ``preparing(text)``: what keeps the model from decoding ("" once nothing does); a job's
    or swap's result goes to the callback given with it.
    """

    def __init__(self, model_path: str | Path | None = None):
        self.model_path = model_path
        self.ready = Event()
        self.decoded = Event()
        self.preparing = Event()
        self.warm = threading.Event()  # the decoder's code is compiled or loaded (set once)
        self._problem = ""  # why it could not be, if it could not
        self._announced = False  # ready was said (touched by the worker thread only)
        self.worker = Worker(self._serve, "pad-engine")
        self.worker.yielded.connect(self._deliver)
        self._queue: queue.PriorityQueue = queue.PriorityQueue()
        self._order = itertools.count()
        self._done: set[DecodeKey] = set()  # touched by the worker thread only
        self._jobs = itertools.count(1)
        self._callbacks: dict[int, Callable[[Any], None]] = {}
        self._quiet_until = 0.0

    def preparing_for(self, converter: Converter) -> bool:
        """Whether ``converter`` cannot decode yet: a model's decoder still being compiled
        (the projection stands in meanwhile)."""
        return isinstance(converter, Engine) and not self.warm.is_set()

    def pause_background(self, seconds: float = QUIET) -> None:
        """Hold background decoding while the annotator is busy: a decode holds the GIL
        (Numba), so running one in the middle of a redraw would make the UI stutter."""
        self._quiet_until = time.monotonic() + seconds

    def request(self, key: DecodeKey, sent: DepSentence, priority: int = NOW) -> None:
        """Queue a decode of ``sent`` under ``key`` (skipped if that key is decoded)."""
        self._queue.put((priority, next(self._order), "decode", key, sent))

    def submit(self, fn: Callable[[Converter], object],
               done: Callable[[object], None]) -> None:
        """Run ``fn(converter)`` on the thread after the queued decodes of higher priority;
        ``done`` gets its result, or the exception it raised."""
        self._put(SOON, "job", fn, done)

    def swap_model(self, load: Callable[[], Model | Converter],
                   done: Callable[[Converter | Exception], None]) -> None:
        """Decode with ``load()``'s model (or converter) from now on, loaded on the thread
        before any decode requested later; ``done`` gets the converter now decoding, or the
        error (after which the previous model stays)."""
        self._put(SWAP, "swap", load, done)

    def drop_pending(self) -> None:
        """Forget queued decodes (another file or model came); queued jobs still run."""
        kept = []
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            if item[2] != "decode":
                kept.append(item)
        for item in kept:
            self._queue.put(item)

    def start(self) -> None:
        self.worker.start()

    def stop(self) -> None:
        """Ask the thread to finish and wait for it (what it posted is dropped)."""
        self._queue.put((SWAP - 1, next(self._order), "stop", None, None))
        self.worker.join()

    def _put(self, priority: int, kind: str, payload: object, done: Callable) -> None:
        job = next(self._jobs)
        self._callbacks[job] = done
        self._queue.put((priority, next(self._order), kind, job, payload))

    def _deliver(self, message: Ready | Decoded | JobDone) -> None:
        match message:
            case Ready(problem, converter):
                self.ready.emit(problem, converter)
            case Decoded(key, result):
                self.decoded.emit(key, result)
            case Preparing(text):
                self.preparing.emit(text)
            case JobDone(job, result):
                self._callbacks.pop(job)(result)

    # -- on the worker thread ------------------------------------------------------------
    def _serve(self, worker: Worker) -> None:
        stand_in = RuleBasedEngine()  # what decodes while the decoder is prepared
        interim: dict[DecodeKey, tuple[int, DepSentence]] = {}  # decoded by the projection
        converter, compile_at = self._start(worker)
        while True:
            if (compile_at is not None and time.monotonic() >= compile_at
                    and isinstance(converter, Engine)):  # no model fits: none to compile
                self._compile(converter)
                compile_at = None
            try:
                item = self._queue.get(timeout=None if compile_at is None else 0.05)
            except queue.Empty:
                continue
            priority, _, kind, key, payload = item
            waiting = not self.warm.is_set() and isinstance(converter, Engine)
            if kind == "warm":
                if not self._announced:
                    converter = self._warmed(worker, converter)
                for key, (priority, sent) in reversed(interim.items()):  # the latest first
                    self._done.discard(key)
                    self.request(key, sent, priority)
                interim.clear()
                continue
            if self._held(item, waiting):
                continue
            if kind == "stop":
                return
            if kind == "job":
                worker.report(JobDone(key, _attempt(_job, payload, converter)))
            elif kind == "swap":
                loaded = _attempt(payload)
                if not isinstance(loaded, Exception):
                    converter = loaded = self._swapped(worker, loaded)
                    interim.clear()
                worker.report(JobDone(key, loaded))
            elif key not in self._done:
                self._done.add(key)
                if waiting:
                    interim[key] = (priority, payload)
                worker.report(Decoded(key, _decode(stand_in if waiting else converter,
                                                   payload)))
                if compile_at is not None:
                    compile_at = 0.0  # the first tree is out: compile now

    def _start(self, worker: Worker) -> tuple[Converter | None, float | None]:
        """Load the start-up model and prepare its decoder: the converter, and when a
        compile put off for the first tree is to start (None: started or not needed)."""
        try:
            converter = Engine.load(self.model_path)
            cold = first_start()
        except Exception as e:  # noqa: BLE001 - any failure means "no model", shown to the user
            self.warm.set()
            worker.report(Ready(f"{type(e).__name__}: {e}", None))
            return None, None
        if cold:  # the compile would slow the projection's first tree: it goes first
            worker.report(Preparing(PREPARING_TEXT))
            return converter, time.monotonic() + HOLD
        self._compile(converter)
        if self.warm.wait(GRACE):  # loaded: decode with the model at once
            return self._warmed(worker, converter), None
        worker.report(Preparing(PREPARING_TEXT))
        return converter, None

    def _held(self, item: tuple, waiting: bool) -> bool:
        """Put ``item`` back for later: background work while the decoder is prepared (it
        would only wait) or while the annotator is busy."""
        priority, kind = item[0], item[2]
        if waiting and (priority >= BACKGROUND or kind == "job"):
            self._queue.put(item)
            self.warm.wait(0.05)
            return True
        if priority >= BACKGROUND and time.monotonic() < self._quiet_until:
            self._queue.put(item)
            time.sleep(0.02)
            return True
        return False

    def _swapped(self, worker: Worker, loaded: Model | Converter) -> Converter:
        """What decodes after a swap to ``loaded``; the status note follows it."""
        converter = Engine(loaded) if isinstance(loaded, Model) else loaded
        self._done.clear()  # requests name the model through their key's serial
        if not self.warm.is_set():
            worker.report(Preparing(PREPARING_TEXT if isinstance(converter, Engine) else ""))
        return converter

    def _compile(self, engine: Engine) -> None:
        threading.Thread(target=self._prepare, args=(engine,), name="pad-compile",
                         daemon=True).start()

    def _prepare(self, engine: Engine) -> None:
        """Compile (or load from the cache) the decoder by decoding a word, on a thread of
        its own; the serving thread hears of it through the queue."""
        try:
            engine.candidates(HELLO, k=K_BEST)
        except Exception as e:  # noqa: BLE001 - shown to the user as "no model"
            self._problem = f"{type(e).__name__}: {e}"
        self.warm.set()
        self._queue.put((SWAP, next(self._order), "warm", None, None))

    def _warmed(self, worker: Worker, converter: Converter | None) -> Converter | None:
        """Say the decoder is ready, or why it is not; returns what decodes from now on."""
        self._announced = True
        worker.report(Preparing(""))
        if self._problem:
            converter = None
        worker.report(Ready(self._problem, converter))
        return converter


def _needed(converter: Converter | None) -> Converter:
    if converter is None:
        raise PadError("no model is loaded")
    return converter


def _job(fn: Callable[[Converter], object], converter: Converter | None) -> object:
    return fn(_needed(converter))


def _attempt(fn: Callable[..., object], *args: object) -> object:
    """``fn(*args)``, or the exception it raised (reported to the user by the caller)."""
    try:
        return fn(*args)
    except Exception as e:  # noqa: BLE001 - the caller shows it
        return e.with_traceback(None)  # no frames of this thread outlive it


def _decode(converter: Converter | None, sent: DepSentence) -> object:
    try:
        return _needed(converter).candidates(sent, k=K_BEST)
    except PadError as e:
        return e.with_traceback(None)
    except Exception as e:  # noqa: BLE001 - a decoder bug must not kill the thread
        traceback.print_exc()
        return PadError(f"decoder failed: {type(e).__name__}: {e}")
