"""Which sentence comes next: Next Uncorrected in file order, or least sure first (the
sentences the model is least sure of, short ones first: pad_engine's selection)."""

from __future__ import annotations

from pad_engine.api import margin_of, priority
from pad_gui.session import Session


def sure_key(session: Session, idx: int) -> tuple | None:
    """Where the sentence goes in least-sure-first order: short ones first, then the
    smallest score margin per word; None until decoded."""
    scores = session.scores(idx)
    if scores is None:
        return None
    words = len(session.sentences[idx])
    return priority(margin_of(scores, words), words, idx)


def next_uncorrected(session: Session, current: int, least_sure_first: bool) -> int | None:
    """The uncorrected sentence after ``current`` in file order (round the end), or with
    ``least_sure_first`` the least sure of those decoded so far; None when every sentence
    is corrected."""
    n = len(session)
    left = [i for i in ((current + step) % n for step in range(1, n + 1))
            if not session.is_corrected(i)]
    if not left:
        return None
    if least_sure_first:
        ranked = [(key, i) for i in left if (key := sure_key(session, i)) is not None]
        if ranked:
            return min(ranked)[1]
    return left[0]
