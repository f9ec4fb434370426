"""Deploy warnings W040-W047 (horizontal/checks/background.py), from the SHARED baseline."""

from __future__ import annotations

import os
import sys
import threading
import types
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import global_settings
from django.core import checks

from horizontal.audit.tree import uses_tasks
from horizontal.checks import background
from tests.checks.baseline import (
    LOCMEM,
    REDIS,
    assert_follows_the_contract,
    assert_registered_deploy_only,
    deploy_ids,
    deploy_messages,
    shared_settings,
    with_app,
)


def test_in_memory_channel_layer_is_w040() -> None:
    layers = {
        "default": {"BACKEND": "channels.layers.InMemoryChannelLayer"},
        "redis": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": ["redis://redis.internal:6379/2"]},
        },
    }
    assert deploy_ids(CHANNEL_LAYERS=layers) == ["horizontal.W040"]


def test_channels_redis_with_no_hosts_is_on_this_host() -> None:
    # channels_redis's default is redis://localhost:6379: each instance its own layer.
    layers = {"default": {"BACKEND": "channels_redis.core.RedisChannelLayer"}}
    assert deploy_ids(CHANNEL_LAYERS=layers) == ["horizontal.W048"]
    # An empty list is no hosts too: channels_redis falls back to the same default.
    empty = {"default": {**layers["default"], "CONFIG": {"hosts": []}}}
    assert deploy_ids(CHANNEL_LAYERS=empty) == ["horizontal.W048"]
    configured = {"default": {**layers["default"], "CONFIG": {"hosts": [("redis.internal", 6379)]}}}
    assert deploy_ids(CHANNEL_LAYERS=configured) == []


def test_a_channels_redis_subclass_with_no_hosts_is_on_this_host(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A project's own layer class (tracing, a key prefix) keeps channels_redis' default.
    package, core = types.ModuleType("channels_redis"), types.ModuleType("channels_redis.core")
    base = type("RedisChannelLayer", (), {"__module__": "channels_redis.core"})
    core.RedisChannelLayer = base  # type: ignore[attr-defined]
    layers = types.ModuleType("traced_layers")
    layers.TracedChannelLayer = type("TracedChannelLayer", (base,), {})  # type: ignore[attr-defined]
    for module in (package, core, layers):
        monkeypatch.setitem(sys.modules, module.__name__, module)
    configured = {"default": {"BACKEND": "traced_layers.TracedChannelLayer"}}
    assert deploy_ids(CHANNEL_LAYERS=configured) == ["horizontal.W048"]


TASKS_APP = with_app("task_defining_app")


def test_immediate_tasks_are_w041_when_the_project_defines_tasks() -> None:
    tasks = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}
    assert deploy_ids(TASKS=tasks, INSTALLED_APPS=TASKS_APP) == ["horizontal.W041"]


def test_backported_immediate_tasks_are_w041_when_the_project_defines_tasks() -> None:
    tasks = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}
    assert deploy_ids(TASKS=tasks, INSTALLED_APPS=TASKS_APP) == ["horizontal.W041"]


def test_immediate_tasks_with_no_task_in_the_code_are_only_a_note() -> None:
    """A fresh Django 6.1 project: the implicit ImmediateBackend harms nobody yet."""
    tasks = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}
    [message] = [m for m in deploy_messages(TASKS=tasks) if "041" in m.id]
    assert (message.id, message.level) == ("horizontal.I041", checks.INFO)


def test_dummy_tasks_are_w042() -> None:
    tasks = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}
    assert deploy_ids(TASKS=tasks) == ["horizontal.W042"]


def test_implicit_tasks_default_on_django_6() -> None:
    """Django 6 defaults TASKS to ImmediateBackend; 5.2 has no TASKS at all."""
    default = getattr(global_settings, "TASKS", None)
    expected = ["horizontal.W041"] if default else []
    assert deploy_ids(TASKS=default, INSTALLED_APPS=TASKS_APP) == expected


def test_the_backport_installed_with_tasks_unset_is_w041() -> None:
    # django-tasks, installed with no TASKS, gives every project its ImmediateBackend.
    apps = [*TASKS_APP, "django_tasks"]
    assert deploy_ids(TASKS=None, INSTALLED_APPS=apps) == ["horizontal.W041"]
    database = {"default": {"BACKEND": "django_tasks.backends.database.DatabaseBackend"}}
    assert deploy_ids(TASKS=database, INSTALLED_APPS=apps) == []


def test_the_backport_with_tasks_set_empty_has_no_backend_to_warn_of() -> None:
    # ``TASKS = {}``, the documented way out: the backport then has no backend at all.
    apps = [*TASKS_APP, "django_tasks"]
    assert [m.id for m in deploy_messages(TASKS={}, INSTALLED_APPS=apps) if "041" in m.id] == []


@pytest.mark.parametrize(
    ("source", "uses"),
    [
        ("import django_tasks\n\n@django_tasks.task\ndef send(): ...\n", True),
        ("from django_tasks import task as background\n\n@background()\ndef send(): ...\n", True),
        ("from django.tasks import (\n    task,\n)\n\n@task()\ndef send(): ...\n", True),
        ("from app.jobs import report\n\nreport.enqueue(1)\n\nimport django.tasks\n", True),
        # A docstring that names the framework, and a function named for a task: no task.
        ('"""Like django_tasks, but by hand."""\n\ndef render_task(result): ...\n', False),
        (
            "from django.tasks import (\n    task as background,\n)\n\n@background\ndef f(): ...\n",
            True,
        ),
        ("import django_tasks as dt\n\n@dt.task\ndef send(): ...\n", True),
        ("from django import tasks\n\n@tasks.task\ndef send(): ...\n", True),
        ("from django import forms, tasks as dj\n\n@dj.task()\ndef send(): ...\n", True),
        # Django imported, and a word "tasks", but not the framework.
        ("from django import forms\n\n# background tasks run elsewhere\n", False),
    ],
    ids=[
        "dotted-no-parens",
        "aliased",
        "parenthesised-import",
        "enqueue",
        "mention-only",
        "wrapped-alias",
        "module-alias",
        "package-from-django",
        "package-from-django-aliased",
        "django-without-tasks",
    ],
)
def test_what_counts_as_code_that_uses_tasks(tmp_path: Path, source: str, uses: bool) -> None:
    (tmp_path / "tasks_module.py").write_text(source)
    assert uses_tasks([tmp_path]) is uses


def test_apscheduler_is_w043() -> None:
    ids = deploy_ids(INSTALLED_APPS=with_app("django_apscheduler"))
    assert ids == ["horizontal.W043"]


def test_crontab_is_w044() -> None:
    assert deploy_ids(INSTALLED_APPS=with_app("django_crontab")) == ["horizontal.W044"]


def test_django_cron_file_lock_is_w045() -> None:
    ids = deploy_ids(
        INSTALLED_APPS=with_app("django_cron"),
        DJANGO_CRON_LOCK_BACKEND="django_cron.backends.lock.file.FileLock",
    )
    assert ids == ["horizontal.W045"]


