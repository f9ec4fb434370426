"""The seventy-sixth round (2026-12-08), from a fifth new user's trial: a deployment's
``local.py`` that turns ``DEBUG`` off, a Celery worker started in Python with beat inside
it, and a supervisor program whose Celery command is a variable and whose arguments
continue on indented lines.

Each case has a true twin that must be found and a safe one that must stay silent."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.test_outside_measurements import scan, where

BASE = """\
DEBUG = True
INSTALLED_APPS = ["django.contrib.auth"]
ROOT_URLCONF = "proj.urls"
BROKER_URL = "redis://localhost:6379/0"
"""


@pytest.mark.parametrize(
    ("local", "found"),
    [
        ("from .base import *\nDEBUG = False\n", [("proj/settings/base.py", 4)]),
        ("from .base import *\nDEBUG = True\n", []),
        ("from .base import *\n", []),
    ],
    ids=["local-turns-debug-off", "local-keeps-debug-on", "local-says-nothing-of-debug"],
)
def test_a_base_that_a_local_module_turning_debug_off_extends_is_production(
    tmp_path: Path, local: str, found: list[tuple[str, int]]
) -> None:
    """allianceauth's template: ``settings/base.py`` sets ``DEBUG = True`` and
    ``settings/local.py``, what wsgi.py serves, star-imports it and sets ``DEBUG = False``:
    the base's localhost broker is production's. A ``local.py`` that leaves DEBUG on is a
    developer's, and the base with it."""
    files = {
        "proj/settings/__init__.py": "",
        "proj/settings/base.py": BASE,
        "proj/settings/local.py": local,
    }
    assert where(scan(tmp_path, files, "settings")) == found


def test_a_local_module_alone_is_a_build_steps_and_one_production_extends_is_its(
    tmp_path: Path,
) -> None:
    """reviewboard's ``conf/settings_local.py`` (``DEBUG = False``, ``SECRET_KEY = '1234'``,
    SQLite) extends nothing and nothing extends it: a build step's. A ``local_settings``
    that production's ``settings.py`` star-imports at its end is production's layer."""
    local = 'DEBUG = False\nBROKER_URL = "redis://localhost:6379/0"\n'
    alone = {"build/conf/settings_local.py": local + "INSTALLED_APPS = []\nROOT_URLCONF = 'u'\n"}
    assert scan(tmp_path / "alone", alone, "settings") == []
    layered = {
        "proj/settings.py": 'INSTALLED_APPS = []\nROOT_URLCONF = "proj.urls"\n'
        "from .local_settings import *\n",
        "proj/local_settings.py": local,
    }
    found = scan(tmp_path / "layered", layered, "settings")
    assert ("proj/local_settings.py", 2) in where(found)


@pytest.mark.parametrize(
    "imported",
    [
        "from .local_settings import *\n",
        "try:\n    from .local_settings import *\nexcept ImportError:\n    pass\n",
    ],
    ids=["at-top-level", "in-a-try"],
)
def test_local_settings_production_star_imports_are_its_layer(
    tmp_path: Path, imported: str
) -> None:
    """``try: from .local_settings import *`` is how most projects load it: in the tree,
    it runs, as the bare import does."""
    files = {
        "proj/settings.py": 'INSTALLED_APPS = []\nROOT_URLCONF = "proj.urls"\n' + imported,
        "proj/local_settings.py": 'DEBUG = False\nBROKER_URL = "redis://localhost:6379/0"\n',
    }
    assert where(scan(tmp_path, files, "settings")) == [("proj/local_settings.py", 2)]


def test_a_test_module_that_turns_debug_off_is_still_the_tests(tmp_path: Path) -> None:
    """Only ``local`` is read both ways: ``test_settings.py`` with ``DEBUG = False`` is
    the test runner's still."""
    files = {
        "proj/settings/__init__.py": "",
        "proj/settings/base.py": BASE,
        "proj/settings/test.py": "from .base import *\nDEBUG = False\n",
    }
    assert scan(tmp_path, files, "settings") == []


