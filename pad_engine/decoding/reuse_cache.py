"""A least-recently-used cache that keeps a result only once its arguments come a second time.

The rule-based projection of a sentence is remembered because retraining, its
cross-validation and the app's candidates ask for the same sentences again and again. A
conversion of a file asks for each sentence once: a plain LRU cache then fills with results
nobody asks for again (``pad convert`` of all of GUM with the bundled PTB model, which reads
the projection: 255 MB at the peak instead of 190). Here a first request leaves only its
arguments' hash behind, so a stream of sentences each seen once keeps a few bytes a
sentence, and a sentence asked for again costs one more computation before it is kept.
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")
_MISSING = object()  # no result kept (a result may be None)


def remembered_on_reuse(maxsize: int) -> Callable[[Callable[..., T]], Callable[..., T]]:
    """Decorate a function of hashable positional arguments: up to ``maxsize`` results,
    least recently used dropped first, each kept from its arguments' second request on;
    the hashes of up to ``maxsize`` arguments asked for once are kept to tell."""

    def decorate(fn: Callable[..., T]) -> Callable[..., T]:
        kept: OrderedDict[tuple, T] = OrderedDict()
        asked: OrderedDict[int, None] = OrderedDict()  # hashes of arguments asked for once
        lock = threading.Lock()

        @functools.wraps(fn)
        def call(*args):
            with lock:
                result = kept.get(args, _MISSING)
                if result is not _MISSING:
                    kept.move_to_end(args)
                    return result
            result = fn(*args)
            key = hash(args)
            with lock:
                if key in asked:  # asked for before: keep it now
                    del asked[key]
                    kept[args] = result
                    if len(kept) > maxsize:
                        kept.popitem(last=False)
                else:
                    asked[key] = None
                    if len(asked) > maxsize:
                        asked.popitem(last=False)
            return result

        return call

    return decorate
