"""The W109 rules: which values of one settings module work on one box only, and the fix.

Each rule reads one module and yields its findings, each with the fix text for its
setting (``FIXES``); whether production keeps the value (a later or star-importing
module may replace it) is for ``settings_modules`` to decide. Which backends are
single-box, and which calls make a value random, is ``horizontal.audit.known``, the
catalogue the deploy checks read too. What a value is when the environment sets nothing
is ``settings_values``.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Mapping

from horizontal.audit.compressor import compresses_on_request
from horizontal.audit.findings import Finding, Location
from horizontal.audit.known import (
    CACHE_URL_CONFIGS,
    CATALOGUE,
    COMPRESSOR_APP,
    COMPRESSOR_LOCAL_OUTPUT,
    DUMMY_CACHES,
    IMPORT_EXPORT_APP,
    IMPORT_TEMP_FILES,
    LOCAL_STORAGES,
    LOCMEM_CACHES,
    MAINTENANCE_APP,
    MAINTENANCE_STATE_FILES,
    ON_DISK_QUEUES,
    SingleBox,
    cache_url_backend,
    is_process_cache_alias,
)
from horizontal.audit.local_storage import NOTHING_SET
from horizontal.audit.patterns import lazy_compile
from horizontal.audit.settings_branches import explicitly_chosen, static_or_compared
from horizontal.audit.settings_values import (
    value_paths,
)
from horizontal.audit.source import (
    PythonModule,
    dotted,
    last_part,
    string_value,
)
from horizontal.audit.storage_settings import OTHER_STORAGE_WHY, other_storage, storage_key_paths

__all__ = [
    "FIXES",
    "bad_backends",
    "crontab_jobs",
    "django_defaults_copied",
    "implicit_defaults",
    "option_places",
]

# The catalogue's values, by the string settings write them as.
BACKEND_PROBLEMS: dict[str, SingleBox] = {
    entry.path: entry for entry in (*CATALOGUE, *ON_DISK_QUEUES)
}
LOCAL_STORAGE_CLASS = lazy_compile(r"^[\w.]+\.\w*FileSystemStorage$")
# A project's own subclass, named by convention (app.storage.FileSystemStorage).
LOCAL_STORAGE_SUBCLASS = BACKEND_PROBLEMS["django.core.files.storage.FileSystemStorage"]
# Thumbnail generators' own storage settings (easy-thumbnails, sorl-thumbnail, imagekit).
THUMBNAIL_SETTINGS = ("THUMBNAIL_", "IMAGEKIT_", "VERSATILEIMAGEFIELD_")

SQLITE_FILE = (".sqlite3", ".sqlite", ".db")
SQLITE_URLS = ("sqlite:", "spatialite:")


def bad_backends(
    module: PythonModule,
    local_storages: frozenset[str] = frozenset(),
    local_caches: Mapping[str, str] | None = None,
    gates_in_cache: bool = True,
) -> Iterator[Finding]:
    """Backend strings that only work on one box, wherever the module puts them.
    ``gates_in_cache``: whether the project's code takes gates or counts in the cache; a
    ``DummyCache`` only recomputes memos otherwise, on one instance as on many.

    Settings are often built in helpers (``config = {...}``; ``def setup_database()``)
    or as a default (``os.getenv("DB_ENGINE") or "...sqlite3"``), so the string itself is
    the evidence, not the statement. Comparisons and static-files storage are not.
    """
    ignored = static_or_compared(module.tree) | _in_memory_databases(module)
    chosen = explicitly_chosen(module.tree)
    opted_out = _library_cache_aliases(module.text)
    wants_paths = (
        "THUMBNAIL" in module.text
        or "IMAGEKIT" in module.text
        or "LocMemCache" in module.text
        or opted_out
    )
    paths = value_paths(module) if wants_paths else {}
    storage_paths: tuple[dict[int, tuple[str, ...]], set[str]] | None = None
    for node in ast.walk(module.tree):
        text = string_value(node)
        if text is None or id(node) in ignored or id(node) in module.schema_defaults:
            continue
        match = BACKEND_PROBLEMS.get(text)
        if match is None:
            match = cache_url_backend(text)
        if match is None and local_caches and text in local_caches:
            match = BACKEND_PROBLEMS.get(local_caches[text])  # the project's own LocMem
        if match is None and (LOCAL_STORAGE_CLASS.search(text) or text in local_storages):
            match = LOCAL_STORAGE_SUBCLASS
        lowered = text.lower()
        if match is not None and any(w.lower() in lowered for w in chosen.get(id(node), ())):
            continue  # the operator named this backend (``elif scheme == "sqlite":``, "FILE")
        if match is None or (match in DUMMY_CACHES and not gates_in_cache):
            continue
        line = getattr(node, "lineno", 1)
        alias = (paths.get(line) or ("", ""))[1:2]
        if match.setting == "CACHES" and alias in opted_out:
            continue  # the alias a library is told to use, to keep nothing (AXES_CACHE)
        if match in LOCMEM_CACHES and alias and is_process_cache_alias(alias[0]):
            continue  # ``"local-memory": {…LocMemCache}``: named per process, on purpose
        thumbnails = (paths.get(line) or ("",))[0]
        if match is LOCAL_STORAGE_SUBCLASS and thumbnails.startswith(THUMBNAIL_SETTINGS):
            yield _finding(
                module,
                line,
                f"{thumbnails}: thumbnails are generated into this host's disk: other "
                "instances regenerate them or serve 404",
                FIXES["thumbnails"],
            )
            continue
        other = None
        if match in LOCAL_STORAGES or match is LOCAL_STORAGE_SUBCLASS:
            if storage_paths is None:
                storage_paths = storage_key_paths(module)
            other = other_storage(node, *storage_paths)
        if other is not None:
            message = f"{other}: {OTHER_STORAGE_WHY}"
            yield _finding(module, line, message, FIXES["another storage"])
            continue
        yield _finding(module, line, f"{match.setting}: {match.why}", FIXES.get(match.setting, ""))
    yield from _cache_url_configs_without_default(module, ignored)


# A library told to use a cache alias of its own (django-axes' documented ``AXES_CACHE =
# "axes_cache"`` on a DummyCache, so that lockouts are counted in the database): the
# project's choice for that library, not state it shares through the cache. The same for
# the libraries whose cache is a memo that a miss rebuilds alike on any host
# (django-compressor's rendered-block names, django-imagekit's "this file exists").
LIBRARY_CACHE_ALIAS = lazy_compile(
    r"^(?:[A-Z][A-Z0-9_]*_CACHE|COMPRESS_CACHE_BACKEND|IMAGEKIT_CACHE_BACKEND)"
    r"\s*=\s*[\"'](\w+)[\"']",
    re.M,
)


def _library_cache_aliases(text: str) -> set[tuple[str]]:
    if "_CACHE" not in text:
        return set()
    return {(alias,) for alias in LIBRARY_CACHE_ALIAS.findall(text) if alias != "default"}


def _in_memory_databases(module: PythonModule) -> set[int]:
    """The engine strings of databases named ``:memory:``: SQLite that keeps nothing even
    on one box (a placeholder for a project whose requests use no database)."""
    if ":memory:" not in module.text:
        return set()
    engines: set[int] = set()
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Dict):
            values = {string_value(k): v for k, v in zip(node.keys, node.values, strict=True)}
            if string_value(values.get("NAME")) == ":memory:" and "ENGINE" in values:
                engines.add(id(values["ENGINE"]))
    return engines


def _cache_url_configs_without_default(
    module: PythonModule, ignored: set[int]
) -> Iterator[Finding]:
    """``django_cache_url.config()`` with no ``default=``: ``locmem://`` unless CACHE_URL
    is set."""
    if "cache_url" not in module.text:
        return
    for node in ast.walk(module.tree):
        if (
            isinstance(node, ast.Call)
            and id(node) not in ignored
            and module.qualify(node.func) in CACHE_URL_CONFIGS
            and not any(k.arg == "default" for k in node.keywords)
            and len(node.args) < 2
        ):
            entry = LOCMEM_CACHES[0]
            yield _finding(
                module,
                node.lineno,
                f"{entry.setting}: with no CACHE_URL set, {entry.why}",
                FIXES[entry.setting],
            )


def crontab_jobs(module: PythonModule, statement: ast.stmt) -> Finding:
    return _finding(
        module,
        statement.lineno,
        "CRONJOBS (django-crontab) is installed into the crontab of every host that "
        "runs 'crontab add'",
        FIXES["CRONJOBS"],
    )


# Django's own defaults, copied in by name: what production gets is the default's.
COPIED_DEFAULTS = {
    "STORAGES": (
        "STORAGES is Django's default (global_settings.STORAGES): uploads go to "
        "FileSystemStorage on one host's disk",
        "STORAGES['default']",
    ),
    "CACHES": (
        "CACHES is Django's default (global_settings.CACHES): LocMemCache, a per-process "
        "cache on every instance",
        "CACHES",
    ),
}
COPY_CALLS = frozenset({"copy", "deepcopy", "dict"})


def django_defaults_copied(
    module: PythonModule, settings: dict[str, list[ast.stmt]]
) -> Iterator[Finding]:
    """``STORAGES = global_settings.STORAGES`` (or a copy of it): the setting is set, and
    set to the single-box default. ``settings``: what runs when nothing is set; a later
    statement that changes the copy (``STORAGES["default"] = …``) is the operator's."""
    if "global_settings" not in module.text:
        return  # the common case: no walk of the module for branches
    ignored = static_or_compared(module.tree)
    for name, (message, fix) in COPIED_DEFAULTS.items():
        last = sorted(settings.get(name, []), key=lambda statement: statement.lineno)[-1:]
        for statement in last:
            value = statement.value if isinstance(statement, ast.Assign) else None
            while isinstance(value, ast.Call) and last_part(dotted(value.func)) in COPY_CALLS:
                value = value.args[0] if len(value.args) == 1 else None
            if id(statement) in ignored or value is None:
                continue
            if module.qualify(value) == f"django.conf.global_settings.{name}":
                yield _finding(module, statement.lineno, message, FIXES[fix])