def test_django_cron_default_cache_lock_is_w046() -> None:
    [warning] = [
        m
        for m in deploy_messages(INSTALLED_APPS=with_app("django_cron"))
        if m.id.startswith("horizontal.W04")
    ]
    assert warning.id == "horizontal.W046"
    assert "not atomic" in warning.msg


def test_django_cron_cache_lock_on_a_local_cache_says_so() -> None:
    [warning] = [
        m
        for m in deploy_messages(
            INSTALLED_APPS=with_app("django_cron"),
            CACHES={"default": REDIS, "cron": LOCMEM},
            HORIZONTAL_LOCAL_CACHES=["cron"],
            DJANGO_CRON_CACHE="cron",
        )
        if m.id.startswith("horizontal.W04")
    ]
    assert warning.id == "horizontal.W046"
    assert "uses local cache 'cron'" in warning.msg


def test_django_cron_database_lock_is_not_flagged() -> None:
    ids = deploy_ids(
        INSTALLED_APPS=with_app("django_cron"),
        DJANGO_CRON_LOCK_BACKEND="django_cron.backends.lock.database.DatabaseLock",
    )
    assert ids == []


@pytest.fixture
def celery_beat_module(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    """celery.beat's embedded-service classes, as celery defines them (not installed here)."""
    module = types.ModuleType("celery.beat")

    class _Threaded(threading.Thread):
        pass

    class _Process:
        pass

    module._Threaded = _Threaded  # type: ignore[attr-defined]
    module._Process = _Process  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "celery.beat", module)
    return module


@pytest.fixture
def running_beat(celery_beat_module: types.ModuleType) -> Iterator[None]:
    stop = threading.Event()
    thread = celery_beat_module._Threaded(target=stop.wait, daemon=True)
    thread.start()
    yield
    stop.set()
    thread.join()


def test_celery_beat_thread_in_this_process_is_w047(running_beat: None) -> None:
    assert deploy_ids() == ["horizontal.W047"]


def test_celery_imported_without_beat_running_is_fine(celery_beat_module: object) -> None:
    assert deploy_ids() == []


def test_every_check_is_registered_deploy_only() -> None:
    assert_registered_deploy_only(background)


@pytest.mark.parametrize(
    "message",
    [
        background.W040("default"),
        background.W041("default", implicit=True),
        background.W041("default", implicit=False),
        background.W042("default"),
        background.W043,
        background.W044,
        background.W045,
        background.W046("uses local cache 'default'"),
        background.W046("is not atomic"),
        background.W047,
    ],
    ids=lambda m: m.id,
)
def test_message_follows_the_contract(message: checks.CheckMessage) -> None:
    assert_follows_the_contract(message)


# -- W048: a background service addressed as this host ----------------------------------


@pytest.mark.parametrize(
    ("setting", "value"),
    [
        ("CELERY_BROKER_URL", "redis://localhost:6379/0"),
        ("CELERY_BROKER_URL", "amqp://guest:guest@127.0.0.1:5672//"),
        ("BROKER_URL", "amqp://guest@localhost//"),
        ("CELERY_RESULT_BACKEND", "redis://[::1]:6379/1"),
        ("CELERY_RESULT_BACKEND", "redis+socket:///run/redis.sock"),
        (
            "CHANNEL_LAYERS",
            {
                "default": {
                    "BACKEND": "channels_redis.core.RedisChannelLayer",
                    "CONFIG": {"hosts": [("127.0.0.1", 6379)]},
                }
            },
        ),
        (
            "CHANNEL_LAYERS",
            {
                "default": {
                    "BACKEND": "channels_redis.core.RedisChannelLayer",
                    "CONFIG": {"hosts": [{"address": "redis://localhost:6379"}]},
                }
            },
        ),
        ("HUEY", {"name": "shop", "connection": {"host": "localhost", "port": 6379}}),
        ("RQ_QUEUES", {"default": {"HOST": "127.0.0.1", "PORT": 6379, "DB": 0}}),
        ("RQ_QUEUES", {"default": {"URL": "redis://localhost:6379/0"}}),
        # No host: py-amqp's and redis-py's default, localhost.
        ("CELERY_BROKER_URL", "pyamqp://"),
        ("CELERY_BROKER_URL", "pyamqp://guest@/"),
    ],
)
def test_a_background_service_on_this_host_is_w048(setting: str, value: object) -> None:
    assert deploy_ids(**{setting: value}) == ["horizontal.W048"]


@pytest.mark.parametrize(
    ("setting", "value", "kept_here"),
    [
        ("CELERY_BROKER_URL", "redis://localhost:6379/0", False),
        ("CELERY_BROKER_URL", "filesystem://", True),
        ("CELERY_RESULT_BACKEND", "db+sqlite:///results.sqlite3", True),
        ("HUEY", {"name": "shop", "huey_class": "huey.SqliteHuey", "filename": "/srv/q.db"}, True),
        # A socket's path with no suffix is still a server's.
        ("RQ_QUEUES", {"default": {"UNIX_SOCKET_PATH": "/var/run/redis/redis"}}, False),
    ],
)
def test_w048_speaks_of_a_proxy_only_where_there_is_a_server(
    setting: str, value: object, kept_here: bool
) -> None:
    # A file or an in-process store has no server to point at, and no sidecar reaches it.
    [message] = [m for m in deploy_messages(**{setting: value}) if m.id == "horizontal.W048"]
    assert ("sidecar" not in message.hint) is kept_here
    assert ("file or process" in message.hint) is kept_here


@pytest.mark.parametrize(
    ("setting", "value"),
    [
        ("CELERY_BROKER_URL", "redis://redis.internal:6379/0"),
        ("CELERY_BROKER_URL", "amqp://guest:guest@rabbitmq:5672//"),
        ("CELERY_RESULT_BACKEND", "django-db"),
        ("CELERY_RESULT_BACKEND", "rpc://"),
        (
            "CHANNEL_LAYERS",
            {
                "default": {
                    "BACKEND": "channels_redis.core.RedisChannelLayer",
                    "CONFIG": {"hosts": [("redis.internal", 6379)]},
                }
            },
        ),
        ("HUEY", {"name": "shop", "connection": {"host": "redis.internal"}}),
        ("RQ_QUEUES", {"default": {"USE_REDIS_CACHE": "default"}}),
    ],
)
def test_a_background_service_every_instance_shares_is_silent(setting: str, value: object) -> None:
    assert deploy_ids(**{setting: value}) == []


# -- W049: task queues told to run tasks inline -----------------------------------------


