"""The rule-based dependency-to-phrase projection (Xia & Palmer 2001): a tree from any d-parse
without a model.

For languages where no tree has been corrected yet there is nothing to train on, so the app
starts from this conversion. Every word projects a short chain of phrases chosen from its POS
class, its dependents and its own head (a noun projects NP, a preposition PP, a verb VP and
then S when it has a subject, a complementizer SBAR...); each dependent's maximal projection
attaches to one level of its head's chain. Levels are assigned so that they never decrease
outward from the head on either side, so every phrase covers a contiguous span and the tree
induces exactly the input d-parse (projectivized first). It reads PTB tags (Collins-style
d-parses: prepositions, auxiliaries and complementizers head) and UD UPOS tags with or without
UD relations (content heads: ``case``, ``mark``, ``aux`` and ``cop`` add levels above the
content word).

Tuned on the PTB sample's train split; on its test split, with gold tags and d-parses, EVALB
F1 is 97.2 from Collins-style and 95.4 from content-head d-parses (``pad bench --rules-only``;
Xia et al. 2009 report 89.4, PAD about 97.5).

The modules, lowest first: ``words`` (word classes and lexicons), ``plan`` (a chain under
construction and its contiguity invariant), ``coordination``, the rule groups ``nominals``,
``modifiers`` and ``clauses``, and ``tree`` (``project``, which dispatches to them, and
``projection``: the phrases it makes, which give the tree or a model's features). Names
with a leading underscore are shared between these modules, not offered to callers outside.
:mod:`pad_engine.decoding.rulebased` puts the projection to use (the no-model converter, its
label sets, the features a model reads off it).
"""

from pad_engine.decoding.projection.tree import LABELS, Projection, project, projection
from pad_engine.decoding.projection.words import word_class

__all__ = ["LABELS", "Projection", "project", "projection", "word_class"]
