"""Dask is the optional extra ``pad-studio[dask]``: without it every command works, and a run
on a scheduler says in one line which extra to install, before doing any work."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from toy import make_tree

from pad_engine.cli import main

REPO = Path(__file__).resolve().parent.parent
EXTRA = "pip install 'pad-studio[dask]'"

# A Python without dask: a meta-path finder that refuses dask and distributed.
WITHOUT_DASK = textwrap.dedent("""
    import sys

    class NoDask:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in ("dask", "distributed"):
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)

    sys.meta_path.insert(0, NoDask())
""")


@pytest.mark.parametrize("missing", ["distributed", "dask"])
def test_convert_dir_on_a_scheduler_without_dask_names_the_extra(tmp_path, monkeypatch, capsys,
                                                                 missing):
    src, out = make_tree(tmp_path), tmp_path / "out"
    monkeypatch.setitem(sys.modules, missing, None)  # what Python does for a blocked module
    if missing == "dask":
        monkeypatch.setitem(sys.modules, "distributed", None)  # it needs dask
    assert main(["convert-dir", str(src), str(out), "--scheduler", "tcp://127.0.0.1:1"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith("pad convert-dir: "), err
    assert EXTRA in err[0], err
    assert not out.exists()  # refused before any work


def test_without_dask_the_engine_imports_and_only_a_scheduler_run_refuses(tmp_path):
    src = make_tree(tmp_path)
    script = WITHOUT_DASK + textwrap.dedent(f"""
        import pad_engine.api, pad_engine.cli.convert_dir, pad_engine.batch.folders
        assert not {{"dask", "distributed"}} & set(sys.modules), "dask imported eagerly"
        from pad_engine.cli import main
        sys.exit(main(["convert-dir", {str(src)!r}, {str(tmp_path / "out")!r},
                       "--scheduler", "tcp://127.0.0.1:1"]))
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)},
                          timeout=300)
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines() == [
        "pad convert-dir: a Dask scheduler needs dask.distributed, which is not installed: "
        + EXTRA]
