"""A run's inputs: the CoNLL files under the input folder, the outputs that mirror them,
and which paths are input files (through a link), so that no output overwrites one."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from pad_engine.io.special import regular_file_problem

EXTENSIONS = (".conll", ".conllx", ".conllu")


def find_inputs(in_dir: str | os.PathLike[str]) -> list[PurePosixPath]:
    """CoNLL files under ``in_dir`` (recursive), as sorted paths relative to it; only regular
    files (and links to them), see :func:`scan_inputs`."""
    return scan_inputs(in_dir)[0]


def scan_inputs(in_dir: str | os.PathLike[str]
                ) -> tuple[list[PurePosixPath], list[tuple[PurePosixPath, str]]]:
    """The CoNLL files under ``in_dir`` (recursive) as sorted relative paths, and the names
    with a CoNLL extension that are special files (a FIFO, a device, a socket), each with the
    reason it is not read. A name that cannot be looked up (a broken link) is an input, which
    then fails with the reason."""
    root = Path(in_dir)
    found, special = [], []
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        rel = Path(folder).relative_to(root)
        for name in files:
            if not name.lower().endswith(EXTENSIONS):
                continue
            path = PurePosixPath(rel.as_posix(), name)
            try:
                problem = regular_file_problem(os.stat(os.path.join(folder, name)))
            except OSError:
                problem = None
            if problem:
                special.append((path, problem))
            else:
                found.append(path)
    return sorted(found), sorted(special)


def output_names(inputs: list[PurePosixPath], kbest: int) -> list[PurePosixPath]:
    """Output paths mirroring the inputs: ``a/b.conllu`` -> ``a/b.mrg`` (``.kbest`` for k-best
    output); inputs that share a folder and stem keep their extension (``b.conll.mrg``)."""
    ext = ".kbest" if kbest else ".mrg"
    stems: dict[PurePosixPath, int] = {}
    for p in inputs:
        stems[p.with_suffix("")] = stems.get(p.with_suffix(""), 0) + 1
    return [p.with_name(p.name + ext) if stems[p.with_suffix("")] > 1 else p.with_suffix(ext)
            for p in inputs]


def inodes(paths: Iterator[Path]) -> dict[tuple[int, int], str]:
    """(device, inode) of each existing path -> the path."""
    out = {}
    for path in paths:
        try:
            st = os.stat(path)
        except OSError:
            continue
        out[(st.st_dev, st.st_ino)] = str(path)
    return out


def input_at(path: Path, sources: dict[tuple[int, int], str]) -> str | None:
    """The input file that ``path`` is (through a link), if it is one."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return sources.get((st.st_dev, st.st_ino))
