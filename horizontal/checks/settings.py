"""Deploy warnings for settings that work on one box and break on two.

``horizontal.W001``-``W019``: caches and session engines.
``horizontal.W030``-``W059``: databases and the connection budget, background work
(channel layers, ``TASKS``, in-process schedulers), ``SECRET_KEY``, logging and email.

Every check here is deploy-only (``check --deploy``), reads settings (and, for
``SECRET_KEY``, the settings modules' source) and never the network. The one exception
is the connection budget against the server's limit, which is tagged ``database`` and
asks only the aliases Django passes in ``databases``.

Backends are matched by class, so subclasses count: a dotted path equal to a known one
is classified without importing it; any other path is imported and tested with
``issubclass``. A path that cannot be imported is left alone: Django fails loudly the
first time it uses such a backend, and guessing from a name would warn about classes we
cannot see.
"""

from __future__ import annotations

import ast
import os
import sys
import threading
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

from django.apps import apps
from django.conf import settings
from django.core import checks
from django.core.checks import Tags
from django.core.exceptions import ImproperlyConfigured
from django.db import DatabaseError, connections
from django.utils.module_loading import import_string

from horizontal.conf import conf

TAG = "horizontal"

# -- known classes -------------------------------------------------------------------------

LOCMEM_CACHE = ("django.core.cache.backends.locmem.LocMemCache",)
FILE_CACHE = ("django.core.cache.backends.filebased.FileBasedCache",)
DUMMY_CACHE = ("django.core.cache.backends.dummy.DummyCache",)
NOT_SHARED_CACHES = LOCMEM_CACHE + FILE_CACHE + DUMMY_CACHE
# Shared by design: classified without importing them or the single-instance classes.
SHARED_CACHES = frozenset(
    {
        "django.core.cache.backends.redis.RedisCache",
        "django.core.cache.backends.memcached.PyMemcacheCache",
        "django.core.cache.backends.memcached.PyLibMCCache",
        "django.core.cache.backends.db.DatabaseCache",
        "django_redis.cache.RedisCache",
    }
)

FILE_SESSIONS = ("django.contrib.sessions.backends.file.SessionStore",)
CACHE_SESSIONS = (
    "django.contrib.sessions.backends.cache.SessionStore",
    "django.contrib.sessions.backends.cached_db.SessionStore",
)

# Engines whose sessions every instance reads, classified without imports.
SHARED_SESSIONS = frozenset(
    {
        "django.contrib.sessions.backends.db.SessionStore",
        "django.contrib.sessions.backends.signed_cookies.SessionStore",
        "horizontal.sessions.SessionStore",
    }
)

IN_MEMORY_CHANNEL_LAYERS = ("channels.layers.InMemoryChannelLayer",)
# django.tasks (Django 6.0+) and its backport, django-tasks, ship the same two backends.
IMMEDIATE_TASKS = (
    "django.tasks.backends.immediate.ImmediateBackend",
    "django_tasks.backends.immediate.ImmediateBackend",
)
DUMMY_TASKS = (
    "django.tasks.backends.dummy.DummyBackend",
    "django_tasks.backends.dummy.DummyBackend",
)

DJANGO_CRON_DEFAULT_LOCK = "django_cron.backends.lock.cache.CacheLock"
DJANGO_CRON_FILE_LOCK = ("django_cron.backends.lock.file.FileLock",)
DJANGO_CRON_CACHE_LOCK = (DJANGO_CRON_DEFAULT_LOCK,)

# logging.handlers' Rotating/TimedRotating/WatchedFileHandler all subclass FileHandler;
# they are listed so the common spellings need no import.
FILE_LOG_HANDLERS = (
    "logging.FileHandler",
    "logging.handlers.RotatingFileHandler",
    "logging.handlers.TimedRotatingFileHandler",
    "logging.handlers.WatchedFileHandler",
)
FILE_EMAIL = ("django.core.mail.backends.filebased.EmailBackend",)

