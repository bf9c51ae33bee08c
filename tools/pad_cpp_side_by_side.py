"""PAD C++ (github ikekonglp/PAD) and this repository side by side, on PAD C++'s own d-parses.

Builds PAD C++ from a source tree (``git --git-dir=... archive HEAD | tar -x``), has its own
scripts (``python/Generator.py``, Python 2) write the grammar, the gold parts and the
d-parses of the Penn Treebank sample split (train wsj_0001-0159, test wsj_0160-0199, trees
normalized as ``pad eval`` reads them), then, label-free (column 8 set to one constant) and
labeled (column 8 as Generator.py writes it, e.g. ``S+NP``):

- trains PAD C++ (``padt``, full features) and decodes the test d-parses exactly and with
  both prunings (``pad``, ``-p --dir_pruning``);
- trains this repository's model on the same train d-parses (``pad train --deps``, with
  ``--labels`` when labeled) and converts the same test d-parses exactly and pruned
  (``pad convert``);
- scores every output with ``pad eval`` against the same gold trees, and times every
  process whole with ``/usr/bin/time -v`` (wall clock, peak resident memory).

Nothing here is a copy of PAD's code; the build fixes it needs, if any, are the patches in
:data:`PATCHES`, applied to a fresh copy of the source at build time. Usage::

    python tools/pad_cpp_side_by_side.py --pad-src PAD --ptb PTB_SAMPLE --work DIR \\
        --python2 PYTHON2 [--epochs 5] [--our-epochs 10] [--projection]

``--projection`` trains this repository's model with the strongest recipe instead of ``pad
train``'s default: reading the rule-based projection (``pad train --projection``; labeled,
``--labels --projection``: DEPREL per word and the projection's phrases over each span).

The figures are printed as a table and written to ``DIR/figures.json``.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

# Build fixes applied to the copy of PAD's source before ``make`` ((file, old, new)). PAD's
# Makefile and sources built unchanged with g++ 12 (Debian 12.2.0); none are needed today.
PATCHES: list[tuple[str, str, str]] = []
TRAIN, TEST = range(1, 160), range(160, 200)
CONSTANT = "DEP"  # the one label of the label-free setting


def run_timed(cmd: list[str], stdin: Path | None = None, stdout: Path | None = None,
              cwd: Path | None = None, at_end: str | None = None) -> dict:
    """Run ``cmd`` under ``/usr/bin/time -v``: its wall clock seconds and its peak resident
    memory (MB) as time reports it.
    ``at_end``: the message with which the command fails once its input is read (PAD C++'s
    ``pad`` loops on ``cin.good()``, reads an empty sentence past the last one and exits 1
    with "no root!"), taken as a normal end."""
    start = time.perf_counter()
    with open(stdin or "/dev/null", "rb") as fin, open(stdout or "/dev/null", "wb") as fout:
        done = subprocess.run(["/usr/bin/time", "-v", *cmd], stdin=fin, stdout=fout,
                              stderr=subprocess.PIPE, cwd=cwd, check=False)
    seconds = time.perf_counter() - start
    err = done.stderr.decode("utf-8", "replace")
    normal_end = at_end is not None and f"{at_end}\nCommand exited" in err
    if done.returncode and not normal_end:
        sys.exit(f"failed ({done.returncode}): {' '.join(cmd)}\n{err[-3000:]}")
    rss = re.findall(r"Maximum resident set size \(kbytes\): (\d+)", err)
    return {"seconds": seconds, "peak_mb": int(rss[-1]) / 1024 if rss else float("nan"),
            "stderr": err}


def build(src: Path, work: Path) -> Path:
    """A fresh copy of PAD's source with :data:`PATCHES` applied, built with make."""
    dest = work / "pad-src"
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(src, dest)
    for name, old, new in PATCHES:
        path = dest / name
        text = path.read_text()
        if old not in text:
            sys.exit(f"patch does not apply to {name}: {old!r}")
        path.write_text(text.replace(old, new))
    subprocess.run(["make", "-j2"], cwd=dest / "src", check=True, stdout=subprocess.DEVNULL)
    return dest


def write_split(ptb: Path, numbers: range, path: Path) -> None:
    """The files' trees normalized as training and ``pad eval`` read them, one per line in
    ``(TOP ...)``, as Generator.py expects."""
    from pad_engine.io.penn import normalize, read_penn, tree_to_line

    lines = []
    for k in numbers:
        lines += [tree_to_line(normalize(t)) for t in read_penn(ptb / f"wsj_{k:04d}.mrg").trees]
    path.write_text("".join(line + "\n" for line in lines))


def constant_labels(conll: Path, out: Path) -> None:
    """The d-parses with column 8 (DEPREL) set to :data:`CONSTANT`."""
    rows = []
    for line in conll.read_text().splitlines():
        cols = line.split("\t")
        if len(cols) == 10:
            cols[7] = CONSTANT
        rows.append("\t".join(cols))
    out.write_text("".join(row + "\n" for row in rows))


