"""horizontal/audit/known.py, the one catalogue of single-box values: every entry gets
the same verdict from both tools that read it.

For each backend path and each random-value call, the same configuration is given to
the deploy checks (as live settings, through ``override_settings``; for ``SECRET_KEY``,
as the source of the settings module) and to the audit (as a settings file written to a
temporary directory and scanned with ``scan_paths``). SHARED, the configuration both
start from, is clean in both, so a finding is the entry's.

No entry differs by design. Two need context to be judged at all, and get it in both
tools alike: django_cron's lock backends (and django-maintenance-mode's state backend) are
read by the check only when ``django_cron`` (``maintenance_mode``) is installed, so those
entries come with it in ``INSTALLED_APPS``; a log handler is a
``LOGGING`` handler's ``class``. django-compressor's local output storages are judged
only with the app installed and compression on request, so they are outside CATALOGUE
and have their own test of both tools' verdicts.
"""

from __future__ import annotations

import os
import sys
import tempfile
import types
from pathlib import Path
from typing import Any

import pytest

from horizontal.audit import scan_paths
from horizontal.audit.known import (
    CATALOGUE,
    COMPRESSOR_APP,
    COMPRESSOR_LOCAL_OUTPUT,
    RANDOM_VALUE_CALLS,
    SingleBox,
)
from horizontal.audit.this_host import this_host_addresses
from tests.checks.baseline import (
    ALL_SETTINGS_CHECK_MODULES,
    CONSOLE_LOGGING,
    SHARED,
    SHARED_APPS,
    deploy_messages,
    with_app,
)

STABLE_KEY = "a-stable-key-read-from-the-environment-in-real-life-0123456789"
# A real file (a handler on /dev/null writes no local file): Django 6.1 may open it.
LOG_FILE = os.path.join(tempfile.gettempdir(), "horizontal-test-app.log")


def changes_for(entry: SingleBox) -> dict[str, Any]:
    """The settings that put ``entry`` where a project would."""
    setting, path = entry.setting, entry.path
    if setting == "CACHES":
        return {"CACHES": {"default": {"BACKEND": path}}}
    if setting == "SESSION_ENGINE":
        return {"SESSION_ENGINE": path}
    if setting == "STORAGES['default']":
        return {"STORAGES": {**SHARED["STORAGES"], "default": {"BACKEND": path}}}
    if setting == "DATABASES":
        return {"DATABASES": {"default": {"ENGINE": path, "NAME": "app.db"}}}
    if setting in ("CHANNEL_LAYERS", "TASKS"):
        return {setting: {"default": {"BACKEND": path}}}
    if setting == "INSTALLED_APPS":
        return {"INSTALLED_APPS": with_app(path)}
    if setting == "DJANGO_CRON_LOCK_BACKEND":
        return {"INSTALLED_APPS": with_app("django_cron"), setting: path}
    if setting == "LOGGING":
        handlers = {**CONSOLE_LOGGING["handlers"], "file": {"class": path, "filename": LOG_FILE}}
        return {"LOGGING": {**CONSOLE_LOGGING, "handlers": handlers}}
    if setting == "EMAIL_BACKEND":
        return {"EMAIL_BACKEND": path}
    if setting == "HAYSTACK_CONNECTIONS":
        return {setting: {"default": {"ENGINE": path, "PATH": "/srv/app/index"}}}
    if setting == "MAINTENANCE_MODE_STATE_BACKEND":
        return {"INSTALLED_APPS": with_app("maintenance_mode"), setting: path}
    if setting == "IMPORT_EXPORT_TMP_STORAGE_CLASS":
        return {"INSTALLED_APPS": with_app("import_export"), setting: path}
    raise AssertionError(f"no way to configure {setting}: teach changes_for()")


def settings_source(changes: dict[str, Any], extra: str = "") -> str:
    """SHARED plus ``changes`` as a settings module's source."""
    values = {"INSTALLED_APPS": SHARED_APPS, **SHARED, "SECRET_KEY": STABLE_KEY, **changes}
    values.pop("SETTINGS_MODULE")  # Django's own record of the module, not a setting
    lines = [f"{name} = {value!r}" for name, value in values.items()]
    return "\n".join([*lines, extra, ""])


def audit_findings(tmp_path: Path, source: str) -> list[str]:
    (tmp_path / "settings.py").write_text(source)
    # log-file (opt-in) is the settings scan too: the catalogue covers both.
    result = scan_paths([tmp_path], categories=["settings", "log-file"], base=tmp_path)
    return [finding.message for finding in result.findings]


