"""Reading and writing: CoNLL-X/CoNLL-U, Penn trees, atomic file writes.

Depends only on ``trees`` (the data types it reads into) and ``errors``."""
