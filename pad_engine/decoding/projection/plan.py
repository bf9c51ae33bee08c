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
        if not (w.left or w.right):
            return self.labels, [_NOTHING] * len(self.labels)
        if not self.labels:
            self.labels.append(_PHRASE.get(w.cls, "X"))
        marks: set[int] = set()  # the punctuation that sets the phrase off as a PRN
        if w.head >= 0 and _parenthetical(words, w):
            prn = self.add("PRN")  # ", for example ,", "( 1986 )": set off on both sides
            marks = {w.left[-1], w.right[-1]}
        elif 0 <= w.head < w.index and w.left and words[w.left[-1]].form == "--":
            prn = self.add("PRN")  # "a high point -- (NP 33 days)"
            marks = {w.left[-1]}
        for d in marks:
            self.fixed[d] = prn
        top = self.top if self.top is not None else len(self.labels) - 1
        levels: list[_Level] = [([], []) for _ in self.labels]
        for k, side in enumerate((w.left, w.right)):
            # a floating dependent takes the level of the nearest fixed one farther out
            # (trailing ones: punctuation to the top, others with the nearer ones)
            level: dict[int, int] = {}
            farther: int | None = None
            for d in reversed(side):
                if d in marks:  # the rest floats as if they were not there: ", (PP for
                    level[d] = self.fixed[d]  # example) ," rather than ", (PP for) example ,"
                elif d in self.fixed:
                    farther = self.fixed[d]
                    level[d] = farther
                elif farther is not None:
                    level[d] = farther
                elif words[d].cls == "PUNCT":
                    level[d] = top
            low = 0
            for d in side:  # nearest first: levels may only grow outward
                low = max(low, level.get(d, low))
                levels[low][k].append(d)
        for lefts, _ in levels:
            lefts.reverse()  # farthest first
        return self.labels, levels
