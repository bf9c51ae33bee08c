"""``pad bench --gum``: the bundled UD model on GUM's held-out documents, from the UD
d-parses as a file has them (issue 37's target: at least 85.5)."""

from __future__ import annotations

import pytest

from pad_engine.cli import main


@pytest.mark.slow
def test_bench_gum_alone_prints_the_held_out_f1(gum_dir, capsys):
    assert main(["bench", "--gum", str(gum_dir)]) == 0
    row = capsys.readouterr().out.strip()
    assert row.startswith("UD: GUM held-out, english-gum-ud  952 sentences (every 10th")
    pruned = float(row.split("F1 pruned ")[1].split(",")[0])
    exact = float(row.split("exact ")[1])
    assert pruned >= 85.5
    assert abs(pruned - exact) <= 0.05  # issue 37: pruning costs nothing measurable


def test_bench_gum_refuses_a_folder_without_pairs(tmp_path, capsys):
    assert main(["bench", "--gum", str(tmp_path)]) == 1
    assert "not GUM" in capsys.readouterr().err
