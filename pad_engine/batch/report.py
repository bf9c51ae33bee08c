"""What a folder conversion did: each file's result and the run's report, which is also
written into the output folder as JSON and as text."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from pad_engine.io.gate import write_text

REPORT_NAME = "pad-convert-report"  # .json and .txt in the output folder
CONVERTED, UP_TO_DATE, FAILED, SKIPPED = "converted", "up to date", "failed", "skipped"


@dataclass
class Skipped:
    """A sentence that was not converted: an empty line stands in its place in the output."""

    file: str
    line: int | None
    reason: str


@dataclass
class FileResult:
    """What happened to one input file (paths relative to the input and output folders)."""

    input: str
    output: str
    status: str  # CONVERTED, UP_TO_DATE (by an earlier run), FAILED or SKIPPED (not a file)
    sentences: int = 0
    converted: int = 0
    fallback: int = 0
    kbest_cut: int = 0  # sentences whose k-best list the memory budget cut (ConvertReport.cut)
    skipped: list[Skipped] = field(default_factory=list)
    seconds: float = 0.0
    error: str = ""  # why a FAILED file failed, or a SKIPPED one was not read
    warning: str = ""  # e.g. the model reads labels the file mostly lacks
    model: str = ""  # which model converted it (per file when the run chooses), and why

    @classmethod
    def from_json(cls, d: dict) -> FileResult:
        return cls(**{**d, "skipped": [Skipped(**s) for s in d.get("skipped", [])]})


@dataclass
class BatchReport:
    """The outcome of a run; also written to ``report_path`` (JSON) and its ``.txt`` twin."""

    in_dir: str
    out_dir: str
    model: str
    model_sha256: str
    kbest: int
    prune: bool
    pos: str
    workers: str
    files: list[FileResult] = field(default_factory=list)
    seconds: float = 0.0
    cancelled: bool = False
    report_path: str = ""

    def count(self, status: str) -> int:
        return sum(f.status == status for f in self.files)

    @property
    def sentences(self) -> int:
        return sum(f.sentences for f in self.files)

    @property
    def converted(self) -> int:
        return sum(f.converted for f in self.files)

    @property
    def skipped(self) -> list[Skipped]:
        return [s for f in self.files for s in f.skipped]

    @property
    def sentences_per_second(self) -> float:
        """Speed of this run: sentences of the files it converted over its wall time."""
        done = sum(f.sentences for f in self.files if f.status == CONVERTED)
        return done / self.seconds if self.seconds > 0 else 0.0

    def to_json(self) -> dict:
        d = asdict(self)
        d["totals"] = {
            "files": len(self.files),
            "converted_files": self.count(CONVERTED),
            "up_to_date_files": self.count(UP_TO_DATE),
            "failed_files": self.count(FAILED),
            "skipped_files": self.count(SKIPPED),
            "sentences": self.sentences,
            "converted_sentences": self.converted,
            "skipped_sentences": len(self.skipped),
            "fallback_sentences": sum(f.fallback for f in self.files),
            "kbest_cut_sentences": sum(f.kbest_cut for f in self.files),
            "sentences_per_second": round(self.sentences_per_second, 1),
        }
        return d

    def to_text(self) -> str:
        t = self.to_json()["totals"]
        how = f"{self.kbest}-best" if self.kbest else "1-best"
        lines = [
            "PAD convert-dir report" + (" (CANCELLED: not every file was converted)"
                                        if self.cancelled else ""),
            f"input:   {self.in_dir}",
            f"output:  {self.out_dir}",
            f"model:   {self.model} (sha256 {self.model_sha256[:16]})",
            f"options: {how}, {'pruned' if self.prune else 'exact'} decoding, POS {self.pos}; "
            f"{self.workers}",
            f"time:    {self.seconds:.1f} s, {t['sentences_per_second']:,.1f} sentences/s",
            f"files:   {t['files']} ({t['converted_files']} converted, "
            f"{t['up_to_date_files']} up to date from an earlier run, {t['failed_files']} failed"
            + (f", {t['skipped_files']} skipped: not regular files" if t["skipped_files"] else "")
            + ")",
            f"sentences: {t['sentences']} ({t['converted_sentences']} converted, "
            f"{t['fallback_sentences']} of them by the flat fallback"
            + (f", {t['kbest_cut_sentences']} with the k-best list cut to fit memory (fewer "
               "than k trees: the chart was too large for k)"
               if t["kbest_cut_sentences"] else "")
            + f"; {t['skipped_sentences']} skipped, an empty output line each)",
            "",
        ]
        width = max([len(f.input) for f in self.files] + [4])
        lines.append(f"{'FILE':<{width}}  {'STATUS':<10}  {'SENTENCES':>9}  {'CONVERTED':>9}  "
                     f"{'SKIPPED':>7}  OUTPUT  MODEL")
        for f in self.files:
            lines.append(f"{f.input:<{width}}  {f.status:<10}  {f.sentences:>9}  "
                         f"{f.converted:>9}  {len(f.skipped):>7}  {f.output}  "
                         f"{f.model.split(' (')[0] or '-'}"
                         + (f"  ({f.error})" if f.error else ""))
        warned = [f for f in self.files if f.warning]
        if warned:
            lines += ["", "Warnings:"]
            lines += [f"{f.input}: {f.warning}" for f in warned]
        if self.skipped:
            lines += ["", "Skipped sentences:"]
            lines += [f"{s.file}:{s.line}: {s.reason}" for s in self.skipped]
        return "\n".join(lines) + "\n"


def write_report(report: BatchReport, out_root: Path) -> None:
    """Write the report (JSON and its .txt twin) into the output folder, and say where."""
    path = out_root / f"{REPORT_NAME}.json"
    report.report_path = str(path)
    write_text(path, json.dumps(report.to_json(), indent=1) + "\n")
    write_text(path.with_suffix(".txt"), report.to_text())
