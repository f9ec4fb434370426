"""Fixtures for the check tests.

``stub_apps/`` holds empty packages named like the scheduler apps the checks look for
(django_apscheduler, django_crontab, django_cron), which are not installed here: the
checks only read ``INSTALLED_APPS``, and ``override_settings(INSTALLED_APPS=...)`` needs
something importable. They go at the end of ``sys.path`` so a real install wins.
"""

from __future__ import annotations

import sys
from pathlib import Path

STUB_APPS = str(Path(__file__).parent / "stub_apps")
if STUB_APPS not in sys.path:
    sys.path.append(STUB_APPS)
