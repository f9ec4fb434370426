"""Fixtures for the check tests: ``baseline.py`` puts ``stub_apps/`` on ``sys.path`` (the
scheduler apps the checks look for by name) before any test overrides INSTALLED_APPS."""

from __future__ import annotations

import tests.checks.baseline  # noqa: F401
