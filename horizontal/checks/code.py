"""``horizontal.W101``-``W108``: single-instance assumptions in the project's own code.

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
from typing import Any

from django.apps import AppConfig, apps
from django.core import checks

from horizontal.audit import CATEGORIES, Finding, scan_paths

CODE_CATEGORIES = tuple(name for name in CATEGORIES if name != "settings")
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


@checks.register("horizontal", deploy=True)
def check_code(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[checks.Warning]:
    paths = project_app_paths(app_configs)
    if not paths:
        return []
    result = scan_paths(paths, categories=CODE_CATEGORIES, base=os.getcwd())
    return [warning(f) for f in result.findings]