@pytest.mark.parametrize(
    ("setting", "value"),
    [
        ("CELERY_TASK_ALWAYS_EAGER", True),
        ("CELERY_ALWAYS_EAGER", True),
        ("HUEY", {"name": "shop", "immediate": True}),
        ("Q_CLUSTER", {"name": "shop", "sync": True}),
        ("RQ_QUEUES", {"default": {"HOST": "redis.internal", "ASYNC": False}}),
        # The libraries test truth: an environment string "False" is eager, "" not async.
        ("CELERY_TASK_ALWAYS_EAGER", "False"),
        ("CELERY_TASK_ALWAYS_EAGER", 1),
        ("RQ_QUEUES", {"default": {"HOST": "redis.internal", "ASYNC": ""}}),
    ],
)
def test_a_task_queue_in_an_inline_mode_is_w049(setting: str, value: object) -> None:
    assert deploy_ids(**{setting: value}) == ["horizontal.W049"]


def test_a_huey_instance_in_immediate_mode_is_w049() -> None:
    huey = types.SimpleNamespace(immediate=True)
    assert deploy_ids(HUEY=huey) == ["horizontal.W049"]


@pytest.mark.parametrize(
    ("setting", "value"),
    [
        ("CELERY_TASK_ALWAYS_EAGER", False),
        ("HUEY", {"name": "shop", "immediate": False, "connection": {"host": "redis.internal"}}),
        ("HUEY", types.SimpleNamespace(immediate=False)),
        ("Q_CLUSTER", {"name": "shop", "workers": 4, "redis": {"host": "redis.internal"}}),
        ("RQ_QUEUES", {"default": {"HOST": "redis.internal", "ASYNC": True}}),
        ("RQ_QUEUES", {"default": {"HOST": "redis.internal"}}),
        ("CELERY_TASK_ALWAYS_EAGER", ""),
        ("CELERY_TASK_ALWAYS_EAGER", 0),
    ],
)
def test_a_task_queue_with_workers_is_silent(setting: str, value: object) -> None:
    assert deploy_ids(**{setting: value}) == []


# Celery told to run tasks inline by the project's code rather than its settings.

CELERY_MODULE = """\
import os
import sys

from celery import Celery
from django.conf import settings

app = Celery("shop")
app.config_from_object("django.conf:settings", namespace="CELERY")
{line}
"""


def _eager_in_code(tmp_path: Path, line: str, **changes: object) -> list[checks.CheckMessage]:
    # A folder of its own: the audit's walk skips test-named ones, as pytest's tmp_path is.
    package = tmp_path / "shop"
    package.mkdir(exist_ok=True)
    (package / "celery.py").write_text(CELERY_MODULE.format(line=line))
    project = types.SimpleNamespace(name="shop", path=str(package))
    with shared_settings(**changes):
        return background.check_eager_task_queues(app_configs=[project])


@pytest.mark.parametrize(
    "line",
    [
        "app.conf.task_always_eager = True",
        "app.conf['task_always_eager'] = True",
        "app.conf.update(task_always_eager=True, task_eager_propagates=True)",
        "app.conf.update({'task_always_eager': True})",
        "app.conf.update(**{'CELERY_ALWAYS_EAGER': 1})",
        "app.conf.task_always_eager: bool = True",
        "try:\n    app.conf.task_always_eager = True\nexcept ImportError:\n    pass",
        "app.conf.task_always_eager = settings.RUN_TASKS_INLINE",
        "if settings.RUN_TASKS_INLINE:\n    app.conf.task_always_eager = True",
        "if settings.DEBUG:\n    pass\nelse:\n    app.conf.task_always_eager = True",
        # Through module-level names and dict(): a config dict kept beside the app.
        "CONFIG = {'broker_url': os.environ.get('REDIS_URL'), 'task_always_eager': True}\n"
        "app.conf.update(CONFIG)",
        "app.conf.update(dict(task_always_eager=True))",
        "EAGER = True\napp.conf.update(task_always_eager=EAGER)",
        "EAGER = True\napp.conf.task_always_eager = EAGER",
        "BASE = dict(task_always_eager=True)\nCONFIG = {**BASE}\napp.conf.update(**CONFIG)",
    ],
)
def test_celery_made_eager_in_the_projects_code_is_w049(tmp_path: Path, line: str) -> None:
    [message] = _eager_in_code(tmp_path, line, RUN_TASKS_INLINE=True, DEBUG=False)
    assert message.id == "horizontal.W049"
    # The module's line 9 is ``{line}``; the place is the statement that sets the option.
    number = 9 + next(i for i, text in enumerate(line.splitlines()) if "app.conf" in text)
    assert message.obj == f"{os.path.relpath(tmp_path / 'shop' / 'celery.py')}:{number}"
    assert_follows_the_contract(message)


RQ_MODULE = """\
import django_rq
from django.conf import settings
from redis import Redis
from rq import Queue

{line}
"""


@pytest.mark.parametrize(
    ("line", "warned"),
    [
        ("queue = Queue(connection=Redis('redis.internal'), is_async=False)", True),
        ("exports = django_rq.get_queue('exports', is_async=False)", True),
        ("if settings.RUN_TASKS_INLINE:\n    queue = Queue(is_async=False)", True),
        # Its twins: async queues, a branch production does not take, a helper a test calls.
        ("queue = Queue(connection=Redis('redis.internal'), is_async=True)", False),
        ("if settings.DEBUG:\n    queue = Queue(is_async=False)", False),
        ("def inline_queue():\n    return Queue(is_async=False)", False),
    ],
)
def test_an_rq_queue_built_inline_in_the_projects_code_is_w049(
    tmp_path: Path, line: str, warned: bool
) -> None:
    package = tmp_path / "shop"
    package.mkdir()
    (package / "queues.py").write_text(RQ_MODULE.format(line=line))
    project = types.SimpleNamespace(name="shop", path=str(package))
    with shared_settings(RUN_TASKS_INLINE=True, DEBUG=False):
        messages = background.check_eager_task_queues(app_configs=[project])
    assert [m.id for m in messages] == (["horizontal.W049"] if warned else [])
    if warned:
        number = 6 + next(i for i, text in enumerate(line.splitlines()) if "is_async" in text)
        assert messages[0].obj == f"{os.path.relpath(package / 'queues.py')}:{number}"
        assert "is_async=False" in messages[0].msg


@pytest.mark.parametrize(
    "line",
    [
        "app.conf.task_always_eager = False",
        # A branch on the command line, the environment or DEBUG: tests and laptops.
        "if 'test' in sys.argv:\n    app.conf.task_always_eager = True",
        "if os.environ.get('CELERY_EAGER'):\n    app.conf.task_always_eager = True",
        "if settings.DEBUG:\n    app.conf.task_always_eager = True",
        "app.conf.task_always_eager = settings.DEBUG",
        # Not at import: a helper a test calls.
        "def make_eager():\n    app.conf.task_always_eager = True",
        # A value the source cannot tell: read from the environment.
        "app.conf.task_always_eager = os.environ.get('EAGER') == '1'",
        "app.conf.task_eager_propagates = True",
        "# app.conf.task_always_eager = True",
        "EAGER = False\napp.conf.update(task_always_eager=EAGER)",
        "CONFIG = {'task_always_eager': True}\nCONFIG = {'task_always_eager': False}\n"
        "app.conf.update(CONFIG)",
    ],
)
def test_celery_with_workers_in_the_projects_code_is_silent(tmp_path: Path, line: str) -> None:
    assert _eager_in_code(tmp_path, line, DEBUG=False) == []


