"""A word's chain of phrases while the rules build it, and the one invariant that makes any
plan a valid tree: dependent levels never decrease outward from the head, so every phrase is
contiguous and the tree induces exactly the d-parse."""

from __future__ import annotations

from pad_engine.decoding.projection.words import _parenthetical, _Word

# the phrase a word of each class projects where no rule says otherwise
_PHRASE = {"N": "NP", "NUM": "NP", "CUR": "NP", "DET": "NP", "POS": "NP", "ADJ": "ADJP",
           "ADV": "ADVP", "NEG": "ADVP", "P": "PP", "SC": "SBAR", "TO": "PP", "V": "VP",
           "AUX": "VP", "WH": "WHNP", "WADV": "WHADVP", "PRT": "PRT", "CC": "CONJP",
           "INTJ": "INTJ", "PUNCT": "PRN", "X": "X"}

# the dependents a level attaches: left ones farthest first, right ones nearest first
_Level = tuple[list[int], list[int]]
_NOTHING: _Level = ([], [])  # shared: never changed


class _Plan:
    """Levels under construction: labels bottom up, fixed dependent levels, the rest float."""

    __slots__ = ("fixed", "labels", "top")

    def __init__(self, labels: list[str]):
        self.labels = labels
        self.fixed: dict[int, int] = {}
        self.top: int | None = None  # the level trailing punctuation goes to

    def add(self, label: str) -> int:
        self.labels.append(label)
        return len(self.labels) - 1

    def finish(self, words: list[_Word], w: _Word) -> tuple[list[str], list[_Level]]:
        """The labels and the dependents each level attaches. Levels never decrease outward
        on either side, so each level's phrase is contiguous: this is what makes the tree
        induce exactly the d-parse, whatever the rules above decided."""
        left, right = w.left, w.right
        labels, fixed = self.labels, self.fixed
        if not (left or right):
            return labels, [_NOTHING] * len(labels)
        if not labels:
            labels.append(_PHRASE.get(w.cls, "X"))
        marks: tuple[int, ...] = ()  # the punctuation that sets the phrase off as a PRN
        if w.head >= 0 and left and right and _parenthetical(words, w):
            marks = (left[-1], right[-1])  # ", for example ,", "( 1986 )": set off on both sides
        elif left and 0 <= w.head < w.index and words[left[-1]].form == "--":
            marks = (left[-1],)  # "a high point -- (NP 33 days)"
        if marks:
            prn = self.add("PRN")
            for d in marks:
                fixed[d] = prn
        top = self.top if self.top is not None else len(labels) - 1
        levels: list[_Level] = []
        for _ in labels:  # (a loop: cheaper than a comprehension for one or two)
            levels.append(([], []))
        for k, side in ((0, left), (1, right)):
            if not side:
                continue
            # a floating dependent takes the level of the nearest fixed one farther out
            # (trailing ones: punctuation to the top, others with the nearer ones; -1: any)
            asked: list[int] = []  # farthest first
            farther = -1
            for d in reversed(side):
                level = fixed.get(d, -1)
                if level >= 0:
                    if d not in marks:  # the rest floats as if they were not there: ", (PP
                        farther = level  # for example) ," rather than ", (PP for) example ,"
                elif farther >= 0:
                    level = farther
                elif words[d].cls == "PUNCT":
                    level = top
                asked.append(level)
            low = 0
            for d, level in zip(side, reversed(asked)):  # nearest first: levels only grow
                if level > low:
                    low = level
                levels[low][k].append(d)
        for lefts, _ in levels:
            if len(lefts) > 1:
                lefts.reverse()  # farthest first
        return labels, levels
