"""Issue 6 figure: precision and recall of ``horizontal.audit`` and of the seed's grep audit
against hand labels of real Django projects.

    python -m benchmarks.audit_quality NAME=PATH [NAME=PATH ...]

NAME is a project in ``benchmarks/audit_labels.json`` and PATH a checkout of it at the
labelled commit (this script fetches nothing). Both tools scan the whole checkout. A hit is
true when it lands on a labelled line of the same file (whatever category either tool
gives it); precision = true hits / hits, recall = labels with at least one hit / labels.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from benchmarks.audit import GREP_AUDIT

ROOT = Path(__file__).resolve().parents[1]
LABELS = Path(__file__).with_name("audit_labels.json")

Hit = tuple[str, int]  # path relative to the checkout, line (0: a whole file)


@dataclass
class Score:
    hits: int = 0
    true_hits: int = 0
    labels: int = 0
    found_labels: int = 0

    def add(self, other: Score) -> None:
        self.hits += other.hits
        self.true_hits += other.true_hits
        self.labels += other.labels
        self.found_labels += other.found_labels

    @property
    def precision(self) -> float:
        return self.true_hits / self.hits if self.hits else 0.0

    @property
    def recall(self) -> float:
        return self.found_labels / self.labels if self.labels else 0.0

    def __str__(self) -> str:
        return (
            f"precision {self.precision:6.1%} ({self.true_hits}/{self.hits})  "
            f"recall {self.recall:6.1%} ({self.found_labels}/{self.labels})"
        )


def audit_hits(checkout: Path) -> list[Hit]:
    from horizontal.audit import scan_paths

    return [(f.path, f.line) for f in scan_paths([checkout], base=checkout).findings]


def grep_hits(checkout: Path) -> list[Hit]:
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch, "grep.tsv")
        subprocess.run(
            ["bash", "-c", GREP_AUDIT, "grep-audit", ".", str(out)],
            cwd=checkout,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        rows = out.read_text(errors="replace").splitlines()[1:]
    hits = []
    for row in rows:
        _, _, location = row.partition("\t")
        path, _, rest = location.removeprefix("./").partition(":")
        line, _, _ = rest.partition(":")
        hits.append((path, int(line) if line.isdigit() else 0))
    return hits


def score(hits: list[Hit], labels: list[dict[str, object]]) -> Score:
    labelled = {
        (str(label["path"]), int(line)): index
        for index, label in enumerate(labels)
        for line in label["lines"]  # type: ignore[attr-defined]
    }
    found = {labelled[hit] for hit in hits if hit in labelled}
    true_hits = sum(1 for hit in hits if hit in labelled)
    return Score(len(hits), true_hits, len(labels), len(found))


def main(arguments: list[str]) -> None:
    sys.path.insert(0, str(ROOT))
    projects = json.loads(LABELS.read_text())["projects"]
    if not arguments:
        raise SystemExit(__doc__)
    totals = {"horizontal.audit": Score(), "grep audit": Score()}
    for argument in arguments:
        name, _, path = argument.partition("=")
        labels = projects[name]["labels"]
        checkout = Path(path).resolve()
        print(f"{name} ({projects[name]['repository']} @ {projects[name]['commit'][:10]}):")
        for tool, hits in (
            ("horizontal.audit", audit_hits(checkout)),
            ("grep audit", grep_hits(checkout)),
        ):
            result = score(hits, labels)
            totals[tool].add(result)
            print(f"  {tool:17} {result}")
    print("all projects:")
    for tool, total in totals.items():
        print(f"  {tool:17} {total}")
    ours, grep = totals["horizontal.audit"], totals["grep audit"]
    if grep.precision and grep.recall:
        print(
            f"  horizontal.audit / grep: precision x{ours.precision / grep.precision:.1f}, "
            f"recall x{ours.recall / grep.recall:.1f}"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
