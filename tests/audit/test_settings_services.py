"""horizontal/audit/settings_services.py and settings_rules.sqlite_by_default: a database
whose engine is chosen at run time from a name with a default."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.test_outside_measurements import scan, where

CONFIGURED = """\
import os
from configparser import ConfigParser

config = ConfigParser()
config.read(["/etc/shop/shop.cfg"])
DATA_DIR = config.get("shop", "datadir", fallback="/var/lib/shop")
db_backend = config.get("database", "backend", fallback="{backend}")
if db_backend == "postgresql_psycopg2":
    db_backend = "postgresql"
DATABASES = {{
    "default": {{
        "ENGINE": "django.db.backends." + db_backend,
        "NAME": config.get("database", "name", fallback="shop"),
        "HOST": config.get("database", "host", fallback=""),
    }}
}}
"""


@pytest.mark.parametrize(
    ("backend", "expected"),
    [
        # SQLite unless configured: one finding where the default is written; an empty
        # HOST means nothing to SQLite.
        ("sqlite3", [("shop/settings.py", 7, "DATABASES: the engine is chosen at run time")]),
        # A server: its empty HOST is this host's socket.
        ("postgresql", [("shop/settings.py", 14, "DATABASES: HOST defaults to empty")]),
    ],
)
def test_an_engine_named_through_a_default_is_judged_by_that_default(
    tmp_path: Path, backend: str, expected: list[tuple[str, int, str]]
) -> None:
    files = {"shop/settings.py": CONFIGURED.format(backend=backend)}
    found = scan(tmp_path, files, "settings")
    assert where(found) == [(path, line) for path, line, _ in expected]
    assert [
        f.message.startswith(start) for f, (_, _, start) in zip(found, expected, strict=True)
    ] == [True]
    if backend == "sqlite3":
        assert [(r.path, r.line) for r in found[0].related] == [("shop/settings.py", 12)]


def test_a_whole_engine_bound_to_a_name_is_one_finding(tmp_path: Path) -> None:
    source = (
        "import os\n"
        'DB_ENGINE = os.environ.get("DB_ENGINE", "django.db.backends.sqlite3")\n'
        'DATABASES = {"default": {"ENGINE": DB_ENGINE, "NAME": "db.sqlite3"}}\n'
    )
    found = scan(tmp_path, {"shop/settings.py": source}, "settings")
    assert len(found) == 1, [f.message for f in found]


@pytest.mark.parametrize(
    ("broker", "kept_here"),
    [
        ("memory://", True),
        ("sqla+sqlite:///celery.sqlite", True),
        ("redis://localhost:6379", False),
    ],
)
def test_a_store_in_the_process_or_a_file_is_named_as_such(
    tmp_path: Path, broker: str, kept_here: bool
) -> None:
    # GeoNode's memory:// broker read "is this host: each instance talks to its own
    # server", and its fix spoke of a sidecar proxy, which nothing in the process has.
    source = f"INSTALLED_APPS = ['shop']\nCELERY_BROKER_URL = {broker!r}\n"
    [found] = scan(tmp_path, {"shop/settings.py": source}, "settings")
    assert ("this host: each instance talks to its own server" in found.message) is not kept_here
    assert ("sidecar" in found.fix) is not kept_here