# Calls that produce a fresh random value each time the settings module is imported.
RANDOM_VALUE_CALLS = frozenset(
    {
        "get_random_secret_key",
        "get_random_string",
        "token_bytes",
        "token_hex",
        "token_urlsafe",
        "urandom",
        "randbytes",
        "getrandbits",
        "uuid1",
        "uuid4",
        "generate_key",
    }
)

KNOWN_ENGINES = {
    "django.db.backends.sqlite3": "sqlite",
    "django.db.backends.postgresql": "postgresql",
    "django.db.backends.mysql": "mysql",
    "django.contrib.gis.db.backends.spatialite": "sqlite",
    "django.contrib.gis.db.backends.postgis": "postgresql",
    "django.contrib.gis.db.backends.mysql": "mysql",
}

# psycopg_pool.ConnectionPool's min_size when Django's OPTIONS["pool"] is True; max_size
# defaults to min_size.
PSYCOPG_POOL_DEFAULT_SIZE = 4


# -- messages ------------------------------------------------------------------------------


def W001(alias: str, implicit: bool) -> checks.Warning:
    return checks.Warning(
        f"Cache {alias!r} is LocMemCache: N instances keep N different caches.",
        hint=(
            "CACHES is not set, so Django uses LocMemCache: set CACHES['default'] to Redis."
            if implicit
            else "Use Redis or Memcached, or add the alias to HORIZONTAL_LOCAL_CACHES."
        ),
        obj=f"CACHES[{alias!r}]",
        id="horizontal.W001",
    )


def W002(alias: str) -> checks.Warning:
    return checks.Warning(
        f"Cache {alias!r} is FileBasedCache: each host keeps its own cache.",
        hint="Use Redis or Memcached, or add the alias to HORIZONTAL_LOCAL_CACHES.",
        obj=f"CACHES[{alias!r}]",
        id="horizontal.W002",
    )


def W003(alias: str) -> checks.Warning:
    return checks.Warning(
        f"Cache {alias!r} is DummyCache: every instance wins every cache.add() lock.",
        hint="Use Redis or Memcached, or add the alias to HORIZONTAL_LOCAL_CACHES.",
        obj=f"CACHES[{alias!r}]",
        id="horizontal.W003",
    )


W010 = checks.Warning(
    "Sessions are files on one host: other instances log the user out.",
    hint="Use SESSION_ENGINE 'horizontal.sessions' (Redis) or Django's database engine.",
    obj="SESSION_ENGINE",
    id="horizontal.W010",
)


def W011(alias: str) -> checks.Warning:
    return checks.Warning(
        f"Sessions use cache {alias!r}, which is not shared between instances.",
        hint=(
            "Other instances see no session or a stale one: use SESSION_ENGINE "
            "'horizontal.sessions' or point SESSION_CACHE_ALIAS at Redis."
        ),
        obj="SESSION_CACHE_ALIAS",
        id="horizontal.W011",
    )


def W030(alias: str) -> checks.Warning:
    return checks.Warning(
        f"Database {alias!r} is SQLite: each instance writes its own file.",
        hint="Use PostgreSQL or MySQL/MariaDB; a shared volume does not make SQLite safe.",
        obj=f"DATABASES[{alias!r}]",
        id="horizontal.W030",
    )


def W031(alias: str) -> checks.Warning:
    return checks.Warning(
        f"Database {alias!r} reuses connections unchecked: failovers become errors.",
        hint="Set CONN_HEALTH_CHECKS = True, or CONN_MAX_AGE = 0, or use a connection pool.",
        obj=f"DATABASES[{alias!r}]",
        id="horizontal.W031",
    )


def W032(alias: str) -> checks.Warning:
    return checks.Warning(
        f"Database {alias!r} has no connect timeout: an outage hangs every worker.",
        hint="Set OPTIONS['connect_timeout'] to a few seconds so requests fail fast.",
        obj=f"DATABASES[{alias!r}]",
        id="horizontal.W032",
    )