# Settings of libraries that keep shared state in the default cache: django-q's cluster
# (its stats and monitor), django-allauth's rate limits.
DEFAULT_CACHE_USERS = ("Q_CLUSTER",)  # allauth's limits: feature_use.THROTTLE_RATES
CACHED_SESSION_ENGINES = (".backends.cache", ".backends.cached_db")
NO_MEDIA_ROOT_MESSAGE = (
    f"{NOTHING_SET}['default']: uploads go to FileSystemStorage in the working directory, "
    "on one host's disk"
)


def implicit_defaults(
    module: PythonModule,
    settings: dict[str, list[ast.stmt]],
    everything: set[str],
    uses_cache: bool,
    conditional: dict[str, list[ast.stmt]] | None = None,
    compresses: bool = True,
) -> Iterator[Finding]:
    """What Django chooses for a setting no production module sets (``everything``):
    ``LocMemCache`` for a missing ``CACHES``, local disk for a missing storage.
    ``conditional``: every assignment, including those in branches that are off when
    nothing is set; a setting assigned only there is reported at that assignment."""
    # Sessions kept in the cache (``cache``, ``cached_db``) use it whatever the code does.
    cached_sessions = [
        statement
        for statement in settings.get("SESSION_ENGINE", [])
        if isinstance(statement, ast.Assign)
        and (string_value(statement.value) or "").endswith(CACHED_SESSION_ENGINES)
    ]
    uses_cache = uses_cache or bool(cached_sessions)
    if uses_cache and "INSTALLED_APPS" in settings and "CACHES" not in everything:
        only_if = (conditional or {}).get("CACHES")
        related: tuple[Location, ...] = ()
        if only_if:
            line = only_if[0].lineno
            message = (
                "CACHES is set only when an option is given; otherwise Django uses "
                "LocMemCache: a per-process cache on every instance"
            )
            # The branch's test is where the option is asked for.
            related = tuple(
                Location(module.path, branch.lineno)
                for branch in module.tree.body
                if isinstance(branch, ast.If) and branch.lineno < line <= (branch.end_lineno or 0)
            )
        else:
            line = module.decided_at or settings["INSTALLED_APPS"][0].lineno
            message = (
                "CACHES is not set, so Django uses LocMemCache: a per-process cache on "
                "every instance"
            )
            # Libraries configured here that keep their state in the default cache.
            related = tuple(
                Location(module.path, statement.lineno)
                for name in DEFAULT_CACHE_USERS
                for statement in settings.get(name, [])
            ) + tuple(Location(module.path, statement.lineno) for statement in cached_sessions)
        yield _finding(module, line, message, FIXES["CACHES"])._replace(related=related)
    maintenance = MAINTENANCE_STATE_FILES[0]
    installed_at = _installed_at(settings, MAINTENANCE_APP)
    if maintenance.setting not in everything and installed_at:
        line = installed_at
        yield _finding(
            module,
            line,
            f"{maintenance.setting} is not set, so {maintenance.why}",
            FIXES[maintenance.setting],
        )
    import_files = IMPORT_TEMP_FILES[0]
    installed_at = _installed_at(settings, IMPORT_EXPORT_APP)
    # A confirm skipped in settings (IMPORT_EXPORT_SKIP_ADMIN_CONFIRM = True) is read with
    # the code's admins (import_admins.py), as the deploy check reads its value.
    if installed_at and import_files.setting not in everything:
        yield _finding(
            module,
            installed_at,
            f"{import_files.setting} is not set, so {import_files.why}",
            FIXES[import_files.setting],
        )
    compressor_at = _installed_at(settings, COMPRESSOR_APP)
    if compresses and compressor_at and compresses_on_request(settings, everything):
        enabled = settings.get("COMPRESS_ENABLED")
        output = COMPRESSOR_LOCAL_OUTPUT[0]
        line = enabled[-1].lineno if enabled else compressor_at
        # django-compressor's other settings here (precompilers, filters, its root) are
        # what it runs on request: the same cause.
        configured = sorted(
            {
                statement.lineno
                for name, statements in settings.items()
                if name.startswith("COMPRESS_")
                for statement in statements
            }
            - {line}
        )
        yield _finding(
            module, line, f"COMPRESS_OFFLINE is off, so {output.why}", FIXES["COMPRESS_OFFLINE"]
        )._replace(related=tuple(Location(module.path, n) for n in configured))
    if (
        "INSTALLED_APPS" in settings
        and not everything & {"MEDIA_ROOT", "STORAGES", "DEFAULT_FILE_STORAGE"}
        and not any(
            (conditional or {}).get(n) for n in ("MEDIA_ROOT", "STORAGES", "DEFAULT_FILE_STORAGE")
        )
    ):
        # Kept only where the project's models store uploads (the runner drops it otherwise).
        yield _finding(
            module,
            module.decided_at or settings["INSTALLED_APPS"][0].lineno,
            NO_MEDIA_ROOT_MESSAGE,
            FIXES["STORAGES['default']"],
        )
    if "MEDIA_ROOT" in settings and not everything & {"STORAGES", "DEFAULT_FILE_STORAGE"}:
        decided, *others = settings["MEDIA_ROOT"]
        finding = _finding(
            module,
            decided.lineno,
            "MEDIA_ROOT with no STORAGES['default']: uploads go to FileSystemStorage on one "
            "host's disk",
            FIXES["STORAGES['default']"],
        )
        # One folder, assigned again in a branch (a config file's value): one root cause.
        places = [Location(module.path, s.lineno) for s in others]
        # A shared storage chosen only when an option is given (``if USE_S3: STORAGES =
        # …``): the option, its test and the assignment are where the fix goes.
        for setting in ("STORAGES", "DEFAULT_FILE_STORAGE"):
            for statement in (conditional or {}).get(setting, []):
                places += option_places(module, statement.lineno)
        yield finding._replace(related=tuple(dict.fromkeys(places)))


