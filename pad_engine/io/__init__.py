"""Reading and writing: CoNLL-X/CoNLL-U, Penn trees, and the gate every file passes
(``gate``, with ``atomic`` writes and ``special`` files).

Depends only on ``trees`` (the data types it reads into) and ``errors``; ``gate``, ``atomic``
and ``special`` depend on ``errors`` alone (they rank with it, so every layer may use them)."""
