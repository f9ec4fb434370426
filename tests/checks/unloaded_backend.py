"""A backend module no test imports: ``is_a`` must leave it unloaded (test_classes.py)."""

from __future__ import annotations


class SomeBackend:
    pass