@pytest.mark.parametrize(
    "line",
    [
        # A later write production takes replaces the eager one.
        "app.conf.task_always_eager = True\n"
        "if not settings.DEBUG:\n    app.conf.task_always_eager = False",
        "app.conf.update(task_always_eager=True)\n"
        "app.conf.update(task_always_eager=settings.RUN_TASKS_INLINE)",
        # A value from the environment, unknown here, replaces it too.
        "app.conf.task_always_eager = True\n"
        "app.conf.task_always_eager = os.environ.get('EAGER') == '1'",
        # A guard on a setting Django does not have is no branch production is known to take.
        "if not settings.USE_WORKERS:\n    app.conf.task_always_eager = True",
    ],
    ids=["guarded-reset", "update-reset", "environment-reset", "unknown-setting"],
)
def test_the_last_write_production_takes_decides(tmp_path: Path, line: str) -> None:
    assert _eager_in_code(tmp_path, line, DEBUG=False, RUN_TASKS_INLINE=False) == []


def test_settings_that_are_not_djangos_are_not_read_live(tmp_path: Path) -> None:
    # ``settings`` from the project's own config (pydantic): USE_WORKERS is not Django's.
    source = (
        "from shop.config import settings\n"
        "app = Celery('shop')\n"
        "if not settings.USE_WORKERS:\n    app.conf.task_always_eager = True\n"
    )
    package = tmp_path / "shop"
    package.mkdir()
    (package / "celery.py").write_text(source)
    project = types.SimpleNamespace(name="shop", path=str(package))
    with shared_settings(USE_WORKERS=False):
        assert background.check_eager_task_queues(app_configs=[project]) == []


def test_the_last_import_of_settings_decides_whose_they_are(tmp_path: Path) -> None:
    # The module's header imports Django's settings; the project's own shadow them.
    line = "from shop.config import settings\napp.conf.task_always_eager = settings.RUN_INLINE"
    assert _eager_in_code(tmp_path, line, RUN_INLINE=True) == []
    line = "from shop.config import settings\nfrom django.conf import settings\n" + (
        "app.conf.task_always_eager = settings.RUN_INLINE"
    )
    assert [m.id for m in _eager_in_code(tmp_path, line, RUN_INLINE=True)] == ["horizontal.W049"]


def test_a_script_run_by_hand_may_run_its_tasks_inline(tmp_path: Path) -> None:
    script = tmp_path / "shop" / "scripts" / "backfill.py"
    script.parent.mkdir(parents=True)
    script.write_text(
        "#!/usr/bin/env python\nfrom shop.celery import app\napp.conf.task_always_eager = True\n"
    )
    project = types.SimpleNamespace(name="shop", path=str(tmp_path / "shop"))
    with shared_settings():
        assert background.check_eager_task_queues(app_configs=[project]) == []


def test_a_silenced_w049_reads_no_code(tmp_path: Path) -> None:
    silenced = {"SILENCED_SYSTEM_CHECKS": ["horizontal.W049"]}
    assert _eager_in_code(tmp_path, "app.conf.task_always_eager = True", **silenced) == []


def _app_with_config(tmp_path: Path, app: str, config: str) -> list[checks.CheckMessage]:
    """``shop/celery.py`` as ``app``, beside ``shop/celeryconfig.py`` as ``config``."""
    package = tmp_path / "shop"
    package.mkdir(exist_ok=True)
    header = "from celery import Celery\nfrom django.conf import settings\napp = Celery('shop')\n"
    (package / "celery.py").write_text(header + app)
    (package / "celeryconfig.py").write_text(config)
    project = types.SimpleNamespace(name="shop", path=str(package))
    with shared_settings():
        return background.check_eager_task_queues(app_configs=[project])


@pytest.mark.parametrize(
    ("app", "config", "where"),
    [
        ("app.config_from_object('shop.celeryconfig')\n", "task_always_eager = True\n", 1),
        (
            "app.config_from_object('shop.celeryconfig', namespace='CELERY')\n",
            "broker_url = 'redis://r'\nCELERY_TASK_ALWAYS_EAGER = True\n",
            2,
        ),
        (
            "app.config_from_object('shop.celeryconfig:Production')\n",
            "class Production:\n    task_always_eager = True\n",
            2,
        ),
        # Celery applies a write on app.conf over the object, wherever it stands.
        (
            "app.conf.task_always_eager = False\napp.config_from_object('shop.celeryconfig')\n",
            "task_always_eager = True\n",
            None,
        ),
        (
            "app.config_from_object('shop.celeryconfig')\napp.conf.task_always_eager = False\n",
            "task_always_eager = True\n",
            None,
        ),
        ("app.config_from_object('shop.celeryconfig')\n", "task_always_eager = False\n", None),
        # Another package's configuration is not read.
        ("app.config_from_object('vendor.celeryconfig')\n", "task_always_eager = True\n", None),
        # A class inherits what its bases in the module set; its own setting wins.
        (
            "app.config_from_object('shop.celeryconfig:Production')\n",
            "class Base:\n    task_always_eager = True\n\nclass Production(Base):\n    pass\n",
            2,
        ),
        (
            "app.config_from_object('shop.celeryconfig:Production')\n",
            "class Base:\n    task_always_eager = True\n\n"
            "class Production(Base):\n    task_always_eager = False\n",
            None,
        ),
        # A later object replaces the one before, under a guard production takes too.
        (
            "app.config_from_object('shop.celeryconfig:Dev')\n"
            "if not settings.DEBUG:\n    app.config_from_object('shop.celeryconfig:Prod')\n",
            "class Dev:\n    task_always_eager = True\n\nclass Prod:\n    broker_url = 'r'\n",
            None,
        ),
        # Celery reads the namespace's spelling only: no namespace, no CELERY_ prefix.
        (
            "app.config_from_object('shop.celeryconfig')\n",
            "CELERY_TASK_ALWAYS_EAGER = True\n",
            None,
        ),
        # Loaded in a function a test calls: not at import.
        (
            "def inline_for_fixtures():\n    app.config_from_object('shop.celeryconfig')\n",
            "task_always_eager = True\n",
            None,
        ),
        # Celery's own example ends with a __main__ block: still imported by every worker.
        (
            "app.config_from_object('shop.celeryconfig')\n"
            "if __name__ == '__main__':\n    app.start()\n",
            "task_always_eager = True\n",
            1,
        ),
    ],
    ids=[
        "module",
        "namespace",
        "class",
        "write-before",
        "write-after",
        "false",
        "not-ours",
        "inherited",
        "inherited-overridden",
        "replaced",
        "unprefixed-only",
        "function-body",
        "main-block",
    ],
)
def test_a_configuration_object_of_the_project_is_read(
    tmp_path: Path, app: str, config: str, where: int | None
) -> None:
    messages = _app_with_config(tmp_path, app, config)
    if where is None:
        assert messages == []
    else:
        [message] = messages
        assert message.obj == f"{os.path.relpath(tmp_path / 'shop' / 'celeryconfig.py')}:{where}"


