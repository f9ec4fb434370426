"""cache_wipes.py: Django's cache wiped as each process starts is a boot-reset."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.test_outside_measurements import scan, where

WSGI = """\
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shop.settings")
application = get_wsgi_application()
{wipe}
"""


@pytest.mark.parametrize(
    "wipe",
    [
        "from django.core.cache import caches\ncaches['default'].clear()",
        "from django.core.management import call_command\ncall_command('clear_cache')",
        "from django.core import management\nmanagement.call_command('clear_cache')",
    ],
)
def test_a_cache_wiped_as_the_server_starts_is_a_boot_reset(tmp_path: Path, wipe: str) -> None:
    found = scan(tmp_path, {"shop/wsgi.py": WSGI.format(wipe=wipe)}, "boot-reset")
    assert where(found) == [("shop/wsgi.py", 8)]


@pytest.mark.parametrize(
    "wipe",
    [
        # Another object's clear(), and another command: not Django's cache.
        "REGISTRY = {'a': set()}\nREGISTRY['a'].clear()",
        "from django.core.management import call_command\ncall_command('collectstatic')",
    ],
)
def test_what_wipes_no_cache_is_not(tmp_path: Path, wipe: str) -> None:
    assert scan(tmp_path, {"shop/wsgi.py": WSGI.format(wipe=wipe)}, "boot-reset") == []


def test_clear_cache_run_in_a_view_is_not_a_boot_reset(tmp_path: Path) -> None:
    view = (
        "from django.core.management import call_command\n\n\n"
        "def flush(request):\n    call_command('clear_cache')\n"
    )
    assert scan(tmp_path, {"shop/views.py": view}, "boot-reset") == []
