"""Where a coordination starts and ends among a head's dependents, and which conjuncts are too
bare to get phrases of their own: clauses, noun phrases and modifiers all coordinate alike."""

from __future__ import annotations

from pad_engine.decoding.projection.words import _NOMINAL, _is_subject, _Word


def _listed(words: list[_Word], w: _Word) -> bool:
    """Right after its head's coordinator, or after a comma in a coordination."""
    before = words[w.index - 1]
    return before.cls == "CC" or (before.form == "," and any(
        words[d].cls == "CC" for d in words[w.head].right))


def _coordination(words: list[_Word], w: _Word) -> int | None:
    """Index in ``w.right`` where a coordination starts, or None: at a coordinator (or UD
    ``conj``) with a conjunct after it, or at a semicolon, colon or dash before a clause with
    its own subject; earlier comma-separated conjuncts of nominal lists ("A, B and C") and the
    comma before the coordinator are included."""
    right = w.right
    start = None
    for k, d in enumerate(right):
        x = words[d]
        if (x.cls == "CC" and not x.rel and k + 1 < len(right)) or x.rel == "conj":
            start = k
            break
        if x.form in (";", ":", "--") and k + 1 < len(right) and _is_clause(words, right[k + 1]):
            start = k
            break
    if start is None:
        return None
    conj = next((d for d in right[start:] if words[d].cls not in ("PUNCT", "CC")), None)
    kind = _NOMINAL if w.cls in _NOMINAL else {"V", "AUX"} if w.cls in ("V", "AUX") else None
    if conj is not None and kind and words[conj].cls in kind:
        def item(x: _Word) -> bool:  # (not the "million" of "$ 737.5 million , or $ 3 ...")
            return x.cls in kind and not (w.cls in ("CUR", "NUM") and x.cls == "NUM") and (
                kind is _NOMINAL or (x.tag == w.tag and x.tag == words[conj].tag))

        while start >= 2:  # "A , B , and C" and "A , B and C" (nouns; verbs of one form)
            a, b = words[right[start - 2]], words[right[start - 1]]
            if (b.form in (",", ";") and item(a)) or (a.form in (",", ";") and item(b)):
                start -= 2
            else:
                break
    if start >= 1 and words[right[start - 1]].form in (",", ";"):
        start -= 1
    return start


def _is_clause(words: list[_Word], d: int) -> bool:
    x = words[d]
    return x.cls in ("V", "AUX") and any(_is_subject(words, e) for e in x.left)


def _bare(words: list[_Word], deps: list[int],
          classes: tuple[str, ...] = ("N", "ADJ", "NUM", "ADV")) -> bool:
    """Only one-word conjuncts ("notes and bonds", "big and red"; UD hangs the coordinator
    and commas on them)."""
    return all(words[d].cls in ("CC", "PUNCT", *classes) and
               all(words[e].cls in ("CC", "PUNCT") for e in words[d].left + words[d].right)
               for d in deps)


def _coordination_end(words: list[_Word], w: _Word, coord: int | None) -> int:
    """Index in ``w.right`` after the last conjunct of the coordination starting at
    ``coord``: what follows modifies the whole coordination ("the health and safety of our
    employees")."""
    right = w.right
    if coord is None:
        return len(right)
    conjs = [k for k in range(coord, len(right)) if words[right[k]].rel == "conj"]
    if conjs:
        last = conjs[-1]
    else:
        cc = next((k for k in range(coord, len(right)) if words[right[k]].cls == "CC"), coord)
        last = next((k for k in range(cc + 1, len(right)) if words[right[k]].cls != "PUNCT"),
                    len(right))
    return next((k for k in range(last + 1, len(right))
                 if words[right[k]].cls not in ("PUNCT", "CC")), len(right))