def generator(python2: str, pad: Path, mode: int, trees: Path, out: Path,
              rules: Path | None = None) -> None:
    cmd = [python2, str(pad / "python" / "Generator.py"), str(mode), "--inputf", str(trees)]
    if rules is not None:
        cmd += ["--rulef", str(rules)]
    with open(out, "wb") as fout:
        subprocess.run(cmd, cwd=pad / "python", stdout=fout, stderr=subprocess.DEVNULL,
                       check=True)


def evalb(gold: Path, test: Path) -> dict:
    """``pad eval``'s F1 and how many sentences it scored."""
    done = subprocess.run(["pad", "eval", str(gold), str(test)], capture_output=True,
                          text=True, check=True)
    f1 = re.search(r"Bracketing FMeasure\s*=\s*([\d.]+)", done.stdout)
    valid = re.search(r"Number of Valid sentence\s*=\s*(\d+)", done.stdout)
    return {"f1": float(f1.group(1)), "valid": int(valid.group(1)) if valid else None}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pad-src", type=Path, required=True, help="PAD C++ source tree")
    ap.add_argument("--ptb", type=Path, required=True, help="Penn Treebank sample folder")
    ap.add_argument("--work", type=Path, required=True, help="folder for every file made")
    ap.add_argument("--python2", required=True, help="Python 2 interpreter for Generator.py")
    ap.add_argument("--epochs", type=int, default=5, help="PAD C++ training epochs (5)")
    ap.add_argument("--our-epochs", type=int, default=10, help="pad train epochs (10)")
    ap.add_argument("--settings", nargs="+", default=["label-free", "labeled"],
                    choices=["label-free", "labeled"])
    ap.add_argument("--projection", action="store_true",
                    help="train ours reading the rule-based projection too (pad train "
                         "--projection), the strongest recipe")
    args = ap.parse_args()
    work = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    pad = build(args.pad_src.resolve(), work)
    bins = pad / "src"
    train_trees, test_trees = work / "train.mrg", work / "test.mrg"
    write_split(args.ptb, TRAIN, train_trees)
    write_split(args.ptb, TEST, test_trees)
    rules, parts = work / "rules", work / "parts"
    generator(args.python2, pad, 0, train_trees, rules)
    generator(args.python2, pad, 1, train_trees, parts, rules)
    generator(args.python2, pad, 2, train_trees, work / "train.labeled.conll")
    generator(args.python2, pad, 2, test_trees, work / "test.labeled.conll")
    for name in ("train", "test"):
        constant_labels(work / f"{name}.labeled.conll", work / f"{name}.label-free.conll")
    figures: dict = {}
    for setting in args.settings:
        train_conll, test_conll = (work / f"{n}.{setting}.conll" for n in ("train", "test"))
        row: dict = {}
        cpp_model = work / f"cpp.{setting}.model"
        row["cpp_train"] = run_timed([str(bins / "padt"), "--grammar", str(rules), "--model",
                                      str(cpp_model), "--annotations", str(parts), "--conll",
                                      str(train_conll), "--epochs", str(args.epochs)])
        for mode, flags in (("exact", []), ("pruned", ["-p", "--dir_pruning"])):
            out = work / f"cpp.{setting}.{mode}.mrg"
            row[f"cpp_{mode}"] = run_timed([str(bins / "pad"), "-m", str(cpp_model), *flags],
                                           stdin=test_conll, stdout=out, at_end="no root!")
            row[f"cpp_{mode}"].update(evalb(test_trees, out))
        ours = work / f"ours.{setting}.padmodel"
        row["ours_train"] = run_timed(
            ["pad", "train", str(train_trees), "--deps", str(train_conll), "-o", str(ours),
             "--epochs", str(args.our_epochs), *(["--labels"] if setting == "labeled" else []),
             *(["--projection"] if args.projection else [])])
        for mode, flags in (("exact", ["--no-prune"]), ("pruned", [])):
            out = work / f"ours.{setting}.{mode}.mrg"
            row[f"ours_{mode}"] = run_timed(["pad", "convert", str(test_conll), "--model",
                                             str(ours), "-o", str(out), *flags])
            row[f"ours_{mode}"].update(evalb(test_trees, out))
        for entry in row.values():
            entry.pop("stderr")
        figures[setting] = row
        (work / "figures.json").write_text(json.dumps(figures, indent=1))
    print(f"{'setting':<11} {'system':<8} {'F1 exact':>9} {'F1 pruned':>10} "
          f"{'decode s':>9} {'peak MB':>8} {'train s':>8} {'train MB':>9}")
    for setting, row in figures.items():
        for who in ("cpp", "ours"):
            e, p, t = row[f"{who}_exact"], row[f"{who}_pruned"], row[f"{who}_train"]
            print(f"{setting:<11} {'PAD C++' if who == 'cpp' else 'pad':<8} {e['f1']:9.2f} "
                  f"{p['f1']:10.2f} {p['seconds']:9.2f} {p['peak_mb']:8.0f} "
                  f"{t['seconds']:8.1f} {t['peak_mb']:9.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
