"""Where a treebank's annotation project lives, and the recently opened files.

Both are remembered in the app's settings, reached through :class:`Settings` (QSettings
fits it; tests pass a dict-backed stand-in).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any, Protocol

from pad_engine.api import resource_path

MAX_RECENT = 8


class Settings(Protocol):
    def value(self, key: str) -> Any: ...

    def setValue(self, key: str, value: Any) -> None: ...


def default_project_path(treebank: Path, data_folder: Path) -> Path:
    """``FILE.padproject`` next to the treebank; in ``data_folder`` when the treebank's
    folder is not writable or holds the bundled sample (never write into the package)."""
    treebank = treebank.resolve()
    bundled = resource_path().resolve()
    if os.access(treebank.parent, os.W_OK) and bundled not in treebank.parents:
        return treebank.with_name(treebank.name + ".padproject")
    data_folder.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha1(str(treebank).encode()).hexdigest()[:10]
    return data_folder / f"{treebank.stem}-{digest}.padproject"


class Projects:
    """The project chosen for each treebank, and the recent files, kept in settings."""

    def __init__(self, settings: Settings, data_folder: Path):
        self.settings = settings
        self.data_folder = data_folder

    def project_for(self, treebank: Path, chosen: str | Path | None = None) -> Path:
        """``chosen`` (remembered for the treebank), else the one last used with it, else
        the default place."""
        key = f"projects/{treebank.resolve()}"
        if chosen is not None:
            self.remember(treebank, chosen)
            return Path(chosen)
        mapped = self.settings.value(key)
        return Path(mapped) if mapped else default_project_path(treebank, self.data_folder)

    def remember(self, treebank: Path, project: str | Path) -> None:
        self.settings.setValue(f"projects/{treebank.resolve()}", str(Path(project).resolve()))

    def recent(self) -> list[str]:
        recent = self.settings.value("recent") or []
        return [recent] if isinstance(recent, str) else list(recent)  # one entry reads as str

    def opened(self, treebank: Path) -> None:
        """Put ``treebank`` first among the recent files."""
        path = str(treebank.resolve())
        rest = [p for p in self.recent() if p != path]
        self.settings.setValue("recent", [path, *rest][:MAX_RECENT])
