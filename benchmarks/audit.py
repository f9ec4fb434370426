"""Issue 6 figure: ``horizontal.audit`` against the seed's grep audit, same tree, same run.

    python -m benchmarks.audit [TREE]      (default: the installed Django package)

The grep script is the "Audit checklist" of the seed article (``GREP_AUDIT`` below,
verbatim apart from the leading prompt). Both tools scan the same tree; each is run
five times, alternating, and the medians are compared. Two ratios are printed:

- library: ``scan_paths(TREE)`` in this process vs the grep script as a process;
- command: ``manage.py audit TREE`` as a process (Django start-up included) vs grep.

The target is library <= 3.0.
"""

# The grep script is quoted verbatim, long lines included.
# ruff: noqa: E501
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUNS = 5

GREP_AUDIT = r"""#!/usr/bin/env bash
# First-pass audit for single-instance assumptions. Expect false positives:
# every hit is triaged by hand into the inventory spreadsheet.
set -euo pipefail
SRC="${1:-.}"
OUT="${2:-single-instance-findings.tsv}"
printf 'category\tfile:line:match\n' > "$OUT"

# scan <category> <extended-regex>: tag each hit with its category
scan() {
  grep -rInE --exclude-dir=.git --exclude-dir=node_modules \
    --exclude-dir=vendor --exclude-dir=build --exclude-dir=target \
    --include='*.py' --include='*.java' --include='*.kt' \
    --include='*.js' --include='*.ts' --include='*.go' --include='*.rb' \
    -e "$2" "$SRC" | sed "s/^/$1\t/" >> "$OUT" || true
}

# Module-level mutable state: top-level dict/list/set literals, static collections
scan module-state '^[A-Za-z_][A-Za-z0-9_]* *= *(\{|\[|dict\(|set\()|static +(final +)?(Map|HashMap|List|Set|AtomicInteger|AtomicLong)'
# In-memory caches: memoization and hand-rolled LRU maps
scan cache 'lru_cache|@cache\b|@Cacheable|LinkedHashMap|new +LRU'
# Local file writes (open() also matches reads; triage manually)
scan file-write 'FileOutputStream|FileWriter|Files\.write|fs\.writeFile|tempfile\.|open\('
# In-process locks: only serialize threads inside one process
scan in-process-lock 'threading\.(Lock|RLock|Semaphore)|synchronized|ReentrantLock|sync\.Mutex|Mutex\.new'
# Timers and background threads started at boot
scan timer-thread 'setInterval|threading\.(Thread|Timer)|ScheduledExecutorService|new +Timer\(|time\.NewTicker'
# Framework schedulers: run on every instance
scan scheduler '@Scheduled|@EnableScheduling|BackgroundScheduler|add_job\(|cron\.schedule'

# Cron baked into the image: Dockerfiles, entrypoints, copied crontabs
grep -rInE --include='Dockerfile*' --include='*.sh' -e 'cron|crontab' "$SRC" \
  | sed 's/^/image-cron\t/' >> "$OUT" || true
find "$SRC" -type f \( -name 'crontab*' -o -path '*/cron.d/*' \) \
  | sed 's/^/image-cron\t/' >> "$OUT"

echo "$(($(wc -l < "$OUT") - 1)) findings written to $OUT"
"""


def run_grep(tree: Path, out: Path) -> float:
    """Run the grep audit over ``tree`` (cwd = tree, SRC = .); seconds of wall time."""
    started = time.perf_counter()
    subprocess.run(
        ["bash", "-c", GREP_AUDIT, "grep-audit", ".", str(out)],
        cwd=tree,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return time.perf_counter() - started


def run_library(tree: Path) -> tuple[float, int, int]:
    from horizontal.audit import scan_paths

    started = time.perf_counter()
    result = scan_paths([tree], base=tree)
    return time.perf_counter() - started, result.files, len(result.findings)


def run_command(tree: Path) -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), "audit", str(tree), "--fail-on", "never"],
        cwd=ROOT,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "testproject.settings"},
    )
    return time.perf_counter() - started


def django_tree() -> Path:
    import django

    return Path(django.__file__).resolve().parent


def count_lines(tree: Path) -> int:
    total = 0
    for path in tree.rglob("*.py"):
        with path.open("rb") as handle:
            total += sum(1 for _ in handle)
    return total


def main() -> None:
    sys.path.insert(0, str(ROOT))
    tree = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else django_tree()
    grep_times: list[float] = []
    library_times: list[float] = []
    command_times: list[float] = []
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch, "grep.tsv")
        for _ in range(RUNS):
            grep_times.append(run_grep(tree, out))
            seconds, files, findings = run_library(tree)
            library_times.append(seconds)
            command_times.append(run_command(tree))
        grep_hits = len(out.read_text().splitlines()) - 1
    grep_median = statistics.median(grep_times)
    library_median = statistics.median(library_times)
    command_median = statistics.median(command_times)
    print(f"tree: {tree} ({count_lines(tree)} lines of Python)")
    print(f"grep audit:        {grep_median:.3f} s median of {RUNS}, {grep_hits} hits")
    print(
        f"horizontal.audit:  {library_median:.3f} s median of {RUNS}, {files} files, {findings} findings"
    )
    print(
        f"manage.py audit:   {command_median:.3f} s median of {RUNS} (process, Django start-up included)"
    )
    print(f"ratio library / grep: {library_median / grep_median:.2f}  (target <= 3.00)")
    print(f"ratio command / grep: {command_median / grep_median:.2f}")


if __name__ == "__main__":
    main()