WORKER_COMMAND = """\
from celery.apps.worker import Worker as CeleryWorker
from django.core.management.base import BaseCommand

from proj.celery import app


class Command(BaseCommand):
    def handle(self, *args, **options):
        worker = CeleryWorker(
            hostname="localhost",
            app=app,
            {beat}
        )
        worker.start()
"""


@pytest.mark.parametrize(
    ("beat", "found"),
    [("beat=True,", [("app/management/commands/worker.py", 9)]), ("beat=False,", []), ("", [])],
    ids=["beat-inside", "beat-off", "no-beat"],
)
def test_a_celery_worker_built_in_python_with_beat_inside(
    tmp_path: Path, beat: str, found: list[tuple[str, int]]
) -> None:
    """papermerge's ``manage.py worker``: every worker node that runs it is a scheduler."""
    files = {"app/management/commands/worker.py": WORKER_COMMAND.format(beat=beat)}
    assert where(scan(tmp_path, files, "scheduler")) == found


@pytest.mark.parametrize(
    ("argv", "found"),
    [
        ('["worker", "--loglevel=info", "-B"]', [("run_worker.py", 4)]),
        ('["worker", "--beat"]', [("run_worker.py", 4)]),
        ('["worker", "--loglevel=info"]', []),
        ('["beat"]', []),
    ],
    ids=["short-flag", "long-flag", "worker-alone", "beat-alone"],
)
def test_worker_main_with_beat_embedded_even_in_a_script(
    tmp_path: Path, argv: str, found: list[tuple[str, int]]
) -> None:
    """A worker script scales with the workers: unlike a scheduler's own script, beat in it
    runs once per worker. ``beat`` alone is the scheduler's own process."""
    main = f"    app.worker_main({argv})\n"
    source = f'from proj.celery import app\n\nif __name__ == "__main__":\n{main}'
    assert where(scan(tmp_path, {"run_worker.py": source}, "scheduler")) == found


SUPERVISOR = """\
[program:{name}]
command = %(ENV_AA_COMMAND_CELERY)s
    -A %(ENV_AA_PROJECT_NAME)s {what}
directory = %(ENV_AA_PROJECT_DIRECTORY)s
autostart = true
"""


@pytest.mark.parametrize(
    ("what", "found"),
    [("beat", [("supervisor.conf", 2)]), ("worker --concurrency=5", [])],
    ids=["beat-program", "worker-program"],
)
def test_a_supervisor_program_whose_celery_is_a_variable(
    tmp_path: Path, what: str, found: list[tuple[str, int]]
) -> None:
    """The command's program is ``%(ENV_AA_COMMAND_CELERY)s`` and its arguments continue
    on indented lines, as configparser reads them: beat is still a program of every host."""
    conf = SUPERVISOR.format(name=what.split()[0], what=what)
    assert where(scan(tmp_path, {"supervisor.conf": conf}, "scheduler")) == found


DYNAMIC_SETTINGS = """\
import sys

INSTALLED_APPS = ["django.contrib.sessions", "django.contrib.auth"]
ROOT_URLCONF = "proj.urls"
SESSION_ENGINE = "django.contrib.sessions.backends.cache"
MAPPINGS = {{
    "web.caches": ["{name}", '{{"default": {{"BACKEND": "django_redis.cache.RedisCache"}}}}'],
}}


def process_custom_settings(module):
    for key, (global_name, default) in MAPPINGS.items():
        setattr(module, global_name, default)


process_custom_settings({this})
"""


