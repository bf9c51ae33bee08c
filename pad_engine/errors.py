"""Errors the engine raises on bad input: each names the file, the line and the problem."""

from __future__ import annotations


class PadError(Exception):
    """Base class of every error the engine raises on purpose."""


class InputError(PadError):
    """Malformed input: ``str(err)`` reads ``FILE:LINE: problem``."""

    def __init__(self, problem: str, path: str | None = None, line: int | None = None):
        self.problem = problem
        self.path = path
        self.line = line
        where = path or "<input>"
        if line is not None:
            where = f"{where}:{line}"
        super().__init__(f"{where}: {problem}")


class ModelError(PadError):
    """A model file that cannot be loaded (damaged, truncated, foreign or too new)."""


class Cancelled(Exception):
    """A long job (training, adaptation) was cancelled through its ``cancel`` callback."""
