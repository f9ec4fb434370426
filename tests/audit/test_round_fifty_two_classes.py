"""Classes of the fifty-second round (issue 14), each with a true case and a safe twin.

They came from the ninety-sixth to ninety-ninth labelled groups (one-big-thing,
evaluation-registry, hra, wagtail-torchbox; npr-poc, open-producten, open-organisatie,
sfm-cms; noiseworks, ceuk-marking, twfy-votes-django, bluetail; neighbourhood-warmth,
open-beheer, referentielijsten, gemma-zaken-demo), each measured once after the
fifty-first round and before any of these was written.

- A memo whose ``cache_clear()`` a model signal's receiver calls is cleared only in the
  process that saved the change.
- A memo of network reads alone is what a service publishes, fetched again on a miss,
  unless it is keyed by a person (measured on tuning: eleven such memos, none labelled).
- Whether the project stores files is read from the code requests run: not from commands,
  not from a settings module found by its content, not from a field's name in a string.
- A write's related places include the module's assignments that name its folder.
- Python 3.12's type parameters do not keep an older interpreter from reading a module.
- django-rosetta installed for production writes translators' edits on one host.
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

CLIENTS = """\
from functools import cache

from django.db.models.signals import post_save
from django.dispatch import receiver

from services.models import Service


@cache
def billing_client():
    return build(Service.get_service("billing"))


@receiver(post_save, sender=Service)
def {receiver}(sender, instance, **kwargs):
    billing_client.cache_clear()
"""


def test_a_memo_a_save_signal_clears_is_found(tmp_path: Path) -> None:
    source = CLIENTS.format(receiver="forget_clients")
    found = scan(tmp_path, {"services/clients.py": source}, "cache")
    assert where(found) == [("services/clients.py", 9)]
    assert "cleared on save" in found[0].message
    # The clear in the same module is shown beside the memo, as clears elsewhere are.
    assert [(r.path, r.line) for r in found[0].related] == [("services/clients.py", 16)]


def test_a_memo_of_settings_cleared_by_a_plain_helper_is_silent(tmp_path: Path) -> None:
    source = CLIENTS.replace('Service.get_service("billing")', "settings.BILLING").replace(
        "@receiver(post_save, sender=Service)\n", ""
    )
    assert scan(tmp_path, {"services/clients.py": source.format(receiver="reset")}, "cache") == []


FETCH = """\
from functools import lru_cache

import requests


@lru_cache
def {name}({argument}):
    return requests.get(f"https://example.org/{{{argument}}}", timeout=5).json()
"""


def test_a_memo_of_what_a_service_publishes_is_silent(tmp_path: Path) -> None:
    source = FETCH.format(name="tracker_list", argument="kind")
    assert scan(tmp_path, {"mail/trackers.py": source}, "cache") == []


def test_a_memo_of_a_persons_remote_record_is_found(tmp_path: Path) -> None:
    source = FETCH.format(name="account_details", argument="account_id")
    assert where(scan(tmp_path, {"mail/trackers.py": source}, "cache")) == [("mail/trackers.py", 6)]


SETTINGS = """\
import os

INSTALLED_APPS = ["reports"]
DATABASES = {"default": {"ENGINE": "django.db.backends.postgresql", "HOST": "db"}}
MEDIA_ROOT = os.path.join(os.path.dirname(__file__), "media")
"""
COMMAND = """\
import os

from django.conf import settings
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    def handle(self, **options):
        print(os.listdir(settings.MEDIA_ROOT))
"""
TAGS = """\
def is_upload(field):
    return field.__class__.__name__ == 'FileField'
"""
MODELS = """\
from django.db import models


class Report(models.Model):
    attachment = models.FileField(upload_to="reports")
"""


def _media_findings(tmp_path: Path, files: dict[str, str]) -> list:
    found = scan(tmp_path, {**files, "reports/views.py": "def index(request):\n    pass\n"})
    return [f for f in found if f.message.startswith("MEDIA_ROOT")]


def test_media_root_is_silent_where_only_commands_names_and_settings_mention_files(
    tmp_path: Path,
) -> None:
    files = {
        "site/conf/base.py": SETTINGS,
        "reports/management/commands/list_media.py": COMMAND,
        "reports/templatetags/fields.py": TAGS,
        "reports/models.py": MODELS.replace('FileField(upload_to="reports")', "TextField()"),
    }
    assert _media_findings(tmp_path, files) == []


def test_media_root_is_found_where_a_model_stores_files(tmp_path: Path) -> None:
    files = {"site/conf/base.py": SETTINGS, "reports/models.py": MODELS}
    assert where(_media_findings(tmp_path, files)) == [("site/conf/base.py", 5)]


EXPORT = """\
from pathlib import Path

from django.conf import settings

STATIC_DIR = Path(settings.STATIC_ROOT)
DATA_DIR = STATIC_DIR / "data"


def dump_votes(frame):
    destination = DATA_DIR / "votes.parquet"
    frame.to_csv(destination)
    with open(DATA_DIR / "votes.json", "w") as handle:
        handle.write(frame.to_json())
"""


def test_a_writes_folder_named_at_the_top_of_the_module_is_related(tmp_path: Path) -> None:
    found = scan(tmp_path, {"votes/export.py": EXPORT}, "file-write")
    assert where(found) == [("votes/export.py", 12)]
    related = [(r.path, r.line) for r in found[0].related]
    assert ("votes/export.py", 6) in related
    assert ("votes/export.py", 5) in related


GENERIC = """\
from pathlib import Path


def first[T](items: list[T]) -> T:
    return items[0]


def save_report(body):
    Path("/srv/reports/latest.txt").write_text(body)
"""


def test_a_module_with_type_parameters_is_read(tmp_path: Path) -> None:
    found = scan(tmp_path, {"reports/save.py": GENERIC}, "file-write")
    assert where(found) == [("reports/save.py", 9)]


ROSETTA = """\
INSTALLED_APPS = ["django.contrib.admin", "rosetta"]
DATABASES = {"default": {"ENGINE": "django.db.backends.postgresql", "HOST": "db"}}
LOCALE_PATHS = ["/app/locale"]
"""


def test_rosetta_installed_for_production_is_found(tmp_path: Path) -> None:
    found = scan(tmp_path, {"site/settings/production.py": ROSETTA}, "settings")
    rosetta = [f for f in found if f.message.startswith("rosetta")]
    assert where(rosetta) == [("site/settings/production.py", 1)]
    assert [(r.path, r.line) for r in rosetta[0].related] == [("site/settings/production.py", 3)]


def test_rosetta_in_a_development_module_is_silent(tmp_path: Path) -> None:
    found = scan(tmp_path, {"site/settings/dev.py": ROSETTA}, "settings")
    assert [f for f in found if f.message.startswith("rosetta")] == []
