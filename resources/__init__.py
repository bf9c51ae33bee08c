"""Data shipped with PAD Studio: head-rule tables, the default models, the sample treebank.

Installed as the package ``pad_resources`` so that ``importlib.resources`` finds it both in
an editable checkout and in a wheel.
"""

from importlib.resources import files
from pathlib import Path


def resource_path(*parts: str) -> Path:
    """Path of a shipped resource file, e.g. ``resource_path("headrules", "collins.txt")``."""
    return Path(str(files(__name__).joinpath(*parts)))
