"""Classes of the thirty-eighth round (issue 14), each with a true case and a safe twin.

They came from the sixty-sixth and sixty-seventh labelled groups (directory-sso-profile,
fido, digital-workspace-v2, digihel; return-to-office, export-wins-ui, openahjo, kore),
measured once after the thirty-seventh round and before any of these was written.

- A database alias that writes ``"HOST": ""`` is reported at that line, the one a fix
  changes, with the alias related; one with no ``HOST`` key at all stays at the alias.
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

SETTINGS = """\
INSTALLED_APPS = ["app"]
CACHES = {{"default": {{"BACKEND": "django_redis.cache.RedisCache", "LOCATION": "redis://r"}}}}
DATABASES = {{
    "default": {{
        "ENGINE": "django.contrib.gis.db.backends.postgis",
        "NAME": "openahjo",
        "USER": "openahjo",
{host}
        "PORT": "",
    }}
}}
"""


def _databases(found: list) -> list:
    return [f for f in found if f.message.startswith("DATABASES")]


def test_an_empty_host_written_out_is_found_at_its_line(tmp_path: Path) -> None:
    settings = SETTINGS.format(host='        "HOST": "",  # empty for the local socket')
    (finding,) = _databases(scan(tmp_path, {"app/settings.py": settings}, "settings"))
    assert where([finding]) == [("app/settings.py", 8)]
    assert [r.line for r in finding.related] == [4, 3]  # the alias, the assignment


def test_an_alias_with_no_host_key_is_found_at_the_alias(tmp_path: Path) -> None:
    settings = SETTINGS.format(host="")
    found = _databases(scan(tmp_path, {"app/settings.py": settings}, "settings"))
    assert where(found) == [("app/settings.py", 4)]


def test_a_host_named_is_silent(tmp_path: Path) -> None:
    settings = SETTINGS.format(host='        "HOST": "db.internal",')
    assert _databases(scan(tmp_path, {"app/settings.py": settings}, "settings")) == []
