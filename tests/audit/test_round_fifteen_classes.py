"""Classes of the fifteenth round (issue 14), each with a true case and a safe twin.

- A systemd timer that an Ansible role turns on, in a role that also deploys the Django
  app (its server, ``manage.py``), runs its job on every web host the role provisions:
  one finding for the role, at the first timer's unit, the others related. A role that
  only installs a timer elsewhere (a backup host's role with no web app), or that stops
  one, is not reported.
- django-compressor installed with compression on (``COMPRESS_ENABLED``, or its default)
  and ``COMPRESS_OFFLINE`` unset compresses on request into a folder on this host (W067
  alike; or compression off and ``COMPRESS_PRECOMPILERS`` set, which compile on
  request): found at ``COMPRESS_ENABLED``, else at the app's ``INSTALLED_APPS`` entry. Not
  when compression is off, offline, or its output goes to another kind of storage, nor
  when the tree has templates and none uses ``{% compress %}`` (nothing to compress).
- A write through a name bound to a literal path is judged by the path, not the name:
  ``log_file = "/app/home_page_counters.json"`` is a data file a view reads; a name bound
  to a ``.log`` path, or a log name bound to no literal, is this host's log.
- ``SECRET_KEY`` from a project helper that generates a key into a file on first boot
  (``secret_key.generate_or_read_from_file(path)``) is generated at start-up, in both
  tools (W109 and W050): one finding at the settings line, the helper and its write
  related. A helper that only reads a key file someone put there is silent.
- ``x = NamedTemporaryFile(delete=False)`` (or ``with … as x``) whose name is handed to
  another request or process (a task's ``.delay()``, the session, the cache) and that the
  function does not remove (a removal in an ``except`` handler does not count) is a file
  a reader opens on another instance. Returned to the caller, kept in a
  local mapping, used only there, or removed (``os.remove(x.name)``), it is silent.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

from horizontal.audit.settings_imported import random_secret_key_sites
from tests.audit.test_outside_measurements import scan, where

# -- timers an Ansible role turns on -------------------------------------------------------

WEB_ROLE = """\
- name: Install gunicorn service
  template:
    dest: /etc/systemd/system/gunicorn.service
    src: gunicorn.service.j2

- name: Enable and start the dataset timer
  systemd:
    name: create-dataset.timer
    state: started
    enabled: yes

- name: Enable the reminder timer
  ansible.builtin.systemd_service:
    name: "send-reminders.timer"
    enabled: true
"""

BACKUP_ROLE = """\
- name: Enable the backup timer
  systemd:
    name: pg-backup.timer
    state: started
    enabled: yes
"""

STOPPED_TIMER = """\
- name: Install gunicorn service
  template:
    dest: /etc/systemd/system/gunicorn.service
    src: gunicorn.service.j2

- name: Stop the old dataset timer
  systemd:
    name: create-dataset.timer
    state: stopped
    enabled: no
