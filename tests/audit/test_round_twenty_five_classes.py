"""Classes of the twenty-fifth round (issue 14), each with a true case and a safe twin.

They came from the thirty-seventh and thirty-eighth labelled groups (fx-private-relay,
foundation.mozilla.org, donate-wagtail, UK-Polling-Stations, pombola; mit-learn,
edx-analytics-dashboard, money-to-prisoners-send-money, torchbox.com, trade-remedies-api),
measured once before any of them was written.

- A credential or certificate file written from configuration is the same on every
  instance; one written with a random value is not.
- A download cache opened with ``try: return open(p) except IOError`` (or behind
  ``found = os.path.isfile(p)``) is rebuilt wherever it is missing.
- ``FileSystemStorage()`` with no location keeps files in MEDIA_ROOT: one cause with the
  setting that keeps uploads there.
- ``mimetypes.guess_type(doc.file.path)`` looks at the name only.
- ``"HOST": ""`` in a server database alias is this host's socket, as no HOST is.
- A crontab that a script installs by name is one finding with that script's line.
- A writer named for debugging writes for a developer.
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

# -- a credential file written from configuration ---------------------------------------

CREDENTIALS = """\
import base64

from django.conf import settings


def write_gcp_key_json_file(gcp_key_json_path):
    google_app_creds = base64.b64decode(settings.GOOGLE_CREDENTIALS_B64)
    with open(gcp_key_json_path, "w+") as gcp_key_file:
        gcp_key_file.write(google_app_creds.decode("utf-8"))


def setup():
    write_gcp_key_json_file(settings.BASE_DIR / "gcp_key.json")
"""


def test_a_credentials_file_from_configuration_is_silent(tmp_path: Path) -> None:
    assert scan(tmp_path, {"relay/apps.py": CREDENTIALS}, "file-write") == []


def test_a_key_file_made_at_random_is_found(tmp_path: Path) -> None:
    random = CREDENTIALS.replace(
        "base64.b64decode(settings.GOOGLE_CREDENTIALS_B64)", "secrets.token_bytes(32)"
    ).replace("import base64", "import secrets")
    found = scan(tmp_path, {"relay/apps.py": random}, "file-write")
    assert len(found) == 1
    assert found[0].path == "relay/apps.py"


# -- a download cache rebuilt where it is missing ----------------------------------------

TRY_OPEN = """\
import httplib2


class Source:
    def file(self):
        cache_file_path = self.cache_file_path()
        try:
            return open(cache_file_path, "r")
        except IOError:
            pass
        response, content = httplib2.Http().request(self.url)
        with open(cache_file_path, "w") as new_cache_file:
            new_cache_file.write(content)
        return open(cache_file_path, "r")
"""
NAMED_TEST = """\
import os

import httplib2


class Source:
    def file(self):
        cache_file_path = self.cache_file_path()
        found = os.path.isfile(cache_file_path)
        if found:
            return cache_file_path
        response, content = httplib2.Http().request(self.url)
        with open(cache_file_path, "w") as new_cache_file:
            new_cache_file.write(content)
        return cache_file_path
"""


def test_a_cache_returned_when_it_opens_is_rebuilt_where_missing(tmp_path: Path) -> None:
    assert scan(tmp_path, {"hansard/source.py": TRY_OPEN}, "file-write") == []


def test_an_existence_test_under_a_name_guards_the_same_way(tmp_path: Path) -> None:
    assert scan(tmp_path, {"hansard/source.py": NAMED_TEST}, "file-write") == []


def test_the_same_write_with_no_guard_is_found(tmp_path: Path) -> None:
    bare = NAMED_TEST.replace("        if found:\n            return cache_file_path\n", "")
    found = scan(tmp_path, {"hansard/source.py": bare}, "file-write")
    assert where(found) == [("hansard/source.py", 11)]


# -- FileSystemStorage() with no location is the setting's cause --------------------------

MEDIA_SETTINGS = "INSTALLED_APPS = []\nMEDIA_ROOT = '/srv/media'\n"
IMPORT_PHOTOS = """\
from django.core.files.storage import FileSystemStorage


def import_photo(name, content):
    storage = FileSystemStorage({location})
    storage.save(name, content)
