"""Time accounting: how long the annotator spent on each sentence, for the effort summary.

Time is booked to the sentence on screen whenever something changes what the annotator is
doing (another sentence, a status change, the summary opened, the project closed). A glance
of under a second while scrolling past is not annotation work, and a long pause on one
sentence is capped by the session (``IDLE_CAP``).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from pad_gui.session import Session

MIN_VISIT = 1.0  # seconds


class TimeKeeper:
    """Books the time since the last booking to a sentence."""

    def __init__(self, clock: Callable[[], float] = time.monotonic,
                 min_visit: float = MIN_VISIT):
        self.clock = clock
        self.min_visit = min_visit
        self._since = clock()

    def book(self, session: Session | None, idx: int) -> None:
        """Count the time since the last booking to sentence ``idx`` (none: nothing)."""
        now = self.clock()
        if session is not None and idx >= 0 and now - self._since >= self.min_visit:
            session.add_time(idx, now - self._since)
        self._since = now
