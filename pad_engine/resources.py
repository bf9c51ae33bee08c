"""Where the shipped files are: head tables, bundled models, label sets, the sample treebank.

They are package data of ``pad_engine`` (its ``data/`` folder), so the package that reads
them carries them: a wheel installs them beside the code, and code run from a checkout (or
an editable install of it) reads that checkout's own, never another's.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path


def resource_dir() -> Path:
    """The folder that holds ``headrules/``, ``labels/``, ``models/`` and ``sample/``."""
    return Path(str(files("pad_engine").joinpath("data")))


def resource_path(*parts: str) -> Path:
    """Path of a shipped file, e.g. ``resource_path("headrules", "collins.txt")``."""
    return resource_dir().joinpath(*parts)
