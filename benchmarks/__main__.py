"""``python -m benchmarks``: every side-by-side benchmark, one after another."""

from __future__ import annotations

import runpy
import sys

MODULES = ("jobs", "sessions", "storage", "checks", "audit")

if __name__ == "__main__":
    wanted = sys.argv[1:] or MODULES
    for name in wanted:
        print(f"\n=== benchmarks.{name} ===", flush=True)
        runpy.run_module(f"benchmarks.{name}", run_name="__main__")
