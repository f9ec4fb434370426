"""``horizontal.W101``-``W111``: single-instance assumptions in the project's own code.

One warning per finding of ``horizontal.audit`` (module state, memos over the database,
local file writes, in-process locks, boot-time threads, schedulers, cron and ``migrate``
in start scripts) in the apps this project owns. Installed packages are never scanned:
their authors decide, and a deploy check that reads site-packages would be slow and
unactionable. Settings are left to the W0xx checks, which read the live values.
"""

from __future__ import annotations

import importlib.util
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
    "CodeUses",
    "check_code",
    "installed_roots",
    "is_project_app",
    "is_project_path",
    "project_app_paths",
    "project_code_uses",
    "project_package_paths",
    "scanned_categories",
    "warning",
]

# The W0xx checks judge the live settings; the audit's settings category is its own.
SETTINGS_CATEGORY = "settings"
INSTALLED_MARKERS = ("site-packages", "dist-packages")


def installed_roots() -> list[Path]:
    """The interpreter's prefixes, where installed code lives, except one that holds the
    project itself (a virtualenv made in the checkout, ``python -m venv .``; Debian's
    ``/usr`` around an image's ``WORKDIR /usr/src/app``): there the site-packages folders
    alone tell installed code from the project's."""
    prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    anchor = _project_anchor()
    roots = [Path(p).resolve() for p in prefixes]
    roots += _install_targets(roots)
    return [root for root in roots if not anchor.is_relative_to(root)]


def _install_targets(prefixes: list[Path]) -> list[Path]:
    """Folders on ``sys.path`` that pip installed into outside any prefix (``pip install
    --target /deps``, an image's usual way): they hold distributions' ``*.dist-info``."""
    targets = []
    items: list[object] = list(sys.path)  # typed str, but settings put what they like
    for item in items:
        # A Path (``sys.path.insert(0, BASE_DIR / "apps")``) is read as its folder; imports
        # skip anything else that is not a string.
        if not isinstance(item, str | os.PathLike):
            continue
        entry = os.fspath(item)
        if not entry or any(marker in entry for marker in INSTALLED_MARKERS):
            continue
        folder = Path(entry).resolve()
        if any(folder.is_relative_to(prefix) for prefix in prefixes):
            continue
        try:
            with os.scandir(folder) as entries:
                if any(e.name.endswith(".dist-info") and e.is_dir() for e in entries):
                    targets.append(folder)
        except OSError:
            continue
    return targets


def _project_anchor() -> Path:
    """Where the project lives: its settings module's folder, else the current one."""
    module = sys.modules.get(getattr(settings, "SETTINGS_MODULE", None) or "")
    location = getattr(module, "__file__", None)
    return Path(location).resolve().parent if location else Path.cwd().resolve()


def is_project_path(path: Path, roots: list[Path]) -> bool:
    """Code this project owns: not under site-packages nor an installation prefix."""
    if any(marker in path.parts for marker in INSTALLED_MARKERS):
        return False
    return not any(path.is_relative_to(root) for root in roots)


def is_project_app(app_config: AppConfig, roots: list[Path]) -> bool:
    """An app this project owns: not ``horizontal`` itself, not installed code."""
    if app_config.name == "horizontal" or app_config.name.startswith("horizontal."):
        return False
    return is_project_path(Path(app_config.path).resolve(), roots)


def project_package_paths(roots: list[Path]) -> list[Path]:
    """The project's own package, which is no installed app: where its settings, root
    URLconf and WSGI/ASGI application live (``startproject``'s ``mysite/``, with the
    views, middleware and start-up code teams put beside them); a top-level settings
    module is its file alone."""
    dotted = [
        getattr(settings, "SETTINGS_MODULE", None),
        getattr(settings, "ROOT_URLCONF", None),
        *(
            str(value).rpartition(".")[0]
            for value in (
                getattr(settings, "WSGI_APPLICATION", None),
                getattr(settings, "ASGI_APPLICATION", None),
            )
            if value
        ),
    ]
    from horizontal.audit.tree import EXCLUDED_DIRS

    paths: set[Path] = set()
    for top in {name.partition(".")[0] for name in dotted if isinstance(name, str) and name}:
        # Test settings in a ``tests`` package: the audit skips that folder in a tree too.
        if top in {"horizontal", "django"} or top in EXCLUDED_DIRS:
            continue
        try:
            spec = importlib.util.find_spec(top)  # a top-level name: nothing is imported
        except (ImportError, ValueError):
            continue
        if spec is None:
            continue
        if spec.submodule_search_locations:
            paths.update(Path(folder).resolve() for folder in spec.submodule_search_locations)
        elif spec.origin and spec.origin.endswith(".py"):
            paths.add(Path(spec.origin).resolve())
    return [path for path in paths if is_project_path(path, roots)]


def project_app_paths(app_configs: Iterable[AppConfig] | None = None) -> list[Path]:
    """The project's own apps, and with all of them (``app_configs`` None) its package."""
    roots = installed_roots()
    configs = list(app_configs) if app_configs is not None else list(apps.get_app_configs())
    found = {Path(c.path).resolve() for c in configs if is_project_app(c, roots)}
    if app_configs is None:
        found.update(project_package_paths(roots))
    paths = sorted(found)
    # An app nested inside another listed app (or the package) is scanned once, with it.
    return [p for p in paths if not any(p != q and p.is_relative_to(q) for q in paths)]


class CodeUses:
    """What the project's own code does with the defaults a fresh project leaves in
    place, read as the audit reads it (``horizontal.audit.feature_use``). (A plain class:
    every process imports the checks, and a dataclass is built at import.)"""

    __slots__ = ("keeps_state_in_cache", "stores_files")

    def __init__(self, *, keeps_state_in_cache: bool, stores_files: bool) -> None:
        self.keeps_state_in_cache = keeps_state_in_cache
        self.stores_files = stores_files


def project_code_uses(app_configs: Iterable[AppConfig] | None = None) -> CodeUses | None:
    """Whether the project's own apps and package keep shared state in Django's cache
    (a gate, a counter, an invalidation, a rate limit) and store files (a file field,
    ``default_storage``, ``MEDIA_ROOT`` in code, an upload app imported); None when there is no
    project code to read, and so no telling."""
    paths = project_app_paths(app_configs)
    if not paths:
        return None
    from horizontal.audit import feature_use
    from horizontal.audit.settings_files import is_settings_path, looks_like_settings
    from horizontal.audit.source import run_by_hand
    from horizontal.audit.tree import iter_files, read_text

    cache = files = False
    for root in paths:
        for path in iter_files(root):
            if path.suffix != ".py":
                continue
            text = read_text(path)
            if text is None:
                continue
            name = path.as_posix()
            by_hand = run_by_hand(name, text)
            cache = cache or feature_use.keeps_state_in_cache(text, by_hand)
            if not files and not by_hand:
                settings_module = is_settings_path(name) or looks_like_settings(text)
                files = feature_use.stores_files(name, text, settings_module)
            if cache and files:
                return CodeUses(keeps_state_in_cache=True, stores_files=True)
    return CodeUses(keeps_state_in_cache=cache, stores_files=files)


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
