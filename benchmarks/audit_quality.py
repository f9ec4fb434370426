"""Issue 6 and 14 figures: precision and recall of ``horizontal.audit`` and of the seed's
grep audit against hand labels of real Django projects, by split.

    python -m benchmarks.audit_quality [--mirror DIR] [--checkouts DIR] [--no-grep]
                                       [NAME=PATH ...]

Every project of ``benchmarks/audit_labels.json`` is measured, at its pinned commit:

- ``NAME=PATH`` uses an existing checkout of it;
- otherwise ``--mirror DIR`` (or ``$AUDIT_CORPUS_MIRROR``) is a directory of bare git
  repositories named ``owner+name/repo`` (or ``owner+name.git``) from which the commit is
  written into ``--checkouts DIR`` (default ``$TMPDIR/horizontal-audit-corpus``), once;
- otherwise the commit is fetched from GitHub (``git fetch --depth 1``) into the same
  place. A project that cannot be had is reported as skipped, never silently dropped.

Both tools scan the whole checkout. A hit is one finding: its place and its related
locations (SARIF ``relatedLocations``; a grep line is a finding with one place). It is true
when one of its locations lands on a labelled line of the same file (whatever category
either tool gives it); precision = true findings / findings, recall = labels with at least
one location on them / labels. The figures of the older scoring, where every location
counted as a hit of its own, are printed beside them (``per location``).

The splits are reported separately: ``tuning`` (rules were written while reading them),
``held-out`` (never used for tuning) and ``new`` (measured before any change they prompt).

``--agreement`` measures the labels, not a tool: on the projects with ``second_labels``
(labelled again by a labeller who saw neither the first labels nor any tool's output),
the second labeller is scored against the first with the same scoring, each label one
hit. That is how far a careful reader with the same rules lands from the labels the
audit is measured against; it needs no checkout.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from benchmarks.audit import GREP_AUDIT

ROOT = Path(__file__).resolve().parents[1]
LABELS = Path(__file__).with_name("audit_labels.json")
SPLITS = ("tuning", "held-out", "new")

Location = tuple[str, int]  # path relative to the checkout, line (0: a whole file)
Hit = tuple[Location, ...]  # one finding: its place first, then its related locations


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
        precision = f"{self.precision:6.1%}" if self.hits else "     -"
        recall = f"{self.recall:6.1%}" if self.labels else "     -"
        return (
            f"precision {precision} ({self.true_hits}/{self.hits})  "
            f"recall {recall} ({self.found_labels}/{self.labels})"
        )


def audit_hits(checkout: Path) -> list[Hit]:
    from horizontal.audit import scan_paths

    return [
        ((finding.path, finding.line), *((r.path, r.line) for r in finding.related))
        for finding in scan_paths([checkout], base=checkout).findings
    ]


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
        hits.append(((path, int(line) if line.isdigit() else 0),))
    return hits


def score(hits: list[Hit], labels: list[dict[str, object]]) -> Score:
    """One finding is one hit, true when any of its locations is labelled."""
    labelled = _labelled_lines(labels)
    unique = list(dict.fromkeys(hits))
    found = {labelled[place] for hit in unique for place in hit if place in labelled}
    true_hits = sum(1 for hit in unique if any(place in labelled for place in hit))
    return Score(len(unique), true_hits, len(labels), len(found))


def label_hits(labels: list[dict[str, object]]) -> list[Hit]:
    """Labels read as findings: one hit per label, its lines its locations."""
    return [
        tuple((str(label["path"]), int(line)) for line in label["lines"])  # type: ignore[attr-defined]
        for label in labels
    ]


def agreement(projects: dict[str, dict[str, object]]) -> None:
    """The second labeller against the first, per project and in all."""
    total = Score()
    print(f"{'project':20} {'split':9} second labeller against the first")
    for name, project in projects.items():
        second = project.get("second_labels")
        if not isinstance(second, list):
            continue
        first = project["labels"]
        assert isinstance(first, list)
        found = score(label_hits(second), first)
        total.add(found)
        print(f"{name:20} {project.get('split')!s:9} {found}")
    print(f"{'all':30} {total}")


def score_per_location(hits: list[Hit], labels: list[dict[str, object]]) -> Score:
    """The older scoring: a finding and each related location are one hit each."""
    return score([(place,) for hit in hits for place in hit], labels)


def _labelled_lines(labels: list[dict[str, object]]) -> dict[Location, int]:
    return {
        (str(label["path"]), int(line)): index
        for index, label in enumerate(labels)
        for line in label["lines"]  # type: ignore[attr-defined]
    }


# -- getting a checkout of a pinned commit -------------------------------------------------


def _mirror_git_dir(mirror: Path, repository: str) -> Path | None:
    owner_name = repository.replace("/", "+")
    if not (mirror / owner_name).exists() and mirror.is_dir():
        # GitHub names are case-insensitive: ``Project-koku/koku`` is fetched as
        # ``project-koku+koku``.
        owner_name = next(
            (p.name for p in mirror.iterdir() if p.name.lower() == owner_name.lower()),
            owner_name,
        )
    # A bare mirror, or a clone's .git (the fetch tool brings either).
    for candidate in (
        mirror / owner_name / "repo" / ".git",
        mirror / owner_name / "repo",
        mirror / f"{owner_name}.git",
    ):
        if candidate.is_dir():
            return candidate
    return None


def _write_tree(git_dir: Path, commit: str, destination: Path) -> None:
    """Every blob of ``commit`` into ``destination`` (blobs a partial mirror lacks skipped)."""
    listing = subprocess.run(
        ["git", "--git-dir", str(git_dir), "ls-tree", "-r", "-z", commit],
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    entries: list[tuple[str, str]] = []
    for entry in listing:
        meta, _, path = entry.partition(b"\t")
        if not path:
            continue
        mode, kind, sha = meta.split()
        if kind == b"blob" and mode != b"120000":
            entries.append((sha.decode(), path.decode("utf-8", "replace")))
    with subprocess.Popen(
        ["git", "--git-dir", str(git_dir), "cat-file", "--batch"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    ) as batch:
        assert batch.stdin is not None and batch.stdout is not None
        for sha, path in entries:
            batch.stdin.write(sha.encode() + b"\n")
            batch.stdin.flush()
            header = batch.stdout.readline().split()
            if header[-1] == b"missing":
                continue
            data = batch.stdout.read(int(header[2]))
            batch.stdout.read(1)
            target = destination / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        batch.stdin.close()


def checkout_of(
    name: str, project: dict[str, object], mirror: Path | None, checkouts: Path
) -> Path | None:
    commit = str(project["commit"])
    repository = str(project["repository"])
    destination = checkouts / f"{name}-{commit[:12]}"
    if (destination / ".complete").exists():
        return destination
    destination.mkdir(parents=True, exist_ok=True)
    git_dir = _mirror_git_dir(mirror, repository) if mirror else None
    try:
        if git_dir is None:
            git_dir = checkouts / f"{name}.git"
            if not git_dir.exists():
                subprocess.run(["git", "init", "-q", "--bare", str(git_dir)], check=True)
            subprocess.run(
                [
                    "git",
                    "--git-dir",
                    str(git_dir),
                    "fetch",
                    "-q",
                    "--depth",
                    "1",
                    f"https://github.com/{repository}",
                    commit,
                ],
                check=True,
            )
        _write_tree(git_dir, commit, destination)
    except (subprocess.CalledProcessError, OSError) as error:
        print(f"  {name}: skipped, no checkout of {repository}@{commit[:10]} ({error})")
        return None
    (destination / ".complete").write_text(commit)
    return destination


# -- the report ------------------------------------------------------------------------------


def measure(
    projects: dict[str, dict[str, object]], checkouts: dict[str, Path], grep: bool
) -> Iterator[tuple[str, str, Score, Score, Score | None]]:
    """Per project: the audit per finding, the audit per location, grep (or None)."""
    for name, project in projects.items():
        checkout = checkouts.get(name)
        if checkout is None:
            continue
        labels = project["labels"]
        assert isinstance(labels, list)
        found = audit_hits(checkout)
        theirs = score(grep_hits(checkout), labels) if grep else None
        split = str(project.get("split", "tuning"))
        yield name, split, score(found, labels), score_per_location(found, labels), theirs


def main(arguments: list[str]) -> None:
    sys.path.insert(0, str(ROOT))
    parser = argparse.ArgumentParser(prog="python -m benchmarks.audit_quality")
    parser.add_argument("given", nargs="*", metavar="NAME=PATH")
    parser.add_argument("--mirror", type=Path, default=os.environ.get("AUDIT_CORPUS_MIRROR"))
    parser.add_argument(
        "--checkouts",
        type=Path,
        default=Path(tempfile.gettempdir()) / "horizontal-audit-corpus",
    )
    parser.add_argument("--no-grep", action="store_true", help="skip the grep audit")
    parser.add_argument("--split", choices=SPLITS, action="append", help="only these splits")
    parser.add_argument(
        "--agreement", action="store_true", help="second labels against the first; no tool"
    )
    options = parser.parse_args(arguments)
    projects: dict[str, dict[str, object]] = json.loads(LABELS.read_text())["projects"]
    if options.agreement:
        agreement(projects)
        return
    if options.split:
        projects = {n: p for n, p in projects.items() if p.get("split") in options.split}
    given = dict(argument.partition("=")[::2] for argument in options.given)
    checkouts: dict[str, Path] = {}
    for name, project in projects.items():
        if name in given:
            checkouts[name] = Path(given[name]).resolve()
        else:
            found = checkout_of(name, project, options.mirror, options.checkouts)
            if found is not None:
                checkouts[name] = found
    totals: dict[str, dict[str, Score]] = {}
    print(f"{'project':20} {'split':9} {'horizontal.audit':44} grep audit")
    measured = measure(projects, checkouts, not options.no_grep)
    for name, split, ours, per_location, theirs in measured:
        project = projects[name]
        commit = str(project["commit"])[:10]
        print(f"{name:20} {split:9} {ours!s:44} {theirs if theirs else ''}")
        print(f"{'':20} {'':9} ({project['repository']} @ {commit}; per location: {per_location})")
        split_totals = totals.setdefault(
            split, {"audit": Score(), "per location": Score(), "grep": Score()}
        )
        split_totals["audit"].add(ours)
        split_totals["per location"].add(per_location)
        if theirs is not None:
            split_totals["grep"].add(theirs)
    print()
    for split in SPLITS:
        if split in totals:
            audit, grep = totals[split]["audit"], totals[split]["grep"]
            shown = grep if grep.hits or grep.labels else ""
            print(f"{'all ' + split:30} {audit!s:44} {shown}")
            print(f"{'  per location':30} {totals[split]['per location']!s:44}")


if __name__ == "__main__":
    main(sys.argv[1:])