def test_a_class_of_the_app_module_is_a_configuration_object(tmp_path: Path) -> None:
    app = "class Config:\n    task_always_eager = True\n\napp.config_from_object(Config)\n"
    [message] = _app_with_config(tmp_path, app, "")
    assert str(message.obj).endswith("celery.py:5")


def test_a_configuration_object_of_a_nested_app_is_found_by_its_package(tmp_path: Path) -> None:
    package = tmp_path / "apps" / "shop"
    package.mkdir(parents=True)
    for folder in (tmp_path / "apps", package):
        (folder / "__init__.py").write_text("")
    (package / "celery.py").write_text("app.config_from_object('apps.shop.celeryconfig')\n")
    (package / "celeryconfig.py").write_text("task_always_eager = True\n")
    project = types.SimpleNamespace(name="apps.shop", path=str(package))
    with shared_settings():
        [message] = background.check_eager_task_queues(app_configs=[project])
    assert str(message.obj).endswith("celeryconfig.py:1")


def test_a_config_that_names_itself_is_read_without_end(tmp_path: Path) -> None:
    # ``CONFIG = {**CONFIG, …}`` refers to the name being bound: no endless lookup.
    line = (
        "CONFIG = {'task_always_eager': True}\n"
        "CONFIG = {**CONFIG, 'task_always_eager': False}\n"
        "CONFIG = dict(CONFIG, broker_url='r')\n"
        "app.conf.update(CONFIG)"
    )
    assert _eager_in_code(tmp_path, line) == []  # Celery gets False


def test_the_settings_namespace_an_app_reads_is_followed(tmp_path: Path) -> None:
    line = "app.config_from_object('django.conf:settings', namespace='TASKQUEUE')"
    [message] = _eager_in_code(tmp_path, line, TASKQUEUE_TASK_ALWAYS_EAGER=True)
    assert (message.id, message.obj) == ("horizontal.W049", "TASKQUEUE_TASK_ALWAYS_EAGER")
    assert _eager_in_code(tmp_path, line, TASKQUEUE_TASK_ALWAYS_EAGER=False) == []


def test_an_option_copied_from_an_eager_setting_is_reported_once(tmp_path: Path) -> None:
    line = "app.conf.task_always_eager = settings.CELERY_TASK_ALWAYS_EAGER"
    messages = _eager_in_code(tmp_path, line, CELERY_TASK_ALWAYS_EAGER=True)
    assert [m.obj for m in messages] == ["CELERY_TASK_ALWAYS_EAGER"]


@pytest.mark.parametrize(
    "message",
    [
        background.W048("CELERY_BROKER_URL", "redis://localhost:6379/0"),
        background.W049("RQ_QUEUES['default']['ASYNC']"),
        background.I041("default", implicit=True),
    ],
    ids=lambda m: m.id,
)
def test_new_messages_follow_the_contract(message: checks.CheckMessage) -> None:
    assert_follows_the_contract(message)


# -- where Huey, django-q, sentinels and Celery's file stores put the queue --------------


@pytest.mark.parametrize(
    ("setting", "value"),
    [
        # djhuey merges top-level keys into the connection; none at all is redis-py's
        # localhost; a SQLite queue is a file on this host.
        ("HUEY", {"name": "shop", "immediate": False, "url": "redis://127.0.0.1:6379/3"}),
        ("HUEY", {"name": "shop", "immediate": False, "consumer": {"workers": 4}}),
        # Connection options that name no server: redis-py's localhost still.
        ("HUEY", {"name": "shop", "immediate": False, "blocking": True}),
        ("HUEY", {"name": "shop", "immediate": False, "connection": {"port": 6379, "db": 0}}),
        ("HUEY", {"huey_class": "huey.SqliteHuey", "filename": "huey.db", "immediate": False}),
        ("Q_CLUSTER", {"name": "shop", "redis": {"host": "127.0.0.1", "port": 6379}}),
        ("Q_CLUSTER", {"name": "shop", "redis": "redis://localhost:6379/0"}),
        # django-q's MongoDB broker, pymongo's localhost when no host is named.
        ("Q_CLUSTER", {"name": "shop", "mongo": {"host": "localhost", "port": 27017}}),
        ("Q_CLUSTER", {"name": "shop", "mongo": {"port": 27017}}),
        ("Q_CLUSTER", {"name": "shop", "workers": 4}),
        ("RQ_QUEUES", {"default": {"SENTINELS": [("localhost", 26379)], "MASTER_NAME": "m"}}),
        ("CELERY_RESULT_BACKEND", "db+sqlite:///celery-results.sqlite3"),
        # SQLAlchemy's result store with no host: the server's unix socket on this host.
        ("CELERY_RESULT_BACKEND", "db+postgresql:///celery"),
        ("CELERY_RESULT_BACKEND", "db+mysql+pymysql:///celery"),
        # In this process: kombu's memory transport, Celery's memory cache, MemoryHuey.
        ("CELERY_BROKER_URL", "memory://"),
        ("CELERY_RESULT_BACKEND", "cache+memory://"),
        ("HUEY", {"huey_class": "huey.MemoryHuey", "name": "shop", "immediate": False}),
        (
            "CHANNEL_LAYERS",
            {
                "default": {
                    "BACKEND": "channels_redis.core.RedisChannelLayer",
                    "CONFIG": {"hosts": [{"sentinels": [("localhost", 26379)]}]},
                }
            },
        ),
    ],
)
def test_a_queue_on_this_host_is_w048(setting: str, value: object) -> None:
    assert deploy_ids(**{setting: value}) == ["horizontal.W048"]


@pytest.mark.parametrize(
    ("setting", "value"),
    [
        ("HUEY", {"name": "shop", "immediate": False, "url": "redis://redis.internal:6379/3"}),
        ("Q_CLUSTER", {"name": "shop", "orm": "default"}),
        ("Q_CLUSTER", {"name": "shop", "mongo": {"host": "mongodb://mongo.internal:27017"}}),
        ("RQ_QUEUES", {"default": {"SENTINELS": [("sentinel.internal", 26379)]}}),
        ("CELERY_RESULT_BACKEND", "db+postgresql://db.internal/results"),
    ],
)
def test_a_queue_every_instance_shares_is_silent(setting: str, value: object) -> None:
    assert deploy_ids(**{setting: value}) == []


def test_a_redis_huey_instance_on_this_host_is_w048() -> None:
    pool = types.SimpleNamespace(connection_kwargs={"host": "localhost", "port": 6379})
    huey = types.SimpleNamespace(immediate=False, storage=types.SimpleNamespace(pool=pool))
    assert deploy_ids(HUEY=huey) == ["horizontal.W048"]
    pool.connection_kwargs = {"host": "redis.internal", "port": 6379}
    assert deploy_ids(HUEY=huey) == []