def option_places(module: PythonModule, line: int) -> list[Location]:
    """For a statement on ``line`` inside a top-level ``if OPTION:``: the statement, the
    ``if`` line, and where ``OPTION`` is assigned at the top level (its default)."""
    places = [Location(module.path, line)]
    for branch in module.tree.body:
        if not (isinstance(branch, ast.If) and branch.lineno < line <= (branch.end_lineno or 0)):
            continue
        places.append(Location(module.path, branch.lineno))
        tested = {n.id for n in ast.walk(branch.test) if isinstance(n, ast.Name)}
        places += [
            Location(module.path, statement.lineno)
            for statement in module.tree.body
            if isinstance(statement, ast.Assign)
            and statement.lineno < branch.lineno
            and any(isinstance(t, ast.Name) and t.id in tested for t in statement.targets)
        ]
    return places


def _installed_at(settings: dict[str, list[ast.stmt]], app: str) -> int:
    """The line where this module's ``INSTALLED_APPS`` names ``app`` (or its AppConfig,
    ``"import_export.apps.ImportExportConfig"``), also through the lists it is built from
    (``INSTALLED_APPS = DJANGO_APPS + THIRD_PARTY_APPS``); or 0."""
    statements = list(settings.get("INSTALLED_APPS", []))
    parts = {
        node.id
        for statement in statements
        for node in ast.walk(statement)
        if isinstance(node, ast.Name) and node.id != "INSTALLED_APPS"
    }
    statements += [s for name in sorted(parts) for s in settings.get(name, [])]
    for statement in statements:
        for node in ast.walk(statement):
            value = string_value(node)
            if value == app or (value or "").startswith(f"{app}.apps."):
                return int(getattr(node, "lineno", statement.lineno))
    return 0


