"""What every check module registers with: the tag and Django's ``register``.

A module of its own, not the package's ``__init__``, so that the check modules and the
package face do not import each other.
"""

from __future__ import annotations

from django.core import checks

__all__ = ["TAG", "register"]

# Every check carries it: `check --tag horizontal` runs ours only.
TAG = "horizontal"

register = checks.register