def I033(alias: str, demand: Demand) -> checks.Info:
    return checks.Info(
        f"Database {alias!r} may take {demand} connections.",
        hint=(
            "Keep it below the server's max_connections, with room for a rolling deploy; "
            "'check --deploy --database ALIAS' compares it."
            if demand.total is not None
            else f"Set {' and '.join(demand.missing)} to have it compared with max_connections."
        ),
        obj=f"DATABASES[{alias!r}]",
        id="horizontal.I033",
    )


def W034(alias: str, demand: Demand, limit: int) -> checks.Warning:
    return checks.Warning(
        f"Database {alias!r} may take {demand.total} connections; the server allows {limit}.",
        hint="Lower the pool size or processes, raise max_connections, or add PgBouncer.",
        obj=f"DATABASES[{alias!r}]",
        id="horizontal.W034",
    )


def I035(alias: str, demand: Demand, limit: int) -> checks.Info:
    return checks.Info(
        f"Database {alias!r} allows {limit} connections: {demand.capacity(limit)}.",
        hint="Set HORIZONTAL_EXPECTED_INSTANCES to have the whole fleet compared.",
        obj=f"DATABASES[{alias!r}]",
        id="horizontal.I035",
    )


def W040(alias: str) -> checks.Warning:
    return checks.Warning(
        f"Channel layer {alias!r} is in memory: groups never reach other instances.",
        hint="Use channels_redis.core.RedisChannelLayer.",
        obj=f"CHANNEL_LAYERS[{alias!r}]",
        id="horizontal.W040",
    )


def W041(alias: str, implicit: bool) -> checks.Warning:
    return checks.Warning(
        f"Task backend {alias!r} runs tasks inline; they die with their instance.",
        hint=(
            "TASKS is not set, so Django runs tasks inline: configure a worker-backed "
            "backend, or TASKS = {} if you enqueue none."
            if implicit
            else "Use a worker-backed backend (e.g. django-tasks-db), or TASKS = {}."
        ),
        obj=f"TASKS[{alias!r}]",
        id="horizontal.W041",
    )


def W042(alias: str) -> checks.Warning:
    return checks.Warning(
        f"Task backend {alias!r} is DummyBackend: enqueued tasks never run.",
        hint="Use a worker-backed backend (e.g. django-tasks-db); DummyBackend is for tests.",
        obj=f"TASKS[{alias!r}]",
        id="horizontal.W042",
    )


W043 = checks.Warning(
    "django_apscheduler: a scheduler in each instance runs every job N times.",
    hint="Run the scheduler in exactly one process, or call 'manage.py runjob' from cron.",
    obj="INSTALLED_APPS",
    id="horizontal.W043",
)

W044 = checks.Warning(
    "django_crontab installs the crontab on every host: jobs run N times.",
    hint="Run 'crontab add' on one host only, or have cron call 'manage.py runjob'.",
    obj="INSTALLED_APPS",
    id="horizontal.W044",
)

W045 = checks.Warning(
    "django_cron's FileLock is per host: every instance runs each cron job.",
    hint="Have cron call 'manage.py runjob' (one run per slot) instead of runcrons.",
    obj="DJANGO_CRON_LOCK_BACKEND",
    id="horizontal.W045",
)


def W046(reason: str) -> checks.Warning:
    return checks.Warning(
        f"django_cron's CacheLock {reason}: instances run the same job.",
        hint="Have cron call 'manage.py runjob' (one run per slot) instead of runcrons.",
        obj="DJANGO_CRON_LOCK_BACKEND",
        id="horizontal.W046",
    )


W047 = checks.Warning(
    "A celery beat runs inside this process: every web worker schedules tasks.",
    hint="Run exactly one 'celery beat' process, never inside web workers.",
    id="horizontal.W047",
)


def W050(where: str) -> checks.Warning:
    return checks.Warning(
        "SECRET_KEY is random per start: each instance signs with its own key.",
        hint="Read SECRET_KEY from the environment or a secret store, the same everywhere.",
        obj=where,
        id="horizontal.W050",
    )


