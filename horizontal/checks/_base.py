"""What every check module registers with (the tag and Django's ``register``), and how
a check names a place in the project's source.

A module of its own, not the package's ``__init__``, so that the check modules and the
package face do not import each other.
"""

from __future__ import annotations

import contextlib
import os

from django.core import checks

__all__ = ["TAG", "register", "relative_place"]

# Every check carries it: `check --tag horizontal` runs ours only.
TAG = "horizontal"

register = checks.register


def relative_place(path: str, line: int | str) -> str:
    """``path:line`` with the path relative to the current folder, as the code warnings
    (``horizontal.W101``-``W111``) give theirs."""
    with contextlib.suppress(ValueError):  # another drive on Windows
        path = os.path.relpath(path)
    return f"{path}:{line}"
