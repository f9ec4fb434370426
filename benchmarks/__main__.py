"""``python -m benchmarks [NAME…]``: every side-by-side benchmark, each in its own process.

Each benchmark configures Django its own way, so they cannot share an interpreter.
"""

from __future__ import annotations

import subprocess
import sys

MODULES = (
    "jobs",
    "history",
    "scheduler",
    "sessions",
    "sessions_http",
    "storage",
    "checks",
    "audit",
    "health",
)

if __name__ == "__main__":
    failed = []
    for name in sys.argv[1:] or MODULES:
        print(f"\n=== benchmarks.{name} ===", flush=True)
        if subprocess.run([sys.executable, "-m", f"benchmarks.{name}"]).returncode:
            failed.append(name)
    if failed:
        sys.exit(f"failed: {', '.join(failed)}")
