"""Import contracts: the layering that ARCHITECTURE.md describes, checked on every run.

Every ``import`` of every module is read with ``ast`` (those inside functions too, since a
lazy import is still a dependency); ``if TYPE_CHECKING:`` imports count for the layers but
not for cycles, as they never run.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("pad_engine", "pad_gui")
QT = ("PySide6", "shiboken6", "PyQt5", "PyQt6", "qtpy", "superqt", "pytestqt")
# pad_engine's layers, lowest first: a module may import its own layer and those below.
LAYERS = (
    ("pad_engine.errors", "pad_engine.resources", "pad_engine.io.gate", "pad_engine.io.atomic",
     "pad_engine.io.special", "pad_engine.io.limits", "pad_engine.significance"),
    ("pad_engine.trees",),
    ("pad_engine.io",),
    ("pad_engine.decoding",),
    ("pad_engine.parsing",),  # the text pipeline ends by converting its d-parses
    ("pad_engine.learning", "pad_engine.quality"),
    ("pad_engine.batch",),
    ("pad_engine.api",),
    ("pad_engine.cli", "pad_engine.__main__"),
)
GUI_MAY_IMPORT = ("pad_engine.api",)
# The app's state and behaviour, which tests drive without Qt (napari's Qt-free core).
GUI_QT_FREE = ("pad_gui.controllers", "pad_gui.session", "pad_gui.store",
               "pad_gui.events", "pad_gui.worker")
# The views (every other module) reach the project and the background worker through the
# controllers, which own them; ui_thread is the worker's Qt end, polling one on the UI thread.
GUI_VIEWS_AVOID = ("pad_gui.store", "pad_gui.worker")
GUI_WORKER_END = ("pad_gui.ui_thread",)


def module_name(path: Path, root: Path = REPO) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(source: str, name: str, is_package: bool) -> list[tuple[str, int, bool]]:
    """(imported module, line, only under TYPE_CHECKING) for every import in the source."""
    tree = ast.parse(source)
    typing_only: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            typing_only |= {id(n) for stmt in node.body for n in ast.walk(stmt)}
    package = name if is_package else name.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(a.name, node.lineno, id(node) in typing_only) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            # "from pkg import mod" depends on pkg.mod where that is a module of ours
            for alias in node.names:
                full = f"{base}.{alias.name}"
                target = full if _is_module(full) else base
                found.append((target, node.lineno, id(node) in typing_only))
    return found


def _is_module(name: str) -> bool:
    path = REPO.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def project_imports(root: Path = REPO) -> dict[str, list[tuple[str, int, bool]]]:
    graph = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            name = module_name(path, root)
            graph[name] = imports_of(path.read_text(encoding="utf-8"), name,
                                     path.name == "__init__.py")
    return graph


def _within(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _layer(name: str) -> int | None:
    for rank, prefixes in enumerate(LAYERS):
        if _within(name, prefixes):
            return rank
    return None


def violations(graph: dict[str, list[tuple[str, int, bool]]]) -> list[str]:
    """Every broken contract, one line each."""
    out = []
    for mod, imports in graph.items():
        for target, line, _ in imports:
            where = f"{mod}:{line} imports {target}"
            if mod.startswith("pad_engine") and (_within(target, QT) or
                                                _within(target, ("pad_gui",))):
                out.append(f"{where}: the engine never imports Qt or the app")
            if _within(mod, GUI_QT_FREE) and (_within(target, QT) or (
                    target.startswith("pad_gui") and not _within(target, GUI_QT_FREE))):
                out.append(f"{where}: the app's controllers import neither Qt nor its views")
            if mod.startswith("pad_gui") and not _within(mod, GUI_QT_FREE + GUI_WORKER_END) \
                    and _within(target, GUI_VIEWS_AVOID):
                out.append(f"{where}: a view reaches the project and the worker only through "
                           "the controllers")
            if mod.startswith("pad_gui") and target.startswith("pad_engine") and \
                    not _within(target, GUI_MAY_IMPORT):
                out.append(f"{where}: the app reaches the engine only through pad_engine.api")
            low, high = _layer(mod), _layer(target)
            if low is not None and high is not None and high > low:
                out.append(f"{where}: a lower layer never imports a higher one")
    return out + [f"import cycle: {' -> '.join(c)}" for c in cycles(graph)]


def cycles(graph: dict[str, list[tuple[str, int, bool]]]) -> list[list[str]]:
    """One cycle per strongly connected group of modules (run-time imports only)."""
    edges = {m: sorted({t for t, _, typing in imps if t in graph and t != m and not typing
                        and not m.startswith(t + ".")})  # a module imports its package
             for m, imps in graph.items()}
    found, done = [], set()
    for start in sorted(edges):
        stack, path, on_path = [(start, iter(edges[start]))], [start], {start}
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                stack.pop()
                path.pop()
                on_path.discard(node)
                done.add(node)
            elif nxt in on_path:
                cycle = [*path[path.index(nxt):], nxt]
                if not any(set(cycle) == set(c) for c in found):
                    found.append(cycle)
            elif nxt not in done:
                stack.append((nxt, iter(edges[nxt])))
                path.append(nxt)
                on_path.add(nxt)
    return found


def test_the_code_keeps_its_contracts():
    assert violations(project_imports()) == []


@pytest.mark.parametrize(("module", "source", "broken"), [
    ("pad_engine/trees/bad.py", "from PySide6.QtCore import QObject\n", "never imports Qt"),
    ("pad_engine/io/bad.py", "def f():\n    import pad_gui.window\n", "never imports Qt"),
    ("pad_gui/bad.py", "from pad_engine.decoding.engine import Engine\n", "only through"),
    ("pad_engine/trees/bad.py", "from pad_engine.learning import train\n", "lower layer"),
    ("pad_engine/batch/bad.py", "from pad_engine.cli.convert import run\n", "lower layer"),
    ("pad_engine/decoding/bad.py", "from pad_engine.parsing import pipeline\n",
     "lower layer"),
    ("pad_gui/bad.py", "from pad_gui.store import Store\n", "only through the controllers"),
    ("pad_gui/bad.py", "def f():\n    from pad_gui import worker\n",
     "only through the controllers"),
    ("pad_gui/bad.py", "from pad_gui.window import MainWindow\n", "import cycle"),
    ("pad_gui/controllers/bad.py", "from PySide6.QtCore import QTimer\n", "neither Qt"),
    ("pad_gui/session.py", "def f():\n    from pad_gui.window import MainWindow\n",
     "neither Qt"),
])
def test_a_deliberate_violation_is_caught(tmp_path, module, source, broken):
    """A copy of the code with one bad import added fails the contracts."""
    for package in PACKAGES:
        for path in (REPO / package).rglob("*.py"):
            target = tmp_path / path.relative_to(REPO)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / module).write_text(source, encoding="utf-8")
    if broken == "import cycle":  # window imports it back
        window = tmp_path / "pad_gui" / "window.py"
        window.write_text(window.read_text(encoding="utf-8") + "\nimport pad_gui.bad\n",
                          encoding="utf-8")
    found = violations(project_imports(tmp_path))
    assert any(broken in line for line in found), found


def test_the_learned_engine_and_the_projection_are_converters():
    from pad_engine.api import Converter, Engine, Model, RuleBasedEngine

    assert isinstance(RuleBasedEngine(), Converter)
    assert isinstance(Engine(Model()), Converter)


def test_code_reads_the_resources_of_its_own_checkout():
    """Not those of another checkout installed in the same environment (the resources are
    package data of ``pad_engine``, found beside the code that was imported)."""
    from pad_engine.resources import resource_path

    assert resource_path("headrules", "collins.txt") == \
        REPO / "pad_engine" / "data" / "headrules" / "collins.txt"
    assert resource_path("models").is_dir()


def test_the_facade_imports_its_parts_when_first_asked():
    """``import pad_engine.api`` stays light (no nltk, no Numba: the window comes up sooner),
    and every name it lists still resolves, to what it names where it lives."""
    import subprocess
    import sys

    code = ("import sys, pad_engine.api as api; heavy = [m for m in ('nltk', 'numba', "
            "'pad_engine.learning.train') if m in sys.modules]; assert not heavy, heavy; "
            "from pad_engine.api import HEADRULES, SearchSentence, edits; "
            "missing = [n for n in api.__all__ if not hasattr(api, n)]; assert not missing, "
            "missing; from pad_engine.trees.headrules import SHIPPED; assert HEADRULES is SHIPPED")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)