def W051(handler: str) -> checks.Warning:
    return checks.Warning(
        f"Log handler {handler!r} writes a local file: logs split across hosts.",
        hint="Log to stdout/stderr (logging.StreamHandler) and collect every instance's.",
        obj=f"LOGGING['handlers'][{handler!r}]",
        id="horizontal.W051",
    )


def W052(setting: str) -> checks.Warning:
    return checks.Warning(
        "Email goes to local files: no instance ever sends it.",
        hint="Use the SMTP backend or your email provider's backend.",
        obj=setting,
        id="horizontal.W052",
    )


# -- classifying backends --------------------------------------------------------------------


@cache
def _import_class(path: str) -> type | None:
    """The class at dotted ``path``, or ``None`` if it cannot be imported or is no class."""
    try:
        found = import_string(path)
    except (ImportError, ImproperlyConfigured):
        # Not installed, or it needs a system library (GDAL) this machine lacks.
        return None
    return found if isinstance(found, type) else None


def _is_a(backend: object, known: Sequence[str]) -> bool:
    """Whether ``backend`` (a dotted path or a class) is one of ``known`` or a subclass."""
    if isinstance(backend, str):
        if backend in known:
            return True
        backend = _import_class(backend)
    if not isinstance(backend, type):
        return False
    bases = (_import_class(path) for path in known)
    return any(base is not None and issubclass(backend, base) for base in bases)


def _is_implicit(name: str) -> bool:
    """Whether the project left setting ``name`` at Django's default."""
    return not settings.is_overridden(name)


def _backends(setting: Mapping[str, Any]) -> Iterator[tuple[str, object]]:
    """(alias, BACKEND) for a CACHES/TASKS/CHANNEL_LAYERS-shaped setting."""
    for alias, config in setting.items():
        if isinstance(config, Mapping):
            yield str(alias), config.get("BACKEND")


def _local_caches() -> set[str]:
    """Aliases the project declared per-instance on purpose (HORIZONTAL_LOCAL_CACHES)."""
    try:
        return set(conf.LOCAL_CACHES)
    except TypeError:
        return set()  # not a list: horizontal.E001 says so on the same run


def _cache_is(backend: object, known: Sequence[str]) -> bool:
    return backend not in SHARED_CACHES and _is_a(backend, known)


def _cache_aliases_using(known: Sequence[str]) -> list[str]:
    local = _local_caches()
    return [
        alias
        for alias, backend in _backends(settings.CACHES)
        if alias not in local and _cache_is(backend, known)
    ]


def _session_store_is(known: Sequence[str]) -> bool:
    store = f"{settings.SESSION_ENGINE}.SessionStore"
    return store not in SHARED_SESSIONS and _is_a(store, known)


def _uses_sessions() -> bool:
    return apps.is_installed("django.contrib.sessions") or any(
        _is_a(middleware, ("django.contrib.sessions.middleware.SessionMiddleware",))
        for middleware in settings.MIDDLEWARE
    )


# -- caches and session engines: W001-W019 ---------------------------------------------------


@checks.register(Tags.caches, TAG, deploy=True)
def check_locmem_caches(app_configs: Iterable[Any] | None = None, **kwargs: Any) -> list[Any]:
    implicit = _is_implicit("CACHES")
    return [W001(alias, implicit) for alias in _cache_aliases_using(LOCMEM_CACHE)]


@checks.register(Tags.caches, TAG, deploy=True)
def check_file_caches(app_configs: Iterable[Any] | None = None, **kwargs: Any) -> list[Any]:
    return [W002(alias) for alias in _cache_aliases_using(FILE_CACHE)]


@checks.register(Tags.caches, TAG, deploy=True)
def check_dummy_caches(app_configs: Iterable[Any] | None = None, **kwargs: Any) -> list[Any]:
    return [W003(alias) for alias in _cache_aliases_using(DUMMY_CACHE)]


