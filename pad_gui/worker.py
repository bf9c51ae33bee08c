"""The engine's thread: loads the model, decodes sentences and runs export jobs off the UI.

One thread owns the engine, so decoding never races itself, and a priority queue lets the
sentence on screen jump ahead of background prefetching. Results go into a plain queue that
the UI thread drains on a timer, so no Python object ever crosses threads inside Qt.
"""

from __future__ import annotations

import itertools
import queue
import time
import traceback
from collections.abc import Callable, Hashable
from pathlib import Path

from PySide6.QtCore import QThread

from pad_engine.api import Engine
from pad_engine.deptree import DepSentence
from pad_engine.errors import PadError
from pad_engine.model import Model
from pad_engine.rulebased import RuleBasedEngine

# Priorities: lower runs first.
SWAP = -1  # a model change goes before every decode queued after it
NOW = 0
SOON = 1
BACKGROUND = 2

K_BEST = 10
DecodeKey = Hashable  # names the sentence and the d-parse it is decoded under


class EngineThread(QThread):
    """Decodes ``(index, heads)`` requests and runs jobs; posts each result once.

    Results, taken with :meth:`take_results`, are ``("ready", problem or "", None)`` once
    the model is loaded and warm, ``("decoded", key, list[Candidate] | PadError)`` and
    ``("job", job id, result | Exception)``.
    """

    def __init__(self, model_path: str | Path | None = None, parent=None):
        super().__init__(parent)
        self.model_path = model_path
        self.engine: Engine | RuleBasedEngine | None = None
        self._queue: queue.PriorityQueue = queue.PriorityQueue()
        self._order = itertools.count()
        self._done: set[DecodeKey] = set()
        self._jobs = itertools.count(1)
        self._results: queue.SimpleQueue = queue.SimpleQueue()
        self._quiet_until = 0.0

    def pause_background(self, seconds: float = 0.4) -> None:
        """Hold background decoding while the annotator is busy: a decode holds the GIL
        (Numba), so running one in the middle of a redraw would make the UI stutter."""
        self._quiet_until = time.monotonic() + seconds

    def take_results(self) -> list[tuple[str, Hashable, object]]:
        """Every result posted so far (call from the UI thread)."""
        out = []
        while True:
            try:
                out.append(self._results.get_nowait())
            except queue.Empty:
                return out

    def request(self, key: DecodeKey, sent: DepSentence, priority: int = NOW) -> None:
        """Queue a decode of ``sent`` (whose heads are ``key[1]``) unless already done."""
        if key not in self._done:
            self._queue.put((priority, next(self._order), "decode", key, sent))

    def submit(self, fn: Callable[[Engine], object]) -> int:
        """Run ``fn(engine)`` on this thread after the queued decodes of higher priority;
        returns the job id that ``job_done`` will carry."""
        job = next(self._jobs)
        self._queue.put((SOON, next(self._order), "job", job, fn))
        return job

    def swap_model(self, load: Callable[[], Model | Engine | RuleBasedEngine]) -> int:
        """Decode with ``load()``'s model (or engine) from now on (loaded on this thread,
        before any decode requested later); returns the job id whose result is None or the
        error (after an error the previous model stays)."""
        job = next(self._jobs)
        self._queue.put((SWAP, next(self._order), "swap", job, load))
        return job

    def drop_pending(self) -> None:
        """Forget queued decodes (another file was opened); queued jobs still run."""
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

    def stop(self) -> None:
        """Ask the thread to finish and wait for it."""
        self._queue.put((-1, next(self._order), "stop", None, None))
        self.wait()

    def run(self) -> None:
        try:
            self.engine = Engine.load(self.model_path)
            # The first decode compiles or loads the Numba code: do it now, not on screen.
            self.engine.candidates(DepSentence(["Hello", "."], ["UH", "."], [0, 1]))
        except Exception as e:  # noqa: BLE001 - any failure means "no model", shown to the user
            self.engine = None
            self._post("ready", f"{type(e).__name__}: {e}", None)
        else:
            self._post("ready", "", None)
        while True:
            item = self._queue.get()
            priority, _, kind, key, payload = item
            if priority >= BACKGROUND and time.monotonic() < self._quiet_until:
                self._queue.put(item)
                time.sleep(0.02)
                continue
            if kind == "stop":
                return
            if kind == "job":
                self._run_job(key, payload)
            elif kind == "swap":
                self._swap(key, payload)
            elif key not in self._done:
                self._decode(key, payload)

    def _decode(self, key: DecodeKey, sent: DepSentence) -> None:
        try:
            if self.engine is None:
                raise PadError("no model is loaded")
            result: object = self.engine.candidates(sent, k=K_BEST)
        except PadError as e:
            result = e
        except Exception as e:  # noqa: BLE001 - a decoder bug must not kill the thread
            result = PadError(f"decoder failed: {type(e).__name__}: {e}")
            traceback.print_exc()
        self._done.add(key)
        self._post("decoded", key, result)

    def _run_job(self, job: int, fn: Callable[[Engine], object]) -> None:
        try:
            if self.engine is None:
                raise PadError("no model is loaded")
            result = fn(self.engine)
        except Exception as e:  # noqa: BLE001 - reported to the user by the caller
            result = e
        self._post("job", job, result)

    def _swap(self, job: int, load: Callable[[], Model | Engine | RuleBasedEngine]) -> None:
        try:
            loaded = load()
            self.engine = Engine(loaded) if isinstance(loaded, Model) else loaded
        except Exception as e:  # noqa: BLE001 - reported to the user by the caller
            self._post("job", job, e)
            return
        self._done.clear()  # requests name the model through their key's serial
        self._post("job", job, None)

    def _post(self, kind: str, key: Hashable, result: object) -> None:
        if isinstance(result, BaseException):
            result = result.with_traceback(None)  # no frames of this thread outlive it
        self._results.put((kind, key, result))