"""


def test_timers_a_web_role_turns_on_are_one_finding_for_the_role(tmp_path: Path) -> None:
    found = scan(tmp_path, {"ansible/roles/web/tasks/main.yml": WEB_ROLE}, "image-cron")
    assert where(found) == [("ansible/roles/web/tasks/main.yml", 8)]
    assert [place.line for place in found[0].related] == [14]


def test_a_timer_of_a_role_with_no_web_app_is_not_reported(tmp_path: Path) -> None:
    files = {"ansible/roles/backup/tasks/main.yml": BACKUP_ROLE}
    assert scan(tmp_path, files, "image-cron") == []


def test_a_timer_a_role_stops_is_not_reported(tmp_path: Path) -> None:
    files = {"ansible/roles/web/tasks/main.yml": STOPPED_TIMER}
    assert scan(tmp_path, files, "image-cron") == []


# -- django-compressor compressing on request ------------------------------------------------

COMPRESSOR_SETTINGS = """\
INSTALLED_APPS = [
    "django.contrib.staticfiles",
    "compressor",
]
CACHES = {"default": {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": "redis://r"}}
STATIC_ROOT = "/srv/static"
{extra}
"""


def compressor_findings(tmp_path: Path, extra: str) -> list[tuple[str, int]]:
    files = {"app/settings.py": COMPRESSOR_SETTINGS.replace("{extra}", extra)}
    return where(scan(tmp_path, files, "settings"))


def test_compression_on_request_is_found_where_it_is_turned_on(tmp_path: Path) -> None:
    assert compressor_findings(tmp_path, "COMPRESS_ENABLED = True") == [("app/settings.py", 7)]


def test_compression_by_default_is_found_at_the_installed_app(tmp_path: Path) -> None:
    assert compressor_findings(tmp_path, "COMPRESS_OFFLINE = False") == [("app/settings.py", 3)]


def test_offline_off_or_shared_compression_is_not_reported(tmp_path: Path) -> None:
    for extra in (
        "COMPRESS_ENABLED = True\nCOMPRESS_OFFLINE = True",
        "COMPRESS_ENABLED = False",
        "COMPRESS_STORAGE = 'storages.backends.s3.S3Storage'",
        "STORAGES = {'default': {'BACKEND': 'storages.backends.s3.S3Storage'},"
        " 'compressor': {'BACKEND': 'storages.backends.s3.S3Storage'}}",
        "COMPRESS_OFFLINE = env.bool('COMPRESS_OFFLINE', True)",
        "STORAGES = {'default': {'BACKEND': 'storages.backends.s3.S3Storage'}}\n"
        "STORAGES['compressor'] = {'BACKEND': 'storages.backends.s3.S3Storage'}",
    ):
        assert compressor_findings(tmp_path, extra) == [], extra


def test_with_templates_none_of_which_compresses_nothing_is_reported(tmp_path: Path) -> None:
    files = {
        "app/settings.py": COMPRESSOR_SETTINGS.replace("{extra}", "COMPRESS_ENABLED = True"),
        "app/templates/base.html": "{% load static %}<script src='{% static 'a.js' %}'>",
    }
    assert scan(tmp_path, files, "settings") == []


def test_with_a_template_that_compresses_it_is_reported(tmp_path: Path) -> None:
    files = {
        "app/settings.py": COMPRESSOR_SETTINGS.replace("{extra}", "COMPRESS_ENABLED = True"),
        "app/templates/base.html": "{% load static %}",
        "app/jinja2/page.jinja": "{%- compress js -%}<script src=a.js></script>{% endcompress %}",
    }
    assert where(scan(tmp_path, files, "settings")) == [("app/settings.py", 7)]


# -- a name bound to a literal path ------------------------------------------------------------

COUNTERS_TASK = """\
import json


def update_home_page_counters(counts):
    log_file = "{path}"
    with open(log_file, "w") as f:
        json.dump(counts, f)
"""


def test_a_log_named_variable_holding_a_data_path_is_a_write(tmp_path: Path) -> None:
    files = {"analytics/tasks.py": COUNTERS_TASK.replace("{path}", "/app/counters.json")}
    assert where(scan(tmp_path, files, "file-write")) == [("analytics/tasks.py", 6)]


def test_a_log_named_variable_holding_a_log_path_is_not(tmp_path: Path) -> None:
    files = {"analytics/tasks.py": COUNTERS_TASK.replace("{path}", "/var/log/app/counts.log")}
    assert scan(tmp_path, files, "file-write") == []
    unbound = COUNTERS_TASK.replace('"{path}"', "counts.pop('path')")
    assert scan(tmp_path, {"analytics/tasks.py": unbound}, "file-write") == []


# -- a key file a settings helper writes on first boot --------------------------------------

KEY_HELPER = """\
import os
import random
import string


def generate_key(length=64):
    chars = string.ascii_letters + string.digits
    return "".join(random.SystemRandom().choice(chars) for _ in range(length))


def generate_or_read_from_file(key_file=".secret_key"):
    if os.path.exists(key_file):
        return open(key_file).read()
    key = generate_key()
    with open(key_file, "w") as f:
        f.write(key)
    return key
"""

READ_ONLY_HELPER = """\
def generate_or_read_from_file(key_file=".secret_key"):
    return open(key_file).read()
"""

HELPER_SETTINGS = """\
import os

SECRET_KEY = os.environ.get("SECRET_KEY")
if not SECRET_KEY:
    from keyhelpers import secret_key
    SECRET_KEY = secret_key.generate_or_read_from_file(
        os.path.join({folder!r}, ".secret_key_store")
    )
"""


def test_a_key_a_settings_helper_generates_into_a_file_is_found_by_both_tools(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {
        "keyhelpers/__init__.py": "",
        "keyhelpers/secret_key.py": KEY_HELPER,
        "helper_key_settings.py": HELPER_SETTINGS.format(folder=str(tmp_path)),
    }
    found = scan(tmp_path, files, None)
    assert [(f.path, f.line, f.message.split(":")[0]) for f in found] == [
        ("helper_key_settings.py", 6, "SECRET_KEY is generated at start-up")
    ]
    assert [(r.path, r.line) for r in found[0].related] == [
        ("keyhelpers/secret_key.py", 11),
        ("helper_key_settings.py", 4),  # ``if not SECRET_KEY:``, which makes it the fallback
        ("keyhelpers/secret_key.py", 15),
    ]
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv("SECRET_KEY", raising=False)
    for name in ("helper_key_settings", "keyhelpers", "keyhelpers.secret_key"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    importlib.import_module("helper_key_settings")  # W050 reads the module Django imported
    assert random_secret_key_sites("helper_key_settings") == [
        f"{tmp_path}/helper_key_settings.py:6"
    ]


def test_a_key_a_settings_helper_only_reads_is_the_operators(tmp_path: Path) -> None:
    files = {
        "keyhelpers/__init__.py": "",
        "keyhelpers/secret_key.py": READ_ONLY_HELPER,
        "helper_key_settings.py": HELPER_SETTINGS.format(folder=str(tmp_path)),
    }
    assert scan(tmp_path, files, "settings") == []


# -- a kept temp file handed on ------------------------------------------------------------

KEPT_TEMP = """\
import os
import tempfile

from django.core.cache import cache


def cache_report(key, data):
    report = tempfile.NamedTemporaryFile(suffix=".zip", delete=False)
    report.write(data)
    cache.set(key, report.name)


def queue_report(request, data):
    report = tempfile.NamedTemporaryFile(delete=False)
    report.write(data)
    report.close()
    request.session["report"] = report.name


def mail_export(data):
    export = tempfile.NamedTemporaryFile(delete=False)
    export.write(data)
    send_export.delay(export.name)


def stash_export(data):
    with tempfile.NamedTemporaryFile(suffix=".csv", delete=False) as export:
        export.write(data)
    try:
        caches["exports"].set("latest", export.name)
    except Exception:
        os.remove(export.name)
        raise
"""

KEPT_HERE = """\
import os
import shutil
import subprocess
import tempfile


def website_zip(export_dir):
    webzip = tempfile.NamedTemporaryFile(suffix=".zip", delete=False)
    shutil.make_archive(os.path.splitext(webzip.name)[0], "zip", export_dir)
    return webzip


def git_env(cert):
    env = {}
    cert_file = tempfile.NamedTemporaryFile(suffix=".pem", delete=False, mode="w")
    cert_file.write(cert)
    env["GIT_SSL_CAINFO"] = cert_file.name
    subprocess.run(["git", "fetch"], env=env)


def convert(data):
    source = tempfile.NamedTemporaryFile(delete=False)
    source.write(data)
    source.close()
    subprocess.run(["convert", source.name])
    return len(data)


def build(data):
    report = tempfile.NamedTemporaryFile(delete=False)
    report.write(data)
    try:
        return report.name
    finally:
        os.remove(report.name)
"""


def test_a_kept_temp_file_that_leaves_its_function_is_left_behind(tmp_path: Path) -> None:
    found = scan(tmp_path, {"exports/export.py": KEPT_TEMP}, "file-write")
    assert where(found) == [
        ("exports/export.py", 8),
        ("exports/export.py", 14),
        ("exports/export.py", 21),
        ("exports/export.py", 27),
    ]


def test_a_kept_temp_file_used_or_removed_in_its_function_is_not(tmp_path: Path) -> None:
    assert scan(tmp_path, {"exports/convert.py": KEPT_HERE}, "file-write") == []