@pytest.mark.parametrize(
    ("name", "this", "found"),
    [
        ("CACHES", "sys.modules[__name__]", []),
        ("OTHER_CACHES", "sys.modules[__name__]", [("proj/settings.py", 3)]),
        ("CACHES", "object()", [("proj/settings.py", 3)]),
    ],
    ids=["caches-set-by-name", "another-name-set", "no-module-handed-over"],
)
def test_a_setting_the_module_binds_by_name_at_run_time_is_set(
    tmp_path: Path, name: str, this: str, found: list[tuple[str, int]]
) -> None:
    """omero-web's settings ``setattr(sys.modules[__name__], …)`` over a table that names
    ``CACHES``: "CACHES is not set" would be wrong. The table's names count as set, and
    only when the module hands itself to the loop."""
    files = {"proj/settings.py": DYNAMIC_SETTINGS.format(name=name, this=this)}
    findings = [f for f in scan(tmp_path, files, "settings") if "CACHES" in f.message]
    assert where(findings) == found


@pytest.mark.parametrize(
    "update",
    ['globals()["CACHES"] = load()', "globals().update(load())"],
    ids=["globals-subscript", "globals-update"],
)
def test_settings_bound_through_globals_are_set(tmp_path: Path, update: str) -> None:
    source = (
        'INSTALLED_APPS = ["django.contrib.sessions"]\nROOT_URLCONF = "proj.urls"\n'
        'SESSION_ENGINE = "django.contrib.sessions.backends.cache"\n'
        f'NAMES = ["CACHES"]\n{update}\n'
    )
    findings = scan(tmp_path, {"proj/settings.py": source}, "settings")
    assert [f for f in findings if "CACHES" in f.message] == []


HAND_OVER = """\
from django.db import models


class Rule(models.Model):
    _update_queue = dict()

    def check_for_changes(self):
        db_value = type(self).objects.get(pk=self.pk).label
        if db_value != self.label:
            self._update_queue[str(self.id)] = {{"label": db_value}}

    def update_related_objects(self):
        {read}
"""


@pytest.mark.parametrize(
    ("read", "found"),
    [
        ("changed = self._update_queue.pop(str(self.id), None)", []),
        ("changed = self._update_queue.get(str(self.id))", [("app/models.py", 5)]),
        (
            "changed = self._update_queue.pop(str(self.id)); seen = len(self._update_queue)",
            [("app/models.py", 5)],
        ),
    ],
    ids=["popped-hand-over", "read-and-kept", "popped-and-read"],
)
def test_a_dict_filled_by_one_hook_and_popped_by_the_next_is_no_memo(
    tmp_path: Path, read: str, found: list[tuple[str, int]]
) -> None:
    """openwisp-controller: ``pre_save`` records the changed fields, ``post_save`` pops
    them: one save's hand-over in one process. Read with ``get`` (kept), it is a memo."""
    files = {"app/models.py": HAND_OVER.format(read=read)}
    assert where(scan(tmp_path, files, "cache")) == found


# -- after a review of the round's diff ----------------------------------------------------


def test_a_module_level_dict_one_view_fills_and_another_pops_is_still_state(
    tmp_path: Path,
) -> None:
    """A token handed from one request to the next: another instance has no entry."""
    views = (
        "import uuid\nfrom .models import Upload\n\n_PENDING = {}\n\n\n"
        "def start(request):\n    token = uuid.uuid4().hex\n"
        "    _PENDING[token] = Upload.objects.get(pk=request.POST['id']).pk\n    return token\n\n\n"
        "def finish(request, token):\n    return _PENDING.pop(token, None)\n"
    )
    assert where(scan(tmp_path, {"app/views.py": views}, "cache")) == [("app/views.py", 4)]


def test_a_class_dict_read_through_another_object_is_still_state(tmp_path: Path) -> None:
    read = "changed = self._update_queue.pop(str(self.id))\n\n\ndef receiver(instance):\n"
    read += "    return instance._update_queue.get(str(instance.id))"
    files = {"app/models.py": HAND_OVER.format(read=read)}
    assert where(scan(tmp_path, files, "cache")) == [("app/models.py", 5)]