def check_ids(**changes: Any) -> list[str]:
    messages = deploy_messages(ALL_SETTINGS_CHECK_MODULES, **changes)
    return sorted(m.id for m in messages if m.id != "horizontal.I033")


def test_the_shared_configuration_is_clean_in_both_tools(tmp_path: Path) -> None:
    assert check_ids() == []
    assert audit_findings(tmp_path, settings_source({})) == []


@pytest.mark.parametrize("entry", CATALOGUE, ids=lambda entry: entry.path)
@pytest.mark.filterwarnings("ignore:The EMAIL_BACKEND setting is deprecated")
def test_every_backend_gets_the_same_verdict_from_both_tools(
    entry: SingleBox, tmp_path: Path
) -> None:
    changes = changes_for(entry)
    flagged_by_check = check_ids(**changes)
    flagged_by_audit = audit_findings(tmp_path, settings_source(changes))
    assert len(flagged_by_check) == 1, f"check --deploy says {flagged_by_check} for {entry.path}"
    assert flagged_by_audit == [f"{entry.setting}: {entry.why}"]


@pytest.mark.parametrize("call", sorted(RANDOM_VALUE_CALLS))
@pytest.mark.parametrize("spelling", ["{call}()", "secrets.{call}()"])
def test_every_random_call_gets_the_same_verdict_from_both_tools(
    call: str, spelling: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = settings_source({}, extra=f"SECRET_KEY = str({spelling.format(call=call)})")
    # The deploy check reads the source of the module Django imported; the module is
    # never run here (some calls need packages this suite does not install).
    module = types.ModuleType("catalogue_settings")
    module.__file__ = str(tmp_path / "settings.py")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    flagged_by_audit = audit_findings(tmp_path, source)
    flagged_by_check = check_ids(SETTINGS_MODULE=module.__name__)
    assert flagged_by_check == ["horizontal.W050"]
    assert len(flagged_by_audit) == 1 and flagged_by_audit[0].startswith("SECRET_KEY is")


@pytest.mark.parametrize(
    ("changes", "flagged"),
    [
        ({}, True),
        ({"COMPRESS_ENABLED": True, "COMPRESS_OFFLINE": False}, True),
        ({"COMPRESS_OFFLINE": True}, False),
        ({"COMPRESS_ENABLED": False}, False),
        ({"COMPRESS_STORAGE": "storages.backends.s3.S3Storage"}, False),
        # django-compressor 4.5+ takes STORAGES[alias] first, COMPRESS_STORAGE after.
        (
            {
                "COMPRESS_STORAGE": "storages.backends.s3.S3Storage",
                "STORAGES": {
                    **SHARED["STORAGES"],
                    "compressor": {"BACKEND": "compressor.storage.CompressorFileStorage"},
                },
            },
            True,
        ),
        ({"COMPRESS_ENABLED": False, "COMPRESS_PRECOMPILERS": [["text/x-scss", "sassc"]]}, True),
    ],
)
def test_django_compressor_gets_the_same_verdict_from_both_tools(
    changes: dict[str, Any], flagged: bool, tmp_path: Path
) -> None:
    """COMPRESSOR_LOCAL_OUTPUT is judged with the app installed and compression on
    request, in both tools (not in CATALOGUE: offline output is static files)."""
    changes = {"INSTALLED_APPS": with_app(COMPRESSOR_APP), **changes}
    entry = COMPRESSOR_LOCAL_OUTPUT[0]
    by_check = check_ids(**changes)
    by_audit = audit_findings(tmp_path, settings_source(changes))
    assert by_check == (["horizontal.W067"] if flagged else [])
    assert by_audit == ([f"COMPRESS_OFFLINE is off, so {entry.why}"] if flagged else [])


@pytest.mark.parametrize(
    "value",
    ["redis://127.1:6379/0", "redis://localhost.:6379/0", "memory://", "cache+memory://"],
)
def test_loopback_spellings_and_in_process_queues_are_this_host(value: str) -> None:
    assert list(this_host_addresses(value)) == [value]


@pytest.mark.parametrize(
    "value", [":x@", "redis://10.1:6379/0", "redis://cache.internal:6379/0", "12"]
)
def test_a_url_piece_or_another_host_is_not_this_host(value: str) -> None:
    """``f":{password}@"`` is a piece of a URL being built, not a host (an empty host would
    read as a unix socket)."""
    assert list(this_host_addresses(value)) == []
