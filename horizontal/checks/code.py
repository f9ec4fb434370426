"""``horizontal.W101``-``W111``: single-instance assumptions in the project's own code.

One warning per finding of ``horizontal.audit`` (module state, memos over the database,
local file writes, in-process locks, boot-time threads, schedulers, cron and ``migrate``
in start scripts) in the apps this project owns. Installed packages are never scanned:
their authors decide, and a deploy check that reads site-packages would be slow and
unactionable. Settings are left to the W0xx checks, which read the live values.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.apps import AppConfig, apps
from django.conf import settings
from django.core import checks
from django.core.checks import CheckMessage

from horizontal.checks._base import TAG, register

if TYPE_CHECKING:
    from horizontal.audit import Finding

__all__ = [
    "check_code",
    "installed_roots",
    "is_project_app",
    "project_app_paths",
    "scanned_categories",
    "warning",
]

# The W0xx checks judge the live settings; the audit's settings category is its own.
SETTINGS_CATEGORY = "settings"
INSTALLED_MARKERS = ("site-packages", "dist-packages")


def installed_roots() -> list[Path]:
    prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    return [Path(p).resolve() for p in prefixes]


def is_project_app(app_config: AppConfig, roots: list[Path]) -> bool:
    """Code this project owns: not ``horizontal`` itself, not under an installation prefix."""
    if app_config.name == "horizontal" or app_config.name.startswith("horizontal."):
        return False
    path = Path(app_config.path).resolve()
    if any(marker in path.parts for marker in INSTALLED_MARKERS):
        return False
    return not any(path.is_relative_to(root) for root in roots)


def project_app_paths(app_configs: Iterable[AppConfig] | None = None) -> list[Path]:
    roots = installed_roots()
    configs = list(app_configs) if app_configs is not None else list(apps.get_app_configs())
    paths = sorted({Path(c.path).resolve() for c in configs if is_project_app(c, roots)})
    # An app nested inside another listed app is scanned once, with its parent.
    return [p for p in paths if not any(p != q and p.is_relative_to(q) for q in paths)]


def warning(finding: Finding) -> checks.Warning:
    return checks.Warning(
        finding.message,
        hint=finding.fix,
        obj=f"{finding.path}:{finding.line}",
        id=finding.check_id,
    )


def scanned_categories() -> list[str]:
    """The audit's categories ``check --deploy`` reports: not settings, and not those whose
    check id the project silences, which would cost the scan and show nothing."""
    from horizontal.audit.findings import CATEGORIES, DEFAULT_CATEGORIES

    silenced = set(settings.SILENCED_SYSTEM_CHECKS)
    return [
        name
        for name in DEFAULT_CATEGORIES
        if name != SETTINGS_CATEGORY and CATEGORIES[name].check_id not in silenced
    ]


@register(TAG, deploy=True)
def check_code(app_configs: Iterable[AppConfig] | None = None, **kwargs: Any) -> list[CheckMessage]:
    categories = scanned_categories()
    paths = project_app_paths(app_configs) if categories else []
    if not paths:
        return []
    # Imported here, not at module level: every web worker imports the checks, and only
    # `check --deploy` runs the scanner.
    from horizontal.audit import scan_paths

    result = scan_paths(paths, categories=categories, base=os.getcwd())
    return [warning(f) for f in result.findings]
