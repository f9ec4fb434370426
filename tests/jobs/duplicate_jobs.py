"""A jobs module that the registration test imports under two module names."""

from __future__ import annotations

from horizontal.jobs import Run, job


@job("imported_twice", schedule="0 3 * * *")
def imported_twice(run: Run) -> None:
    """Registered once per import path: two paths, two registrations."""