def _finding(module: PythonModule, line: int, message: str, fix: str = "") -> Finding:
    """A settings finding at ``line``; a default declared elsewhere (an environment
    schema's ``environ.Env(DB_HOST=(str, ""))``, an importer's ``os.environ.setdefault``)
    has that place related."""
    declared = module.declared_defaults.get(line)
    related = (Location(*declared),) if declared and declared != (module.path, line) else ()
    return Finding(
        module.path, line, "settings", message, module.line(line), related=related, fix_text=fix
    )


# The fix for each setting the audit reports, by the name the catalogue gives it.
FIXES: dict[str, str] = {
    "rosetta": "Edit translations where the code lives and deploy them with it; keep "
    "django-rosetta out of production's INSTALLED_APPS (or in a development settings "
    "module).",
    "PRIVATE_MEDIA_ROOT": "Give the private file fields a storage every instance reads (an "
    "S3 bucket without public access, served through signed URLs), or put "
    "PRIVATE_MEDIA_ROOT on a volume every instance mounts.",
    "HAYSTACK_CONNECTIONS": "Point HAYSTACK_CONNECTIONS at a search server every instance "
    "shares (Elasticsearch, OpenSearch or Solr).",
    "CACHES": "Point CACHES['default'] at the shared Redis (django.core.cache.backends.redis."
    "RedisCache or django-redis) or Memcached; a per-instance alias goes in "
    "HORIZONTAL_LOCAL_CACHES (horizontal.W001-W005).",
    "SESSION_ENGINE": "SESSION_ENGINE = 'horizontal.sessions' (Redis, see docs/sessions.md) or "
    "'django.contrib.sessions.backends.db' (horizontal.W010).",
    "another storage": "Point it at a shared storage, as for uploads: a "
    "horizontal.storage.S3Storage with a bucket or location of its own.",
    "STORAGES['default']": "STORAGES = horizontal.storage.storages_from_env() with "
    "AWS_STORAGE_BUCKET_NAME set, or STORAGES['default'] = {'BACKEND': "
    "'horizontal.storage.S3Storage'} (horizontal.W060).",
    "DATABASES": "Use PostgreSQL or MySQL/MariaDB shared by every instance; make the SQLite "
    "default a development-only branch (horizontal.W030).",
    "CHANNEL_LAYERS": "Use channels_redis.core.RedisChannelLayer on the shared Redis "
    "(horizontal.W040).",
    "TASKS": "Use a worker-backed TASKS backend (e.g. django-tasks-db), or TASKS = {} if "
    "nothing enqueues tasks (horizontal.W041/W042).",
    "INSTALLED_APPS": "Register the work with @job and call 'manage.py runjob NAME' from one "
    "scheduler, or run the scheduler in exactly one process (horizontal.W043/W044).",
    "DJANGO_CRON_LOCK_BACKEND": "Have cron call 'manage.py runjob NAME' (one run per slot) "
    "instead of runcrons (horizontal.W045/W046).",
    "COMPRESS_OFFLINE": "Set COMPRESS_OFFLINE = True and run 'manage.py compress' when the "
    "image is built, after collectstatic; or send the output to storage every instance "
    "shares (COMPRESS_STORAGE, or STORAGES['compressor']) (horizontal.W067).",
    "MAINTENANCE_MODE_STATE_BACKEND": "MAINTENANCE_MODE_STATE_BACKEND = 'maintenance_mode."
    "backends.CacheBackend' (on the shared cache) or '…DefaultStorageBackend' (on S3) "
    "(horizontal.W053).",
    "IMPORT_EXPORT_TMP_STORAGE_CLASS": "IMPORT_EXPORT_TMP_STORAGE_CLASS = 'import_export."
    "tmp_storages.CacheStorage' (on the shared cache) or '…MediaStorage' (on the shared "
    "default storage), or IMPORT_EXPORT_SKIP_ADMIN_CONFIRM = True (horizontal.W055).",
    "LOGGING": "Log to stdout/stderr (logging.StreamHandler) and let the platform collect "
    "every instance's logs (horizontal.W051).",
    "EMAIL_BACKEND": "Use the SMTP backend or your provider's (horizontal.W052).",
    "SECRET_KEY": "Read SECRET_KEY from the environment or a secret store, the same on every "
    "instance, and fail at start-up when it is missing (horizontal.W050).",
    "this host": "Point it at the server every instance shares; a sidecar proxy on "
    "localhost that forwards to it is the exception (say so with an inline ignore).",
    "kept here": "Use a server every instance shares (Redis, RabbitMQ, PostgreSQL) "
    "instead: no proxy reaches a store in one process or one host's file.",
    "HUEY": "Use RedisHuey (or PriorityRedisHuey) on the Redis every instance shares "
    "(horizontal.W048 checks its address).",
    "thumbnails": "Store thumbnails in the shared storage: set the generator's storage "
    "setting to horizontal.storage.S3Storage (or leave it to the default storage).",
    "CRONJOBS": "Register each job with @job and have one scheduler call 'manage.py runjob "
    "NAME' instead of 'crontab add' on every host.",
}