@checks.register(Tags.security, TAG, deploy=True)
def check_file_sessions(app_configs: Iterable[Any] | None = None, **kwargs: Any) -> list[Any]:
    passed = not _uses_sessions() or not _session_store_is(FILE_SESSIONS)
    return [] if passed else [W010]


@checks.register(Tags.caches, TAG, deploy=True)
def check_session_cache_is_shared(
    app_configs: Iterable[Any] | None = None, **kwargs: Any
) -> list[Any]:
    if not _uses_sessions() or not _session_store_is(CACHE_SESSIONS):
        return []
    # HORIZONTAL_LOCAL_CACHES does not excuse this one: a session cache must be shared.
    alias = settings.SESSION_CACHE_ALIAS
    config = settings.CACHES.get(alias)
    passed = not isinstance(config, Mapping) or not _cache_is(
        config.get("BACKEND"), NOT_SHARED_CACHES
    )
    return [] if passed else [W011(alias)]


# -- databases: W030-W039 --------------------------------------------------------------------


def _vendor(alias: str) -> str:
    """``sqlite``, ``postgresql``, ``mysql``... from the ENGINE, without a connection."""
    engine = str(settings.DATABASES[alias].get("ENGINE") or "")
    if engine in KNOWN_ENGINES:
        return KNOWN_ENGINES[engine]
    # A custom or GIS backend: its wrapper class knows its vendor (importing opens nothing).
    wrapper = _import_class(f"{engine}.base.DatabaseWrapper")
    return str(getattr(wrapper, "vendor", "unknown"))


# Vendors with no server to reach: SQLite, Django's placeholder for "no DATABASES", and
# backends we could not import.
SERVERLESS_VENDORS = frozenset({"sqlite", "dummy", "unknown"})


def _network_databases() -> list[str]:
    """Aliases of databases reached over the network."""
    return [alias for alias in settings.DATABASES if _vendor(alias) not in SERVERLESS_VENDORS]


def _options(alias: str) -> Mapping[str, Any]:
    options = settings.DATABASES[alias].get("OPTIONS") or {}
    return options if isinstance(options, Mapping) else {}


def _positive_number(value: object) -> bool:
    try:
        return float(value) > 0  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False


def _persists_unchecked(alias: str) -> bool:
    config = settings.DATABASES[alias]
    max_age = config.get("CONN_MAX_AGE", 0)
    persistent = max_age is None or _positive_number(max_age)
    return persistent and not config.get("CONN_HEALTH_CHECKS") and not _options(alias).get("pool")


def _has_connect_timeout(alias: str) -> bool:
    options = _options(alias)
    if _positive_number(options.get("connect_timeout")):
        return True
    # A libpq service file or a MySQL option file may set it where we cannot see.
    if "service" in options or "read_default_file" in options:
        return True
    vendor = _vendor(alias)
    if vendor == "postgresql":
        return _positive_number(os.environ.get("PGCONNECT_TIMEOUT"))
    return vendor not in ("mysql",)


@checks.register(TAG, deploy=True)
def check_sqlite(app_configs: Iterable[Any] | None = None, **kwargs: Any) -> list[Any]:
    return [W030(alias) for alias in settings.DATABASES if _vendor(alias) == "sqlite"]


@checks.register(TAG, deploy=True)
def check_persistent_connections(
    app_configs: Iterable[Any] | None = None, **kwargs: Any
) -> list[Any]:
    return [W031(alias) for alias in _network_databases() if _persists_unchecked(alias)]


@checks.register(TAG, deploy=True)
def check_connect_timeout(app_configs: Iterable[Any] | None = None, **kwargs: Any) -> list[Any]:
    return [W032(alias) for alias in _network_databases() if not _has_connect_timeout(alias)]


# -- the connection budget -------------------------------------------------------------------