"""


def test_a_storage_with_no_location_is_related_to_the_media_setting(tmp_path: Path) -> None:
    files = {
        "site/settings.py": MEDIA_SETTINGS,
        "people/photos.py": IMPORT_PHOTOS.format(location=""),
    }
    found = scan(tmp_path, files, None)
    assert where(found) == [("site/settings.py", 2)]
    assert [(r.path, r.line) for r in found[0].related] == [("people/photos.py", 5)]


def test_a_storage_with_its_own_location_stays_a_finding_of_its_own(tmp_path: Path) -> None:
    files = {
        "site/settings.py": MEDIA_SETTINGS,
        "people/photos.py": IMPORT_PHOTOS.format(location="location='/srv/photos'"),
    }
    found = scan(tmp_path, files, None)
    assert ("people/photos.py", 5) in where(found)


# -- a path looked at for its name -----------------------------------------------------

DOCUMENT = """\
import mimetypes

from django.db import models


class Document(models.Model):
    file = models.FileField()

    @property
    def mime_type(self):
        return {expression}
"""


def test_the_type_guessed_from_a_path_is_silent(tmp_path: Path) -> None:
    source = DOCUMENT.format(expression="mimetypes.guess_type(self.file.path, False)[0]")
    assert scan(tmp_path, {"documents/models.py": source}, "file-write") == []


def test_a_path_opened_is_found(tmp_path: Path) -> None:
    source = DOCUMENT.format(expression="open(self.file.path).read(64)")
    found = scan(tmp_path, {"documents/models.py": source}, "file-write")
    assert where(found) == [("documents/models.py", 11)]


# -- an empty literal HOST ----------------------------------------------------------------

DATABASES = """\
INSTALLED_APPS = []
CACHES = {{"default": {{"BACKEND": "django_redis.cache.RedisCache", "LOCATION": "redis://r"}}}}
DATABASES = {{
    "default": {{
        "ENGINE": "django.contrib.gis.db.backends.postgis",
        "NAME": "polling_stations",
        "HOST": {host},
    }}
}}
"""


def test_an_empty_literal_host_is_this_hosts_socket(tmp_path: Path) -> None:
    found = scan(tmp_path, {"site/settings.py": DATABASES.format(host='""')}, "settings")
    # At the empty HOST (the line a fix changes) since the thirty-eighth round; the alias
    # is a related location.
    (finding,) = [f for f in found if "DATABASES" in f.message]
    assert where([finding]) == [("site/settings.py", 7)]
    assert ("site/settings.py", 4) in [(r.path, r.line) for r in finding.related]


def test_a_named_host_is_silent(tmp_path: Path) -> None:
    found = scan(tmp_path, {"site/settings.py": DATABASES.format(host='"db.internal"')}, "settings")
    assert [f for f in found if "DATABASES" in f.message] == []


# -- a crontab a script installs ----------------------------------------------------------

CRONTAB = "MAILTO=''\n*/5 * * * * app /srv/app/bin/metrics.sh\n0 3 * * * app /srv/app/bin/sync.sh\n"
INSTALL = "#!/bin/bash\nset -e\ncrontab -u app /srv/app/deploy/conf/crontab\n"


def test_a_crontab_and_the_script_that_installs_it_are_one_finding(tmp_path: Path) -> None:
    files = {"deploy/conf/crontab": CRONTAB, "deploy/hooks/start_install_cron.sh": INSTALL}
    found = scan(tmp_path, files, "image-cron")
    assert len(found) == 1
    places = {(found[0].path, found[0].line)} | {(r.path, r.line) for r in found[0].related}
    assert {("deploy/conf/crontab", 2), ("deploy/hooks/start_install_cron.sh", 3)} <= places


def test_a_crontab_nobody_installs_stays_on_its_own(tmp_path: Path) -> None:
    found = scan(tmp_path, {"deploy/conf/crontab": CRONTAB}, "image-cron")
    assert where(found) == [("deploy/conf/crontab", 2)]


# -- debug output -------------------------------------------------------------------------

CONVERTER = """\
from pathlib import Path


class Converter:
    def {name}(self, markdown_content):
        fp = Path("/var/lib/converter") / f"{{self.name}}.md"
        with open(fp, "w") as output:
            output.write(markdown_content)
        return fp
"""


def test_a_writer_named_for_debugging_is_silent(tmp_path: Path) -> None:
    source = CONVERTER.format(name="_save_debug_markdown")
    assert scan(tmp_path, {"resources/converter.py": source}, "file-write") == []


def test_the_same_writer_saving_results_is_found(tmp_path: Path) -> None:
    source = CONVERTER.format(name="save_markdown")
    assert where(scan(tmp_path, {"resources/converter.py": source}, "file-write")) != []
