"""Where the shipped files are: head tables, bundled models, the sample treebank.

In a checkout they are the top-level ``resources/`` folder beside this package, always this
checkout's own: an editable install of another checkout in the same environment must not
lend its models. An installed wheel has them as the package ``pad_resources`` (setup.py).
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

_CHECKOUT = Path(__file__).resolve().parent.parent


def resource_dir() -> Path:
    """The folder that holds ``headrules/``, ``models/`` and ``sample/``."""
    local = _CHECKOUT / "resources"
    if (_CHECKOUT / "pyproject.toml").is_file() and (local / "headrules").is_dir():
        return local
    return Path(str(files("pad_resources")))


def resource_path(*parts: str) -> Path:
    """Path of a shipped file, e.g. ``resource_path("headrules", "collins.txt")``."""
    return resource_dir().joinpath(*parts)
