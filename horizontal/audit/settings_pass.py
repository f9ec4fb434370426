"""The settings pass of a scan: each settings package judged once every file is read.

What the project's code does decides what its settings cost: a per-process cache harms
only where code keeps shared state in it, a local media folder only where code stores
files, django-compressor's online mode only where a template compresses. So the settings
are judged last, with what the scan learnt of the code (``runner.Scan``), and what the
code never reads is dropped. ``check --deploy`` scans code only and never imports this.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from horizontal.audit import feature_use, settings_unread
from horizontal.audit.compressor import first_compress_tag, with_compress_tag
from horizontal.audit.findings import Location
from horizontal.audit.settings_files import only_tested
from horizontal.audit.settings_modules import (
    find_settings_problems,
    project_settings_names,
    settings_packages,
    star_imported_helpers,
)
from horizontal.audit.source import PythonModule
from horizontal.audit.tree import read_text, relative

if TYPE_CHECKING:
    from horizontal.audit.runner import Scan

__all__ = ["judge_settings"]


def judge_settings(scan: Scan) -> None:
    """Keep each settings package's findings on ``scan``, with the code's places related
    (its cache writes, a template's ``{% compress %}``)."""
    result = scan.result
    settings = [m for modules in scan.settings_groups.values() for m in modules]
    compresses = _templates_compress(scan, settings)
    elsewhere = {
        **star_imported_helpers(
            settings, scan.paths, lambda name: read_text(Path(scan.base, name))
        ),
        **project_settings_names(settings),
    }
    verdicts: dict[str, bool] = {}
    for group in settings_packages(scan.settings_groups):
        for finding in find_settings_problems(
            group,
            uses_cache=result.uses_cache,
            # Without the project's code, what it keeps in the cache is unknown.
            gates_in_cache=result.gates_in_cache or not result.read_models,
            local_storages=frozenset(scan.local_storages),
            local_caches=scan.local_caches,
            unused=_unused_features(scan),
            served=frozenset(scan.served_settings),
            tested=only_tested(scan.tested_settings, scan.started_settings),
            elsewhere=elsewhere,
            compresses=compresses,
            helpers=scan.module_named,
            verdicts=verdicts,
        ):
            if finding.category in scan.wanted:
                finding = feature_use.with_cache_writes(finding, scan.cache_writes)
                scan.keep(with_compress_tag(finding, scan.compress_tag))
    # Every settings module read as a developer's or the tests': "0 findings" alone would
    # not say the settings were never judged.
    if verdicts and not any(verdicts.values()):
        result.settings_left_out = sorted(verdicts)
    if result.read_models:  # the project's code was read: what it reads is known
        result.findings = settings_unread.without_unread_settings(
            result.findings, scan.settings_read, settings
        )


def _templates_compress(scan: Scan, settings: list[PythonModule]) -> bool:
    """Whether django-compressor has work at run time: a template of the tree uses
    ``{% compress %}``, or the tree has no template to tell (a settings folder scanned
    alone). Read only when a settings module names the app."""
    if not any("compressor" in module.text for module in settings):
        return True  # no such app: the answer is never asked
    found = first_compress_tag(scan.templates)
    if isinstance(found, tuple):
        # Where a page asks for compression: related to the setting's finding.
        template, line = found
        # Named as every scanned file is: relative to the base, wherever the tree was given
        # (``horizontal-audit .``, a path outside the working directory).
        scan.compress_tag = Location(relative(os.path.abspath(template), scan.base), line)
    return found is not False


def _unused_features(scan: Scan) -> frozenset[str]:
    """Settings whose feature the project's code never touches (``CHANNEL_LAYER_USE``)."""
    result = scan.result
    if not result.read_models:
        return frozenset()
    unused = frozenset() if result.uses_channel_layer else frozenset({"CHANNEL_LAYERS"})
    if not result.uses_private_media:
        unused |= {"PRIVATE_MEDIA_ROOT"}
    return unused if result.stores_files else unused | feature_use.UPLOAD_SETTINGS