def test_a_huey_dict_without_immediate_follows_debug() -> None:
    # djhuey: "immediate" unset is settings.DEBUG.
    huey = {"name": "shop", "connection": {"host": "redis.internal"}}
    assert deploy_ids(HUEY=huey, DEBUG=True) == ["horizontal.W049"]
    assert deploy_ids(HUEY=huey, DEBUG=False) == []


# django-celery-results' "django-cache": results in CACHES[CELERY_CACHE_BACKEND] (default).
CACHES_WITH_A_LOCAL_ALIAS = {"default": REDIS, "local": LOCMEM}


def test_celery_results_in_a_per_process_cache_are_w048() -> None:
    messages = deploy_messages(
        CACHES=CACHES_WITH_A_LOCAL_ALIAS,
        HORIZONTAL_LOCAL_CACHES=["local"],
        CELERY_RESULT_BACKEND="django-cache",
        CELERY_CACHE_BACKEND="local",
    )
    warnings = [m for m in messages if m.level >= checks.WARNING]
    assert [m.id for m in warnings] == ["horizontal.W048"]
    assert "CACHES['local'], a LocMemCache" in (warnings[0].hint or "")


@pytest.mark.parametrize("alias", [None, "default", "no-such-alias"])
def test_celery_results_in_the_shared_cache_are_silent(alias: str | None) -> None:
    chosen = {} if alias is None else {"CELERY_CACHE_BACKEND": alias}
    assert (
        deploy_ids(
            CACHES=CACHES_WITH_A_LOCAL_ALIAS,
            HORIZONTAL_LOCAL_CACHES=["local"],
            CELERY_RESULT_BACKEND="django-cache",
            **chosen,
        )
        == []
    )


NAMESPACED_APP = """\
from celery import Celery

app = Celery("shop")
app.config_from_object("django.conf:settings", namespace="TASKQ")
"""


def _namespaced_project(tmp_path: Path) -> types.SimpleNamespace:
    package = tmp_path / "shop"
    package.mkdir(exist_ok=True)
    (package / "celery.py").write_text(NAMESPACED_APP)
    return types.SimpleNamespace(name="shop", path=str(package))


def test_celery_settings_an_app_of_another_namespace_ignores_are_silent(
    tmp_path: Path,
) -> None:
    # Leftover CELERY_ settings: the app reads TASKQ_ ones only.
    project = _namespaced_project(tmp_path)
    leftovers = {
        "CELERY_TASK_ALWAYS_EAGER": True,
        "CELERY_BROKER_URL": "redis://localhost:6379/0",
        "TASKQ_BROKER_URL": "redis://queue.internal:6379/0",
    }
    with shared_settings(**leftovers):
        assert background.check_eager_task_queues(app_configs=[project]) == []
        assert background.check_background_services_on_this_host(app_configs=[project]) == []


def test_the_broker_of_the_namespace_an_app_reads_is_judged(tmp_path: Path) -> None:
    project = _namespaced_project(tmp_path)
    with shared_settings(TASKQ_BROKER_URL="redis://localhost:6379/0"):
        [message] = background.check_background_services_on_this_host(app_configs=[project])
    assert (message.id, message.obj) == ("horizontal.W048", "TASKQ_BROKER_URL")


APP_IN_CODE = """\
from celery import Celery

app = Celery("shop", broker="{broker}", task_always_eager={eager})
app.conf.result_backend = "{backend}"
"""


@pytest.mark.parametrize(
    ("broker", "backend", "eager", "expected"),
    [
        (
            "redis://localhost:6379/0",
            "redis://127.0.0.1:6379/1",
            "True",
            ["horizontal.W048", "horizontal.W048", "horizontal.W049"],
        ),
        ("redis://queue.internal:6379/0", "redis://queue.internal:6379/1", "False", []),
    ],
)
def test_a_celery_app_configured_in_its_constructor_and_conf_is_judged(
    tmp_path: Path, broker: str, backend: str, eager: str, expected: list[str]
) -> None:
    package = tmp_path / "shop"
    package.mkdir()
    source = APP_IN_CODE.format(broker=broker, backend=backend, eager=eager)
    (package / "celery.py").write_text(source)
    project = types.SimpleNamespace(name="shop", path=str(package))
    with shared_settings():
        messages = background.check_background_services_on_this_host(app_configs=[project])
        messages += background.check_eager_task_queues(app_configs=[project])
    assert sorted(m.id for m in messages) == expected
    if expected:
        assert [str(m.obj).rsplit("/", 1)[-1] for m in messages] == [
            "celery.py:3",
            "celery.py:4",
            "celery.py:3",
        ]


@pytest.mark.parametrize(
    ("broker", "warned"),
    [
        ('os.environ.get("CELERY_BROKER", "redis://localhost:6379/0")', True),
        ('os.getenv("CELERY_BROKER", "amqp://guest@127.0.0.1//")', True),
        # Its twins: a shared default, and no default at all (the environment decides).
        ('os.environ.get("CELERY_BROKER", "redis://queue.internal:6379/0")', False),
        ('os.environ["CELERY_BROKER"]', False),
    ],
)
def test_a_broker_in_code_falling_back_to_this_host_is_w048(
    tmp_path: Path, broker: str, warned: bool
) -> None:
    package = tmp_path / "shop"
    package.mkdir()
    source = f'import os\n\nfrom celery import Celery\n\napp = Celery("shop", broker={broker})\n'
    (package / "celery.py").write_text(source)
    project = types.SimpleNamespace(name="shop", path=str(package))
    with shared_settings():
        messages = background.check_background_services_on_this_host(app_configs=[project])
    assert [m.id for m in messages] == (["horizontal.W048"] if warned else [])


def test_every_namespace_an_app_reads_is_judged(tmp_path: Path) -> None:
    # One app reads TASKQ_ settings, another the usual ones: both sets are read.
    project = _namespaced_project(tmp_path)
    usual = 'other = Celery("other")\nother.config_from_object("django.conf:settings")\n'
    with (tmp_path / "shop" / "celery.py").open("a") as module:
        module.write(usual)
    with shared_settings(TASKQ_BROKER_URL="redis://localhost:6379/0"):
        [message] = background.check_background_services_on_this_host(app_configs=[project])
    assert message.obj == "TASKQ_BROKER_URL"


def test_a_broker_written_for_development_only_is_silent(tmp_path: Path) -> None:
    package = tmp_path / "shop"
    package.mkdir()
    (package / "celery.py").write_text(
        "from celery import Celery\nfrom django.conf import settings\n\n"
        'app = Celery("shop")\nif settings.DEBUG:\n'
        '    app.conf.broker_url = "redis://localhost:6379/0"\n'
    )
    project = types.SimpleNamespace(name="shop", path=str(package))
    with shared_settings(DEBUG=False):
        assert background.check_background_services_on_this_host(app_configs=[project]) == []
    with shared_settings(DEBUG=True):
        [message] = background.check_background_services_on_this_host(app_configs=[project])
    assert str(message.obj).endswith("celery.py:6")


