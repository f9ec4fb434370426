from __future__ import annotations

from horizontal.jobs import Run, job


@job("tidy", schedule="0 * * * *")
def tidy(run: Run) -> None:
    """A job in a project that installed horizontal with no extras."""