@pytest.mark.parametrize(
    ("name", "text", "found"),
    [
        (
            "uwsgi.ini",
            "[uwsgi]\n    module = proj.wsgi\n    static-map = /media=/srv/app/media\n"
            "    attach-daemon = celery -A proj worker -B\n",
            [("uwsgi.ini", 3), ("uwsgi.ini", 4)],
        ),
        (
            "supervisord.conf",
            "[program:beat]\n    directory = /srv/app\n    command = celery -A proj beat\n",
            [("supervisord.conf", 3)],
        ),
    ],
    ids=["uwsgi-keys-indented-alike", "supervisor-keys-indented-alike"],
)
def test_keys_indented_alike_are_not_one_continued_value(
    tmp_path: Path, name: str, text: str, found: list[tuple[str, int]]
) -> None:
    """Only a line indented deeper than its key continues it (configparser); uWSGI has no
    continuation lines at all."""
    assert where(scan(tmp_path, {name: text})) == found


LOCAL_SQLITE = (
    "from .base import *\nDEBUG = False\n"
    "DATABASES = {'default': {'ENGINE': 'django.db.backends.sqlite3', 'NAME': 'db.sqlite3'}}\n"
)


@pytest.mark.parametrize(
    ("extra", "found"),
    [
        ({}, [("proj/settings/base.py", 4), ("proj/settings/local.py", 3)]),
        ({"pytest.ini": "[pytest]\nDJANGO_SETTINGS_MODULE = proj.settings.local\n"}, []),
        (
            {"proj/settings/production.py": "from .base import *\nDEBUG = False\n"},
            [("proj/settings/base.py", 4)],
        ),
    ],
    ids=["local-alone-beside-the-base", "local-is-the-tests", "production-beside-local"],
)
def test_a_local_layer_is_production_only_where_nothing_else_is(
    tmp_path: Path, extra: dict[str, str], found: list[tuple[str, int]]
) -> None:
    """A ``local.py`` the test runner is pointed at is the tests'; one beside a
    ``production.py`` that extends the same base is a developer's: its SQLite is not
    production's (the base's broker is, through production.py)."""
    files = {
        "proj/settings/__init__.py": "",
        "proj/settings/base.py": BASE,
        "proj/settings/local.py": LOCAL_SQLITE,
        **extra,
    }
    assert sorted(where(scan(tmp_path, files, "settings"))) == found


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ('from proj.celery import app\napp.worker_main(argv=["worker", "-B"])\n', True),
        ("from proj.celery import app\nw = app.Worker(beat = True)\n", True),
        ("from app.heartbeat import Worker\nw = Worker('http://x', beat=True)\n", False),
    ],
    ids=["argv-keyword", "spaced-keyword", "another-librarys-worker"],
)
def test_which_workers_embed_celery_beat(tmp_path: Path, source: str, found: bool) -> None:
    findings = scan(tmp_path, {"run_worker.py": source}, "scheduler")
    assert bool(findings) is found


@pytest.mark.parametrize(
    "program",
    [
        "command = %(ENV_AA_COMMAND_CELERY)s -A proj beat\n",
        "command = celery\n    -A proj beat\n",
    ],
    ids=["celery-a-variable", "continued-command"],
)
def test_beat_with_nothing_to_schedule_is_idle_whatever_its_command(
    tmp_path: Path, program: str
) -> None:
    """A project that defines no periodic task gives beat nothing to send: the finding is
    dropped, as for a plain ``command = celery -A proj beat``; so is a worker built in
    Python with beat inside it."""
    files = {
        "supervisor.conf": "[program:beat]\n" + program,
        "proj/settings.py": 'INSTALLED_APPS = ["proj"]\nROOT_URLCONF = "proj.urls"\n'
        'CELERY_BROKER_URL = "redis://redis:6379/0"\n',
        "proj/celery.py": 'from celery import Celery\napp = Celery("proj")\n',
        "app/management/commands/worker.py": WORKER_COMMAND.format(beat="beat=True,"),
    }
    assert scan(tmp_path, files, "scheduler") == []