@pytest.mark.parametrize(
    ("app", "config", "where"),
    [
        ("app.config_from_object('shop.celeryconfig')\n", "broker_url = 'redis://localhost'\n", 1),
        # The pre-4.0 names, read from an object without a namespace.
        (
            "app.config_from_object('shop.celeryconfig')\n",
            "BROKER_URL = 'amqp://guest@127.0.0.1//'\n"
            "CELERY_RESULT_BACKEND = 'redis://queue.internal/1'\n",
            1,
        ),
        (
            "app.config_from_object('shop.celeryconfig', namespace='CELERY')\n",
            "import os\nCELERY_RESULT_BACKEND = os.environ.get('RESULTS', 'redis://::1/2')\n",
            2,
        ),
        (
            "app.config_from_object('shop.celeryconfig:Production')\n",
            "class Base:\n    broker_url = 'redis://localhost'\n\n"
            "class Production(Base):\n    pass\n",
            2,
        ),
        # Its twins: a shared server; a namespace the name does not carry; an object
        # replaced by a later load production takes; another package's object.
        (
            "app.config_from_object('shop.celeryconfig')\n",
            "broker_url = 'redis://q.internal'\n",
            None,
        ),
        (
            "app.config_from_object('shop.celeryconfig', namespace='CELERY')\n",
            "broker_url = 'redis://localhost'\n",
            None,
        ),
        (
            "app.config_from_object('shop.celeryconfig:Dev')\n"
            "if not settings.DEBUG:\n    app.config_from_object('shop.celeryconfig:Prod')\n",
            "class Dev:\n    broker_url = 'redis://localhost'\n\n"
            "class Prod:\n    broker_url = 'redis://q.internal'\n",
            None,
        ),
        (
            "app.config_from_object('vendor.celeryconfig')\n",
            "broker_url = 'redis://localhost'\n",
            None,
        ),
    ],
    ids=[
        "module",
        "old-names",
        "namespace-env-default",
        "inherited",
        "shared",
        "unprefixed-under-namespace",
        "replaced",
        "not-ours",
    ],
)
def test_a_broker_in_a_configuration_object_on_this_host_is_w048(
    tmp_path: Path, app: str, config: str, where: int | None
) -> None:
    _app_with_config(tmp_path, app, config)
    project = types.SimpleNamespace(name="shop", path=str(tmp_path / "shop"))
    with shared_settings(DEBUG=False):
        messages = background.check_background_services_on_this_host(app_configs=[project])
    assert [str(m.obj).rsplit("/", 1)[-1] for m in messages] == (
        [] if where is None else [f"celeryconfig.py:{where}"]
    )


CELERY_APP_LINE = (
    "import os\n\nfrom celery import Celery\nfrom django.conf import settings\n\n"
    "app = Celery('shop')\n{line}\n"
)


@pytest.mark.parametrize(
    ("line", "environment", "live", "warned"),
    [
        # A variable that is only the password: the host written beside it still counts.
        (
            "app.conf.broker_url = f\"redis://:{os.environ['SHOP_PASSWORD']}@localhost:6379/0\"",
            {"SHOP_PASSWORD": "s3cret"},
            {},
            True,
        ),
        # The environment's value wins over the fallback written in code.
        ("app.conf.broker_url = os.environ.get('SHOP_BROKER', 'redis://localhost')", {}, {}, True),
        (
            "app.conf.broker_url = os.environ.get('SHOP_BROKER', 'redis://localhost')",
            {"SHOP_BROKER": "redis://queue.internal:6379/1"},
            {},
            False,
        ),
        (
            "app.conf.broker_url = os.environ.get('SHOP_BROKER', 'redis://queue.internal')",
            {"SHOP_BROKER": "redis://127.0.0.1:6379/1"},
            {},
            True,
        ),
        # An f-string around a lookup: judged by its fallback, or by the variable set.
        (
            "app.conf.broker_url = f\"redis://{os.environ.get('SHOP_REDIS', 'localhost')}:6379/0\"",
            {},
            {},
            True,
        ),
        (
            "app.conf.broker_url = f\"redis://{os.environ.get('SHOP_REDIS', 'localhost')}:6379/0\"",
            {"SHOP_REDIS": "redis.internal"},
            {},
            False,
        ),
        # A Django setting, read live.
        (
            "app.conf.broker_url = settings.SHOP_REDIS_URL",
            {},
            {"SHOP_REDIS_URL": "redis://localhost"},
            True,
        ),
        (
            "app.conf.broker_url = settings.SHOP_REDIS_URL",
            {},
            {"SHOP_REDIS_URL": "redis://r.internal"},
            False,
        ),
        # A settings mapping given to the app.
        (
            "app.conf.update(settings.SHOP_CELERY)",
            {},
            {"SHOP_CELERY": {"broker_url": "redis://localhost:6379/0"}},
            True,
        ),
        (
            "app.conf.update(**settings.SHOP_CELERY)",
            {},
            {"SHOP_CELERY": {"broker_url": "redis://queue.internal:6379/0"}},
            False,
        ),
    ],
    ids=[
        "password-set",
        "fallback",
        "fallback-overridden",
        "variable-local",
        "fstring",
        "fstring-set",
        "setting-local",
        "setting-shared",
        "mapping-local",
        "mapping-shared",
    ],
)
def test_a_broker_written_in_code_is_judged_by_what_runs(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    line: str,
    environment: dict[str, str],
    live: dict[str, object],
    warned: bool,
) -> None:
    package = tmp_path / "shop"
    package.mkdir()
    (package / "celery.py").write_text(CELERY_APP_LINE.format(line=line))
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    project = types.SimpleNamespace(name="shop", path=str(package))
    with shared_settings(**live):
        messages = background.check_background_services_on_this_host(app_configs=[project])
    assert [m.id for m in messages] == (["horizontal.W048"] if warned else [])


def test_a_config_object_fallback_the_environment_overrides_is_silent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The outside trial's one false warning: the object's fallback named, not the live URL.
    app = "app.config_from_object('shop.celeryconfig')\n"
    config = "import os\nbroker_url = os.environ.get('BROKER_URL', 'redis://localhost:6379/0')\n"
    _app_with_config(tmp_path, app, config)
    project = types.SimpleNamespace(name="shop", path=str(tmp_path / "shop"))
    monkeypatch.setenv("BROKER_URL", "redis://redis.internal:6379/1")
    with shared_settings():
        assert background.check_background_services_on_this_host(app_configs=[project]) == []
    monkeypatch.delenv("BROKER_URL")
    with shared_settings():
        [message] = background.check_background_services_on_this_host(app_configs=[project])
    assert "localhost:6379/0" in message.hint


