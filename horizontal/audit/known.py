"""The one catalogue of single-box values: backends, engines and apps that work on one box
and break on two, and the calls that make a value random per process.

Both tools read it: the deploy checks (``horizontal/checks/``, which match the live
settings by class, subclasses included) and the audit (``settings_rules.py``, which
finds the same strings in settings source). A new single-box backend is added here once
and both learn it; ``tests/audit/test_known.py`` runs every entry through both.

Standard library only: the audit stays importable without Django.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import NamedTuple

__all__ = [
    "APSCHEDULER_APPS",
    "CACHE_URL_CONFIGS",
    "CACHE_URL_SCHEMES",
    "CATALOGUE",
    "CLOCK_CALLS",
    "COMPRESSOR_APP",
    "COMPRESSOR_LOCAL_OUTPUT",
    "CRONTAB_APPS",
    "DJANGO_CRON_CACHE_LOCKS",
    "DJANGO_CRON_FILE_LOCKS",
    "DUMMY_CACHES",
    "DUMMY_TASKS",
    "EAGER_TASK_SETTINGS",
    "FILE_CACHES",
    "FILE_EMAIL_BACKENDS",
    "FILE_LOG_HANDLERS",
    "FILE_SESSION_ENGINES",
    "IMMEDIATE_TASKS",
    "IMPORT_EXPORT_APP",
    "IMPORT_TEMP_FILES",
    "IN_MEMORY_CHANNEL_LAYERS",
    "LOCAL_SEARCH_INDEXES",
    "LOCAL_STORAGES",
    "LOCMEM_CACHES",
    "LOCMEM_CACHE_URL",
    "MAINTENANCE_APP",
    "MAINTENANCE_STATE_FILES",
    "ON_DISK_QUEUES",
    "PER_INSTANCE_CALLS",
    "PER_INSTANCE_ENVIRONMENT",
    "PER_INSTANCE_FILES",
    "RANDOM_VALUE_CALLS",
    "SECRET_KEY_FRESH_CALLS",
    "SQLITE_ENGINES",
    "SingleBox",
    "cache_url_backend",
    "paths",
]


class SingleBox(NamedTuple):
    """A value that works on one box and breaks on two."""

    setting: str  # the setting that names it, as the audit reports it
    path: str  # the value as settings write it: a class or module path, or an app
    why: str  # what breaks with N instances, in one line


LOCMEM_CACHES = (
    SingleBox(
        "CACHES",
        "django.core.cache.backends.locmem.LocMemCache",
        "LocMemCache is per process: invalidation, rate limits and cache locks do not "
        "cross instances",
    ),
)
# A cache alias named for the process's own memory (``"local-memory"``, ``"locmem"``,
# ``"process"``): per instance on purpose, as one HORIZONTAL_LOCAL_CACHES lists. Never
# ``"default"``, which every library shares whatever it holds.
PROCESS_CACHE_WORDS = frozenset({"local", "locmem", "memory", "inmemory", "process", "inproc"})


def is_process_cache_alias(alias: str) -> bool:
    words = re.split(r"[^a-z0-9]+", alias.lower())  # "localized" is no such word
    return alias != "default" and not PROCESS_CACHE_WORDS.isdisjoint(words)


# django-cache-url and django-environ spell LocMemCache as a URL; django_cache_url.config()
# with no CACHE_URL set and no default gives it too.
LOCMEM_CACHE_URL = "locmem://"
CACHE_URL_CONFIGS = ("django_cache_url.config",)
FILE_CACHES = (
    SingleBox(
        "CACHES",
        "django.core.cache.backends.filebased.FileBasedCache",
        "FileBasedCache lives on one host's disk: each instance caches separately",
    ),
    # python-diskcache's Django backend: SQLite and files in a folder on this host.
    SingleBox(
        "CACHES",
        "diskcache.DjangoCache",
        "diskcache's DjangoCache lives on one host's disk: each instance caches separately",
    ),
)
DUMMY_CACHES = (
    SingleBox(
        "CACHES",
        "django.core.cache.backends.dummy.DummyCache",
        "DummyCache stores nothing: cache.add() gates and locks silently never hold",
    ),
)
# Cache URLs (django-cache-url's ``locmem://``; django-environ's ``locmemcache://``,
# ``filecache://``, ``dummycache://``) and the backend each names. Their ``file://`` and
# ``dummy://`` are left out: too common in other settings' values to mean a cache.
CACHE_URL_SCHEMES = {
    LOCMEM_CACHE_URL: LOCMEM_CACHES[0],
    "locmemcache://": LOCMEM_CACHES[0],
    "filecache://": FILE_CACHES[0],
    "dummycache://": DUMMY_CACHES[0],
}


def cache_url_backend(text: str) -> SingleBox | None:
    """The single-box cache a cache URL names (``locmemcache://snowflake``, or without
    the slashes, as django-cache-url also parses it: ``locmem:default``), or None."""
    scheme, found, _ = text.partition(":")
    return CACHE_URL_SCHEMES.get(f"{scheme.lower()}://") if found else None


# Engines are module paths; each module's class is ``SessionStore``.
FILE_SESSION_ENGINES = (
    SingleBox(
        "SESSION_ENGINE",
        "django.contrib.sessions.backends.file",
        "file sessions live on one host: users are logged out when the balancer sends "
        "them elsewhere",
    ),
)
LOCAL_STORAGES = (
    SingleBox(
        "STORAGES['default']",
        "django.core.files.storage.FileSystemStorage",
        "uploads go to this host's disk: other instances cannot serve them",
    ),
    SingleBox(
        "STORAGES['default']",
        "django.core.files.storage.InMemoryStorage",
        "uploads stay in one process's memory: other instances cannot serve them",
    ),
)
SQLITE_ENGINES = (
    SingleBox(
        "DATABASES",
        "django.db.backends.sqlite3",
        "SQLite is a file on one host: each instance would have its own database",
    ),
    SingleBox(
        "DATABASES",
        "django.contrib.gis.db.backends.spatialite",
        "SpatiaLite is SQLite: each instance would have its own database",
    ),
)
IN_MEMORY_CHANNEL_LAYERS = (
    SingleBox(
        "CHANNEL_LAYERS",
        "channels.layers.InMemoryChannelLayer",
        "InMemoryChannelLayer cannot deliver messages between instances",
    ),
)
# django.tasks (Django 6.0+) and its backport, django-tasks, ship the same two backends.
IMMEDIATE_TASKS = tuple(
    SingleBox(
        "TASKS",
        f"{package}.backends.immediate.ImmediateBackend",
        "ImmediateBackend runs tasks inline in the request worker",
    )
    for package in ("django.tasks", "django_tasks")
)
DUMMY_TASKS = tuple(
    SingleBox("TASKS", f"{package}.backends.dummy.DummyBackend", "DummyBackend never runs tasks")
    for package in ("django.tasks", "django_tasks")
)
APSCHEDULER_APPS = (
    SingleBox(
        "INSTALLED_APPS",
        "django_apscheduler",
        "django_apscheduler runs a scheduler per process: jobs fire once per instance",
    ),
)
CRONTAB_APPS = (
    SingleBox(
        "INSTALLED_APPS",
        "django_crontab",
        "django_crontab installs its CRONJOBS into every host's crontab",
    ),
)
DJANGO_CRON_FILE_LOCKS = (
    SingleBox(
        "DJANGO_CRON_LOCK_BACKEND",
        "django_cron.backends.lock.file.FileLock",
        "django_cron's FileLock is a file on one host: every instance runs each cron job",
    ),
)
# The first one is django_cron's default lock.
DJANGO_CRON_CACHE_LOCKS = (
    SingleBox(
        "DJANGO_CRON_LOCK_BACKEND",
        "django_cron.backends.lock.cache.CacheLock",
        "django_cron's CacheLock reads, then sets: two instances can both take it",
    ),
)
# logging.handlers' Rotating/TimedRotating/WatchedFileHandler all subclass FileHandler;
# they are listed so the common spellings are recognised without an import.
FILE_LOG_HANDLERS = tuple(
    SingleBox("LOGGING", path, "logs go to a file on one host: each instance keeps a partial log")
    for path in (
        "logging.FileHandler",
        "logging.handlers.RotatingFileHandler",
        "logging.handlers.TimedRotatingFileHandler",
        "logging.handlers.WatchedFileHandler",
    )
)
FILE_EMAIL_BACKENDS = (
    SingleBox(
        "EMAIL_BACKEND",
        "django.core.mail.backends.filebased.EmailBackend",
        "the file email backend writes mail to one host's disk",
    ),
)

# django-maintenance-mode's on/off switch kept in a file (its default state backend).
MAINTENANCE_STATE_FILES = (
    SingleBox(
        "MAINTENANCE_MODE_STATE_BACKEND",
        "maintenance_mode.backends.LocalFileBackend",
        "django-maintenance-mode keeps its on/off state in a file on one host: maintenance "
        "switched on through one instance shows only there",
    ),
)
MAINTENANCE_APP = "maintenance_mode"

# django-import-export's admin import is two requests: the preview keeps the uploaded
# file in its temporary storage, by default a folder on this host, and the confirm reads
# it back by name.
IMPORT_TEMP_FILES = (
    SingleBox(
        "IMPORT_EXPORT_TMP_STORAGE_CLASS",
        "import_export.tmp_storages.TempFolderStorage",
        "django-import-export keeps an import's file in this host's temp folder between "
        "preview and confirm: a confirm that reaches another instance fails",
    ),
)
IMPORT_EXPORT_APP = "import_export"

# Task queues kept on one host (audit only: the deploy checks read HUEY's live object).
ON_DISK_QUEUES = tuple(
    SingleBox("HUEY", f"huey.{module}{name}", why)
    for module in ("", "api.", "contrib.sqlitedb.")
    for name, why in (
        ("SqliteHuey", "SqliteHuey keeps the task queue in a SQLite file on one host"),
        ("FileHuey", "FileHuey keeps the task queue in files on one host's disk"),
        ("MemoryHuey", "MemoryHuey keeps the task queue in one process's memory"),
    )
)

# django-haystack engines whose index is a folder on this host's disk.
LOCAL_SEARCH_INDEXES = (
    SingleBox(
        "HAYSTACK_CONNECTIONS",
        "haystack.backends.whoosh_backend.WhooshEngine",
        "a Whoosh index is a folder on one host's disk: each instance indexes and searches "
        "its own copy",
    ),
    SingleBox(
        "HAYSTACK_CONNECTIONS",
        "xapian_backend.XapianEngine",
        "a Xapian index is a folder on one host's disk: each instance indexes and searches "
        "its own copy",
    ),
)

# django-compressor compressing on request (``COMPRESS_ENABLED``, by default ``not
# DEBUG``, with ``COMPRESS_OFFLINE`` unset) into its storage, by default a folder under
# ``STATIC_ROOT`` on this host: a page one instance renders links a file only that
# instance wrote. Judged only with the app installed and compression on request, so not
# in CATALOGUE (the same storage is right for offline compression at build time).
COMPRESSOR_APP = "compressor"
COMPRESSOR_LOCAL_OUTPUT = tuple(
    SingleBox(
        "COMPRESS_STORAGE",
        f"compressor.storage.{name}",
        "django-compressor compresses on request into a folder on this host: a page one "
        "instance renders links CSS and JS that only that instance wrote",
    )
    for name in (
        "CompressorFileStorage",
        "GzipCompressorFileStorage",
        "BrotliCompressorFileStorage",
    )
)

CATALOGUE: tuple[SingleBox, ...] = (
    *LOCMEM_CACHES,
    *FILE_CACHES,
    *DUMMY_CACHES,
    *FILE_SESSION_ENGINES,
    *LOCAL_STORAGES,
    *SQLITE_ENGINES,
    *IN_MEMORY_CHANNEL_LAYERS,
    *IMMEDIATE_TASKS,
    *DUMMY_TASKS,
    *APSCHEDULER_APPS,
    *CRONTAB_APPS,
    *DJANGO_CRON_FILE_LOCKS,
    *DJANGO_CRON_CACHE_LOCKS,
    *FILE_LOG_HANDLERS,
    *FILE_EMAIL_BACKENDS,
    *MAINTENANCE_STATE_FILES,
    *IMPORT_TEMP_FILES,
    *LOCAL_SEARCH_INDEXES,
)

# Calls (by their last name: ``secrets.token_hex`` is ``token_hex``) that return a fresh
# random value each time the settings module is imported: ``secrets``, ``os.urandom``,
# ``uuid``, Django's generators and the ``random`` module (``SystemRandom().choice`` in a
# join counts). The audit's W109 and the deploy check's W050 both read this set.
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
        "choice",
        "choices",
        "sample",
        "randint",
        "randrange",
        "randbelow",
        "random",
        "uniform",
        "shuffle",
    }
)
# The clock: the wall clock, and the monotonic and performance counters, which count from
# an arbitrary point of each host (its boot) or process.
CLOCK_CALLS = frozenset(
    {
        "time",
        "time_ns",
        "now",
        "today",
        "utcnow",
        "monotonic",
        "monotonic_ns",
        "perf_counter",
        "perf_counter_ns",
    }
)
# A SECRET_KEY made from the clock (``sha512(str(time.time()))``) differs between starts
# as surely as a random one.
SECRET_KEY_FRESH_CALLS = RANDOM_VALUE_CALLS | CLOCK_CALLS
# Calls whose value differs between instances (or between starts of one): used as a cache
# KEY_PREFIX/VERSION/KEY_FUNCTION or an instance id, each instance gets its own.
# Environment variables whose value is this instance's own (a pod's or a dyno's name).
PER_INSTANCE_ENVIRONMENT = frozenset(
    {"HOSTNAME", "POD_NAME", "POD_IP", "MY_POD_NAME", "MY_POD_IP", "DYNO", "CONTAINER_ID"}
)
# Files whose content is this host's own: a value read from one differs per instance.
PER_INSTANCE_FILES = frozenset(
    {
        "/etc/machine-id",
        "/var/lib/dbus/machine-id",
        "/etc/hostname",
        "/proc/sys/kernel/hostname",
        "/proc/sys/kernel/random/boot_id",
    }
)
PER_INSTANCE_CALLS = (
    RANDOM_VALUE_CALLS
    | CLOCK_CALLS
    # ``getppid()``: the parent's pid, a gunicorn master's, differs per instance too.
    | frozenset(
        {"gethostname", "getfqdn", "getpid", "getppid", "getnode", "node", "uname", "gethostbyname"}
    )
)

# django.tasks' rivals run in the caller when these settings say so (setting, key, value):
# Celery (with and without its CELERY_ namespace), Huey, django-q and django-rq.
EAGER_TASK_SETTINGS: tuple[tuple[str, str | None, object], ...] = (
    ("CELERY_TASK_ALWAYS_EAGER", None, True),
    ("CELERY_ALWAYS_EAGER", None, True),
    ("TASK_ALWAYS_EAGER", None, True),
    ("HUEY", "immediate", True),
    ("Q_CLUSTER", "sync", True),
    ("RQ_QUEUES", "ASYNC", False),
)


def paths(entries: Iterable[SingleBox]) -> tuple[str, ...]:
    """The values of ``entries``, for a check that matches them by class or name."""
    return tuple(entry.path for entry in entries)