class Demand(NamedTuple):
    """Connections one database alias may need: instances x processes x per process."""

    instances: int | None
    processes: int | None
    per_process: int

    @property
    def total(self) -> int | None:
        if self.instances is None or self.processes is None:
            return None
        return self.instances * self.processes * self.per_process

    @property
    def missing(self) -> list[str]:
        """The settings that would complete the total."""
        names = []
        if self.instances is None:
            names.append("HORIZONTAL_EXPECTED_INSTANCES")
        if self.processes is None:
            names.append("HORIZONTAL_PROCESSES_PER_INSTANCE (or WEB_CONCURRENCY)")
        return names

    def __str__(self) -> str:
        instances = self.instances or "N"
        processes = self.processes or "P"
        formula = f"{instances} instances x {processes} processes x {self.per_process}"
        return formula if self.total is None else f"{formula} = {self.total}"

    def capacity(self, limit: int) -> str:
        """How much of the fleet ``limit`` connections hold."""
        if self.processes is not None:
            per_instance = self.processes * self.per_process
            return f"{limit // per_instance} instances of {per_instance}"
        return f"{limit // self.per_process} processes of {self.per_process}"


def _connections_per_process(alias: str) -> int:
    """Most connections one process holds to ``alias``: its pool's size, else one."""
    pool = _options(alias).get("pool")
    if not pool:
        return 1
    if isinstance(pool, Mapping):
        size = pool.get("max_size") or pool.get("min_size")
        if isinstance(size, int) and size >= 1:
            return size
    return PSYCOPG_POOL_DEFAULT_SIZE


def _count(read: Callable[[], int | None]) -> int | None:
    """A ``horizontal.conf`` count, or ``None`` when it is unusable (E001/E002 say why)."""
    try:
        value = read()
    except (TypeError, ValueError):
        return None
    return value if value is not None and value >= 1 else None


def _demand(alias: str) -> Demand:
    return Demand(
        instances=_count(lambda: conf.EXPECTED_INSTANCES),
        processes=_count(lambda: conf.PROCESSES_PER_INSTANCE),
        per_process=_connections_per_process(alias),
    )


def _server_connection_limit(alias: str) -> int | None:
    """The server's ``max_connections`` for ordinary roles; ``None`` if it cannot say."""
    from horizontal.db import UnsupportedDatabase, dialect_for

    connection = connections[alias]
    try:
        dialect = dialect_for(connection)
        with connection.cursor() as cursor:
            return dialect.connection_limit(cursor)
    except (DatabaseError, UnsupportedDatabase):
        # An unreachable server is the readiness probe's business, not a check's.
        return None


@checks.register(TAG, deploy=True)
def check_connection_budget_note(
    app_configs: Iterable[Any] | None = None, **kwargs: Any
) -> list[Any]:
    return [I033(alias, _demand(alias)) for alias in _network_databases()]


@checks.register(Tags.database, TAG, deploy=True)
def check_connection_budget(
    app_configs: Iterable[Any] | None = None,
    databases: Sequence[str] | None = None,
    **kwargs: Any,
) -> list[Any]:
    if databases is None:
        return []
    messages: list[Any] = []
    for alias in databases:
        if alias not in settings.DATABASES or _vendor(alias) == "sqlite":
            continue
        limit = _server_connection_limit(alias)
        if limit is None:
            continue
        demand = _demand(alias)
        if demand.total is None:
            messages.append(I035(alias, demand, limit))
        elif demand.total > limit:
            messages.append(W034(alias, demand, limit))
    return messages


# -- background work: W040-W049 --------------------------------------------------------------


@checks.register(TAG, deploy=True)
def check_channel_layers(app_configs: Iterable[Any] | None = None, **kwargs: Any) -> list[Any]:
    layers = getattr(settings, "CHANNEL_LAYERS", None) or {}
    return [
        W040(alias)
        for alias, backend in _backends(layers)
        if _is_a(backend, IN_MEMORY_CHANNEL_LAYERS)
    ]