@pytest.mark.parametrize(
    ("line", "environment", "warned"),
    [
        # Celery tests the text's truth: any non-empty fallback or value is eager.
        ("app.conf.update(task_always_eager=os.environ.get('SHOP_EAGER', 'yes'))", {}, True),
        ("app.conf.task_always_eager = os.getenv('SHOP_EAGER', 'no')", {}, True),
        (
            "app.conf.task_always_eager = os.environ.get('SHOP_EAGER', '')",
            {"SHOP_EAGER": "1"},
            True,
        ),
        # Its twins: an empty fallback, a variable unset with no fallback, set empty.
        ("app.conf.task_always_eager = os.environ.get('SHOP_EAGER', '')", {}, False),
        ("app.conf.task_always_eager = os.environ.get('SHOP_EAGER')", {}, False),
        (
            "app.conf.task_always_eager = os.environ.get('SHOP_EAGER', 'yes')",
            {"SHOP_EAGER": ""},
            False,
        ),
    ],
)
def test_celery_made_eager_from_the_environment_in_code_is_judged_as_it_runs(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    line: str,
    environment: dict[str, str],
    warned: bool,
) -> None:
    monkeypatch.delenv("SHOP_EAGER", raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    messages = _eager_in_code(tmp_path, line, DEBUG=False)
    assert [m.id for m in messages] == (["horizontal.W049"] if warned else [])


@pytest.mark.parametrize(
    ("module", "line", "live", "warned"),
    [
        # An RQ queue told by a setting, read live: inline when it is false.
        (
            RQ_MODULE,
            "low = django_rq.get_queue('low', is_async=settings.SHOP_RQ_ASYNC)",
            False,
            True,
        ),
        (
            RQ_MODULE,
            "low = django_rq.get_queue('low', is_async=settings.SHOP_RQ_ASYNC)",
            True,
            False,
        ),
        # Huey built in the project's code, without djhuey.
        (
            "from huey import RedisHuey\nfrom django.conf import settings\n\n\n\n{line}\n",
            "huey = RedisHuey('shop', host='redis.internal', immediate=True)",
            True,
            True,
        ),
        (
            "from huey import RedisHuey\nfrom django.conf import settings\n\n\n\n{line}\n",
            "huey = RedisHuey('shop', host='redis.internal', immediate=settings.SHOP_RQ_ASYNC)",
            False,
            False,
        ),
        (
            "from huey import RedisHuey\nfrom django.conf import settings\n\n\n\n{line}\n",
            "huey = RedisHuey('shop', host='redis.internal', immediate=False)",
            True,
            False,
        ),
    ],
    ids=["rq-setting-false", "rq-setting-true", "huey-immediate", "huey-setting", "huey-workers"],
)
def test_a_queue_built_in_code_told_by_a_setting_is_judged_live(
    tmp_path: Path, module: str, line: str, live: bool, warned: bool
) -> None:
    package = tmp_path / "shop"
    package.mkdir()
    (package / "queues.py").write_text(module.format(line=line))
    project = types.SimpleNamespace(name="shop", path=str(package))
    with shared_settings(SHOP_RQ_ASYNC=live, DEBUG=False):
        messages = background.check_eager_task_queues(app_configs=[project])
    assert [m.id for m in messages] == (["horizontal.W049"] if warned else [])
    if warned:
        assert messages[0].obj == f"{os.path.relpath(package / 'queues.py')}:6"


@pytest.mark.parametrize(
    ("base_import", "eager", "warned"),
    [
        ("from shop.celery_base import Base", "True", True),
        ("from .celery_base import Base", "True", True),
        # Its twin: the imported base keeps workers.
        ("from shop.celery_base import Base", "False", False),
    ],
    ids=["absolute", "relative", "workers"],
)
def test_a_configuration_class_inherits_from_a_base_in_another_module(
    tmp_path: Path, base_import: str, eager: str, warned: bool
) -> None:
    # ``class Production(Base)`` with ``Base`` in ``shop/celery_base.py``: what the base
    # sets is the class's, as attribute lookup finds it (from the check --deploy trial).
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "__init__.py").write_text("")
    (tmp_path / "shop" / "celery_base.py").write_text(
        f"class Base:\n    task_always_eager = {eager}\n"
    )
    app = "app.config_from_object('shop.celeryconfig:Production')\n"
    config = f"{base_import}\n\n\nclass Production(Base):\n    broker_url = 'redis://q.internal'\n"
    messages = _app_with_config(tmp_path, app, config)
    assert [m.id for m in messages] == (["horizontal.W049"] if warned else [])


def test_a_broker_setting_read_in_code_is_one_warning(tmp_path: Path) -> None:
    # ``app.conf.broker_url = settings.CELERY_BROKER_URL``: the setting's own W048 says it.
    package = tmp_path / "shop"
    package.mkdir()
    line = "app.conf.broker_url = settings.CELERY_BROKER_URL"
    (package / "celery.py").write_text(CELERY_APP_LINE.format(line=line))
    project = types.SimpleNamespace(name="shop", path=str(package))
    with shared_settings(CELERY_BROKER_URL="redis://localhost:6379/0"):
        messages = background.check_background_services_on_this_host(app_configs=[project])
    assert [m.obj for m in messages] == ["CELERY_BROKER_URL"]


@pytest.mark.parametrize(
    ("config", "base", "expected"),
    [
        # A subclass's own value replaces its base's, as attribute lookup finds it.
        (
            "import os\nfrom shop.celery_base import Base\n\n\nclass Production(Base):\n"
            "    broker_url = os.environ['BROKER_URL']\n",
            "class Base:\n    broker_url = 'redis://localhost:6379/0'\n",
            [],
        ),
        # The base's value, reported in the base's own file.
        (
            "from shop.celery_base import Base\n\n\nclass Production(Base):\n    pass\n",
            "class Base:\n    broker_url = 'redis://localhost:6379/0'\n",
            ["celery_base.py:2"],
        ),
    ],
    ids=["overridden", "inherited-place"],
)
def test_a_config_class_is_judged_by_the_value_attribute_lookup_finds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, config: str, base: str, expected: list[str]
) -> None:
    monkeypatch.setenv("BROKER_URL", "redis://redis.internal:6379/0")
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "__init__.py").write_text("")
    (tmp_path / "shop" / "celery_base.py").write_text(base)
    _app_with_config(tmp_path, "app.config_from_object('shop.celeryconfig:Production')\n", config)
    project = types.SimpleNamespace(name="shop", path=str(tmp_path / "shop"))
    with shared_settings():
        messages = background.check_background_services_on_this_host(app_configs=[project])
    assert [str(m.obj).rsplit("/", 1)[-1] for m in messages] == expected


def test_a_config_module_option_rebound_under_a_branch_is_not_judged(tmp_path: Path) -> None:
    # ``broker_url = "redis://localhost…"`` then ``if os.environ.get("BROKER_URL"):
    # broker_url = …``: what loads depends on the environment, not the first line.
    config = (
        "import os\nbroker_url = 'redis://localhost:6379/0'\n"
        "if os.environ.get('BROKER_URL'):\n    broker_url = os.environ['BROKER_URL']\n"
    )
    _app_with_config(tmp_path, "app.config_from_object('shop.celeryconfig')\n", config)
    project = types.SimpleNamespace(name="shop", path=str(tmp_path / "shop"))
    with shared_settings():
        assert background.check_background_services_on_this_host(app_configs=[project]) == []