def _task_backends() -> Mapping[str, Any]:
    # Django < 6.0 has no TASKS default; then only the django-tasks backport sets it.
    return getattr(settings, "TASKS", None) or {}


@checks.register(TAG, deploy=True)
def check_immediate_tasks(app_configs: Iterable[Any] | None = None, **kwargs: Any) -> list[Any]:
    implicit = _is_implicit("TASKS")
    return [
        W041(alias, implicit)
        for alias, backend in _backends(_task_backends())
        if _is_a(backend, IMMEDIATE_TASKS)
    ]


@checks.register(TAG, deploy=True)
def check_dummy_tasks(app_configs: Iterable[Any] | None = None, **kwargs: Any) -> list[Any]:
    return [
        W042(alias) for alias, backend in _backends(_task_backends()) if _is_a(backend, DUMMY_TASKS)
    ]


@checks.register(TAG, deploy=True)
def check_apscheduler(app_configs: Iterable[Any] | None = None, **kwargs: Any) -> list[Any]:
    return [W043] if apps.is_installed("django_apscheduler") else []


@checks.register(TAG, deploy=True)
def check_crontab(app_configs: Iterable[Any] | None = None, **kwargs: Any) -> list[Any]:
    return [W044] if apps.is_installed("django_crontab") else []


def _django_cron_lock() -> object:
    return getattr(settings, "DJANGO_CRON_LOCK_BACKEND", DJANGO_CRON_DEFAULT_LOCK)


@checks.register(TAG, deploy=True)
def check_django_cron_file_lock(
    app_configs: Iterable[Any] | None = None, **kwargs: Any
) -> list[Any]:
    passed = not apps.is_installed("django_cron") or not _is_a(
        _django_cron_lock(), DJANGO_CRON_FILE_LOCK
    )
    return [] if passed else [W045]


@checks.register(TAG, deploy=True)
def check_django_cron_cache_lock(
    app_configs: Iterable[Any] | None = None, **kwargs: Any
) -> list[Any]:
    if not apps.is_installed("django_cron") or not _is_a(
        _django_cron_lock(), DJANGO_CRON_CACHE_LOCK
    ):
        return []
    alias = getattr(settings, "DJANGO_CRON_CACHE", "default")
    backend = (settings.CACHES.get(alias) or {}).get("BACKEND")
    if _cache_is(backend, NOT_SHARED_CACHES):
        return [W046(f"uses local cache {alias!r}")]
    # On a shared cache it still reads, then sets: both instances can read "free".
    return [W046("is not atomic")]


def _embedded_celery_beat() -> bool:
    """Whether a celery beat service thread or process runs in this process.

    Whatever started it (an AppConfig.ready(), a settings import) has run by the time
    checks do; celery.beat is only looked at when something already imported it.
    """
    beat = sys.modules.get("celery.beat")
    if beat is None:
        return False
    kinds = tuple(
        kind
        for kind in (getattr(beat, "_Threaded", None), getattr(beat, "_Process", None))
        if isinstance(kind, type)
    )
    if not kinds:
        return False
    if any(isinstance(thread, kinds) for thread in threading.enumerate()):
        return True
    import multiprocessing

    return any(isinstance(child, kinds) for child in multiprocessing.active_children())


@checks.register(TAG, deploy=True)
def check_embedded_celery_beat(
    app_configs: Iterable[Any] | None = None, **kwargs: Any
) -> list[Any]:
    return [W047] if _embedded_celery_beat() else []


# -- secrets, logging, email: W050-W059 ------------------------------------------------------


def _call_name(node: ast.Call) -> str | None:
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _makes_random_value(node: ast.AST) -> bool:
    return any(
        isinstance(call, ast.Call) and _call_name(call) in RANDOM_VALUE_CALLS
        for call in ast.walk(node)
    )


def _assigned_value(node: ast.stmt, name: str) -> ast.expr | None:
    if isinstance(node, ast.Assign) and any(
        isinstance(target, ast.Name) and target.id == name for target in node.targets
    ):
        return node.value
    if (
        isinstance(node, ast.AnnAssign)
        and isinstance(node.target, ast.Name)
        and node.target.id == name
    ):
        return node.value
    return None


@cache
def _parse(filename: str, mtime: float) -> ast.Module | None:
    try:
        return ast.parse(Path(filename).read_bytes(), filename=filename)
    except (OSError, SyntaxError, ValueError):
        return None


def _module_tree(module_name: str) -> tuple[str, ast.Module] | None:
    module = sys.modules.get(module_name)
    filename = getattr(module, "__file__", None)
    if not filename or not filename.endswith(".py"):
        return None
    try:
        tree = _parse(filename, os.stat(filename).st_mtime)
    except OSError:
        return None
    return None if tree is None else (filename, tree)


def _imported_settings_modules(module_name: str, tree: ast.Module) -> Iterator[str]:
    """Modules that ``from X import *`` / ``import SECRET_KEY`` pull settings from."""
    package = module_name.rpartition(".")[0]
    for node in tree.body:
        if not isinstance(node, ast.ImportFrom):
            continue
        if not any(alias.name in ("*", "SECRET_KEY") for alias in node.names):
            continue
        if node.level:
            base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
            yield f"{base}.{node.module}" if node.module else base
        elif node.module:
            yield node.module


def _random_secret_key_sites(module_name: str, seen: set[str]) -> Iterator[str]:
    """``path:line`` of each ``SECRET_KEY = <random>`` in the settings module chain."""
    if module_name in seen:
        return
    seen.add(module_name)
    found = _module_tree(module_name)
    if found is None:
        return
    path, tree = found
    for node in tree.body:
        value = _assigned_value(node, "SECRET_KEY")
        if value is not None and _makes_random_value(value):
            yield f"{path}:{node.lineno}"
    for imported in _imported_settings_modules(module_name, tree):
        yield from _random_secret_key_sites(imported, seen)


@checks.register(Tags.security, TAG, deploy=True)
def check_secret_key_is_stable(
    app_configs: Iterable[Any] | None = None, **kwargs: Any
) -> list[Any]:
    module_name = getattr(settings, "SETTINGS_MODULE", None)
    if not module_name:
        return []
    return [W050(site) for site in _random_secret_key_sites(module_name, set())]


def _handler_class(config: Mapping[str, Any]) -> object:
    # dictConfig takes "class", or a factory under "()" (a dotted path or a callable).
    return config.get("class") or config.get("()")


@checks.register(TAG, deploy=True)
def check_file_logging(app_configs: Iterable[Any] | None = None, **kwargs: Any) -> list[Any]:
    if not settings.LOGGING_CONFIG or not isinstance(settings.LOGGING, Mapping):
        return []
    # dictConfig opens every declared handler's file, used by a logger or not.
    handlers = settings.LOGGING.get("handlers") or {}
    return [
        W051(str(name))
        for name, config in handlers.items()
        if isinstance(config, Mapping) and _is_a(_handler_class(config), FILE_LOG_HANDLERS)
    ]


def _email_backends() -> Iterator[tuple[str, object]]:
    """(setting, BACKEND) for every configured way of sending mail."""
    mailers = getattr(settings, "MAILERS", None)  # Django 6.1+
    if isinstance(mailers, Mapping):
        for alias, config in _backends(mailers):
            yield f"MAILERS[{alias!r}]", config
        return
    # Django 6.1 warns on every read of EMAIL_BACKEND: read it only when the project set
    # it (Django's default is SMTP), and leave the deprecation warning to Django.
    if settings.is_overridden("EMAIL_BACKEND"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield "EMAIL_BACKEND", settings.EMAIL_BACKEND


@checks.register(TAG, deploy=True)
def check_file_email(app_configs: Iterable[Any] | None = None, **kwargs: Any) -> list[Any]:
    return [W052(setting) for setting, backend in _email_backends() if _is_a(backend, FILE_EMAIL)]
