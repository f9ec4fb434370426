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
from collections.abc import Iterator

from horizontal.audit.findings import Finding, Location
from horizontal.audit.known import (
    CACHE_URL_CONFIGS,
    CATALOGUE,
    LOCMEM_CACHE_URL,
    LOCMEM_CACHES,
    MAINTENANCE_APP,
    MAINTENANCE_STATE_FILES,
    ON_DISK_QUEUES,
    RANDOM_VALUE_CALLS,
    SingleBox,
    this_host_addresses,
)
from horizontal.audit.patterns import lazy_compile
from horizontal.audit.settings_branches import explicitly_chosen, static_or_compared
from horizontal.audit.settings_values import (
    KeyPath,
    address_text,
    env_default,
    module_strings,
    strings_with_paths,
    value_paths,
)
from horizontal.audit.source import PythonModule, call_name, last_part, string_value

__all__ = [
    "FIXES",
    "bad_backends",
    "crontab_jobs",
    "databases_without_host",
    "find_config_secret_keys",
    "generated_secret_key",
    "implicit_defaults",
    "random_value_line",
    "services_on_this_host",
    "sqlite_by_default",
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

# A key path with "*" for any alias.
KeyPathPattern = tuple[str, ...]
# Where settings name a shared service's address (the deploy checks' W004/W026/W048).
SERVICE_ADDRESSES: tuple[tuple[KeyPathPattern, str], ...] = (
    (("CACHES", "*", "LOCATION"), "CACHES"),
    (("CHANNEL_LAYERS", "*", "CONFIG", "hosts"), "CHANNEL_LAYERS"),
    (("CELERY_BROKER_URL",), "CELERY_BROKER_URL"),
    (("BROKER_URL",), "CELERY_BROKER_URL"),
    (("CELERY_RESULT_BACKEND",), "CELERY_RESULT_BACKEND"),
    (("HUEY", "connection"), "HUEY"),
    (("RQ_QUEUES", "*"), "RQ_QUEUES"),
    (("Q_CLUSTER", "redis"), "Q_CLUSTER"),
    # django-elasticsearch-dsl's connections: {"default": {"hosts": "localhost:9200"}}.
    (("ELASTICSEARCH_DSL", "*", "hosts"), "ELASTICSEARCH_DSL"),
    (("OPENSEARCH_DSL", "*", "hosts"), "OPENSEARCH_DSL"),
    # A whole alias built from a URL: env.cache("CACHE_URL", default=…).
    (("CACHES", "*"), "CACHES"),
)
# A top-level setting whose name says it is a shared service's address (REDIS_URL,
# CELERY_BROKER, DB_HOST, MEMCACHED_LOCATION); not EMAIL_HOST, not this site's URL.
SERVICE_SETTING = lazy_compile(
    r"^(?!EMAIL_)([A-Z0-9]+_)*(REDIS|VALKEY|BROKER|AMQP|RABBIT\w*|MEMCACHED?|CELERY|HUEY|"
    r"CACHE|DATABASE|DB|POSTGRES\w*|PG|MYSQL|MARIADB|ELASTICSEARCH|ES|OPENSEARCH|MONGO\w*|"
    r"TYPESENSE|MEILI\w*|SOLR|HAYSTACK|SEARCH)"
    r"(_\w+)?_(HOST|URL|URI|LOCATION|ADDRESS|SERVER|CONNECTION|CONFIG)S?$|^SESSION_REDIS$"
)
# Celery brokers and result stores kept in files on this host.
FILE_TRANSPORTS = ("filesystem://", "sqla+sqlite:", "db+sqlite:", "sqlite:")
BROKER_SETTINGS = ("CELERY_BROKER_URL", "CELERY_RESULT_BACKEND")
# An empty broker URL is Celery's default broker (on this host); an empty result backend
# is no result backend.
DEFAULTING_BROKERS = ("CELERY_BROKER_URL", "BROKER_URL")
SQLITE_FILE = (".sqlite3", ".sqlite", ".db")
SQLITE_URLS = ("sqlite:", "spatialite:")


def bad_backends(
    module: PythonModule, local_storages: frozenset[str] = frozenset()
) -> Iterator[Finding]:
    """Backend strings that only work on one box, wherever the module puts them.

    Settings are often built in helpers (``config = {...}``; ``def setup_database()``)
    or as a default (``os.getenv("DB_ENGINE") or "...sqlite3"``), so the string itself is
    the evidence, not the statement. Comparisons and static-files storage are not.
    """
    ignored = static_or_compared(module.tree)
    chosen = explicitly_chosen(module.tree)
    paths = value_paths(module) if "THUMBNAIL" in module.text or "IMAGEKIT" in module.text else {}
    for node in ast.walk(module.tree):
        text = string_value(node)
        if text is None or id(node) in ignored:
            continue
        match = BACKEND_PROBLEMS.get(text)
        if match is None and text.startswith(LOCMEM_CACHE_URL):
            match = LOCMEM_CACHES[0]
        if match is None and (LOCAL_STORAGE_CLASS.search(text) or text in local_storages):
            match = LOCAL_STORAGE_SUBCLASS
        if match is not None and any(word in text for word in chosen.get(id(node), ())):
            continue  # the operator named this backend (``elif scheme == "sqlite":``)
        if match is None:
            continue
        line = getattr(node, "lineno", 1)
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
        yield _finding(module, line, f"{match.setting}: {match.why}", FIXES.get(match.setting, ""))
    yield from _cache_url_configs_without_default(module, ignored)


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


# Engines of database servers (not SQLite): with no HOST they use this host's socket.
SERVER_ENGINES = ("postgresql", "postgis", "mysql", "oracle")


def _database_aliases(module: PythonModule) -> Iterator[ast.Dict]:
    """Each alias dict of a top-level ``DATABASES = {...}`` literal."""
    for statement in module.tree.body:
        if (
            isinstance(statement, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "DATABASES" for t in statement.targets)
            and isinstance(statement.value, ast.Dict)
        ):
            yield from (v for v in statement.value.values if isinstance(v, ast.Dict))


def _alias_values(alias: ast.Dict) -> dict[str, ast.expr]:
    return {
        name: value
        for key, value in zip(alias.keys, alias.values, strict=True)
        if key is not None and (name := string_value(key)) is not None
    }


def _unnamed(value: ast.expr | None) -> bool:
    """A ``NAME`` that is empty, literally or as its environment default: the alias is a
    template the deployment fills in whole (Django refuses an empty database name)."""
    return value is not None and (string_value(value) == "" or _empty_default(value))


def databases_without_host(module: PythonModule) -> Iterator[Finding]:
    """A server database alias written out with no ``HOST``: libpq and MySQL's client then
    use this host's socket (``{"ENGINE": "…postgresql", "NAME": "app"}``)."""
    ignored = static_or_compared(module.tree)
    for alias in _database_aliases(module):
        if id(alias) in ignored or None in alias.keys:  # ``**base``: the host may be there
            continue
        values = _alias_values(alias)
        engine = string_value(values.get("ENGINE")) or ""
        if "HOST" in values or not engine.endswith(SERVER_ENGINES):
            continue
        if "NAME" not in values or _unnamed(values["NAME"]):
            continue  # no database named: a template other modules fill in
        yield _finding(
            module,
            alias.lineno,
            "DATABASES: no HOST, which is the database server on this host (its local socket):"
            " each instance talks to its own server",
            FIXES["this host"],
        )


def services_on_this_host(module: PythonModule) -> Iterator[Finding]:
    """A cache, channel layer or Celery broker/result store addressed as this host
    (``localhost``, loopback, a unix socket), the literal or an environment default."""
    ignored = static_or_compared(module.tree)
    # An alias whose NAME is empty too is a template, its empty HOST no address.
    for alias in _database_aliases(module):
        if _unnamed(_alias_values(alias).get("NAME")):
            ignored.update(id(node) for node in ast.walk(alias))
    chosen = explicitly_chosen(module.tree)
    names = module_strings(module)
    seen: set[int] = set()
    for node, path in strings_with_paths(module):
        if id(node) in ignored:
            continue
        setting = _service_setting(path)
        if setting is None:
            continue
        if _database_setting(setting):
            text, line = address_text(node, names)
            asked_for = any(word in text for word in chosen.get(id(node), ()))
            if text.lower().startswith(SQLITE_URLS) and not asked_for and line not in seen:
                seen.add(line)
                yield _finding(
                    module,
                    line,
                    f"{setting}: {text.split(':', 1)[0]} URL: SQLite is a file on one host: "
                    "each instance would have its own database",
                    FIXES["DATABASES"],
                )
                continue
        if setting == "DATABASES" and string_value(node) is not None and path[2:] != ("HOST",):
            # Other literal parts of an alias are no address (W030 judges the engine); a
            # literal HOST is what production gets, as much as an environment default.
            continue
        text, line = address_text(node, names)
        if setting == "DATABASES" and path[2:] == ("HOST",) and _empty_default(node):
            # In a branch an option chose (``if os.getenv("DB") == "postgres":``) the
            # operator configures the server; left to the default, it is this host's.
            if line not in seen and id(node) not in chosen:
                seen.add(line)
                yield _finding(
                    module,
                    line,
                    "DATABASES: HOST defaults to empty, which is the database server on this "
                    "host (its local socket): each instance talks to its own server",
                    FIXES["this host"],
                )
            continue
        if (
            setting in DEFAULTING_BROKERS
            and text == ""
            and _empty_directly(node)
            and id(node) in _assigned_whole(module)
            and not _eager_without_broker(module, setting)
            and line not in seen
        ):
            # Celery given no broker connects to its default, amqp://guest@localhost//.
            seen.add(line)
            yield _finding(
                module,
                line,
                f"{setting}: empty, so Celery uses its default broker amqp://guest@localhost//"
                " on this host: each instance talks to its own server",
                FIXES["this host"],
            )
            continue
        if setting in BROKER_SETTINGS and text.lower().startswith(FILE_TRANSPORTS):
            if line not in seen:
                seen.add(line)
                yield _finding(
                    module,
                    line,
                    f"{setting}: {text.split(':', 1)[0]} keeps the queue in a file on this "
                    "host: workers elsewhere never see it",
                    FIXES["this host"],
                )
            continue
        address = next(this_host_addresses(text), None)
        if address is not None and line not in seen:
            seen.add(line)
            yield _finding(
                module,
                line,
                f"{setting}: {address} is this host: each instance talks to its own server",
                FIXES["this host"],
            )


def _empty_directly(node: ast.AST) -> bool:
    """``""`` itself or an environment lookup defaulting to it: not a fallback chain
    (``os.getenv(...) or ""``, ``x if x else build_url(...)``) whose other arm decides."""
    return string_value(node) == "" or _empty_default(node)


def _eager_without_broker(module: PythonModule, setting: str) -> bool:
    """``CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL``: with no broker, tasks run in
    the request's process, and no broker is asked for."""
    for statement in module.tree.body:
        if not isinstance(statement, ast.Assign):
            continue
        eager = any(
            isinstance(t, ast.Name) and t.id.endswith("ALWAYS_EAGER") for t in statement.targets
        )
        if eager and any(
            isinstance(n, ast.Name) and n.id == setting for n in ast.walk(statement.value)
        ):
            return True
    return False


def _assigned_whole(module: PythonModule) -> set[int]:
    """``id()`` of each top-level assignment's whole value (not a part of an expression)."""
    return {id(s.value) for s in module.tree.body if isinstance(s, ast.Assign)}


def _empty_default(node: ast.AST) -> bool:
    default = env_default(node)
    return isinstance(default, ast.Constant) and default.value == ""


def sqlite_by_default(module: PythonModule) -> Iterator[Finding]:
    """``"ENGINE": "django.db.backends." + backend`` with a ``NAME`` whose default is a
    SQLite file (``fallback=DATA_DIR / "db.sqlite3"``): the engine is chosen at run time
    and, unconfigured, it is SQLite. A literal engine is judged as a backend instead."""
    names = module_strings(module)
    ignored = static_or_compared(module.tree)
    literal_engines: set[str] = set()
    sqlite_names: list[tuple[str, int]] = []
    for node, path in strings_with_paths(module):
        if len(path) != 3 or path[0] != "DATABASES" or id(node) in ignored:
            continue
        if path[2] == "ENGINE":
            engine, _ = address_text(node, names)
            if not engine.endswith(".x"):  # known whole, not "django.db.backends." + name
                literal_engines.add(path[1])
        elif path[2] == "NAME":
            text, line = address_text(node, names)
            if text.lower().endswith(SQLITE_FILE):
                sqlite_names.append((path[1], line))
    for alias, line in sqlite_names:
        if alias not in literal_engines:
            yield _finding(
                module,
                line,
                "DATABASES: the engine is chosen at run time and its default NAME is a "
                "SQLite file: unconfigured, each instance has its own database",
                FIXES["DATABASES"],
            )


def _database_setting(setting: str) -> bool:
    return (
        setting == "DATABASES" or setting.startswith(("DATABASE", "DB_")) or "_DATABASE_" in setting
    )


def _service_setting(path: KeyPath) -> str | None:
    for pattern, setting in SERVICE_ADDRESSES:
        if _matches(path, pattern):
            return setting
    if SERVICE_SETTING.match(path[0]) and (
        len(path) == 1 or path[-1].lower() in {"host", "hosts", "url", "location", "address"}
    ):
        return path[0]
    if path[:1] == ("DATABASES",) and (len(path) == 2 or path[2:] == ("HOST",)):
        return "DATABASES"  # a whole alias built from a URL, or its HOST
    return None


def _matches(path: KeyPath, pattern: KeyPathPattern) -> bool:
    return len(path) >= len(pattern) and all(
        want in ("*", have) for want, have in zip(pattern, path, strict=False)
    )


def random_value_line(
    module: PythonModule,
    statement: ast.AST,
    calls: frozenset[str] = RANDOM_VALUE_CALLS,
    depth: int = 0,
) -> int | None:
    """The line of the first call in ``statement`` that makes a fresh random value,
    following calls to the module's own functions (``SECRET_KEY = _load_or_create()``)
    two levels deep; for such a call, the line of the call in ``statement``."""
    for node in ast.walk(statement):
        if not isinstance(node, ast.Call):
            continue
        name = call_name(module, node)
        if name is None and isinstance(node.func, ast.Attribute):
            name = node.func.attr  # random.SystemRandom().choice: the receiver is a call
        if last_part(name) in calls:
            return node.lineno
        if depth < 2 and isinstance(node.func, ast.Name):
            for function in module.functions.get(node.func.id, []):
                if module.scope(function).function is None and random_value_line(
                    module, function, calls, depth + 1
                ):
                    return node.lineno
    return None


def generated_secret_key(module: PythonModule, statement: ast.stmt) -> Iterator[Finding]:
    line = random_value_line(module, statement)
    if line is not None:
        yield _finding(
            module,
            line,
            "SECRET_KEY is generated at start-up: each instance signs sessions, CSRF and "
            "reset tokens with a different key",
            FIXES["SECRET_KEY"],
        )


def find_config_secret_keys(module: PythonModule) -> Iterator[Finding]:
    """A configuration class whose ``SECRET_KEY`` field defaults to a fresh random value
    (``SECRET_KEY: str = Field(default_factory=lambda: get_random_string(50))`` in a
    pydantic settings model, a dataclass field): each instance that does not set it makes
    its own. Top-level assignments in settings modules are judged with the settings."""
    for node in module.nodes(ast.AnnAssign, ast.Assign):
        assert isinstance(node, ast.AnnAssign | ast.Assign)
        scope = module.scope(node)
        if scope.cls is None or scope.function is not None or node.value is None:
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        if not any(isinstance(t, ast.Name) and t.id == "SECRET_KEY" for t in targets):
            continue
        line = random_value_line(module, node.value)
        if line is not None:
            yield _finding(
                module,
                line,
                f"SECRET_KEY of {scope.cls.name} defaults to a value generated at start-up: "
                "each instance that does not set it signs with its own key",
                FIXES["SECRET_KEY"],
            )


def crontab_jobs(module: PythonModule, statement: ast.stmt) -> Finding:
    return _finding(
        module,
        statement.lineno,
        "CRONJOBS (django-crontab) is installed into the crontab of every host that "
        "runs 'crontab add'",
        FIXES["CRONJOBS"],
    )


def implicit_defaults(
    module: PythonModule,
    settings: dict[str, list[ast.stmt]],
    everything: set[str],
    uses_cache: bool,
    conditional: dict[str, list[ast.stmt]] | None = None,
) -> Iterator[Finding]:
    """What Django chooses for a setting no production module sets (``everything``):
    ``LocMemCache`` for a missing ``CACHES``, local disk for a missing storage.
    ``conditional``: every assignment, including those in branches that are off when
    nothing is set; a setting assigned only there is reported at that assignment."""
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
    if "MEDIA_ROOT" in settings and not everything & {"STORAGES", "DEFAULT_FILE_STORAGE"}:
        line = settings["MEDIA_ROOT"][0].lineno
        yield _finding(
            module,
            line,
            "MEDIA_ROOT with no STORAGES['default']: uploads go to FileSystemStorage on one "
            "host's disk",
            FIXES["STORAGES['default']"],
        )


def _installed_at(settings: dict[str, list[ast.stmt]], app: str) -> int:
    """The line where this module's ``INSTALLED_APPS`` names ``app``, or 0."""
    for statement in settings.get("INSTALLED_APPS", []):
        for node in ast.walk(statement):
            if string_value(node) == app:
                return int(getattr(node, "lineno", statement.lineno))
    return 0


def _finding(module: PythonModule, line: int, message: str, fix: str = "") -> Finding:
    return Finding(module.path, line, "settings", message, module.line(line), fix_text=fix)


# The fix for each setting the audit reports, by the name the catalogue gives it.
FIXES: dict[str, str] = {
    "CACHES": "Point CACHES['default'] at the shared Redis (django.core.cache.backends.redis."
    "RedisCache or django-redis) or Memcached; a per-instance alias goes in "
    "HORIZONTAL_LOCAL_CACHES (horizontal.W001-W005).",
    "SESSION_ENGINE": "SESSION_ENGINE = 'horizontal.sessions' (Redis, see docs/sessions.md) or "
    "'django.contrib.sessions.backends.db' (horizontal.W010).",
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
    "MAINTENANCE_MODE_STATE_BACKEND": "MAINTENANCE_MODE_STATE_BACKEND = 'maintenance_mode."
    "backends.CacheBackend' (on the shared cache) or '…DefaultStorageBackend' (on S3) "
    "(horizontal.W053).",
    "LOGGING": "Log to stdout/stderr (logging.StreamHandler) and let the platform collect "
    "every instance's logs (horizontal.W051).",
    "EMAIL_BACKEND": "Use the SMTP backend or your provider's (horizontal.W052).",
    "SECRET_KEY": "Read SECRET_KEY from the environment or a secret store, the same on every "
    "instance, and fail at start-up when it is missing (horizontal.W050).",
    "this host": "Point it at the server every instance shares; a sidecar proxy on "
    "localhost that forwards to it is the exception (say so with an inline ignore).",
    "HUEY": "Use RedisHuey (or PriorityRedisHuey) on the Redis every instance shares "
    "(horizontal.W048 checks its address).",
    "thumbnails": "Store thumbnails in the shared storage: set the generator's storage "
    "setting to horizontal.storage.S3Storage (or leave it to the default storage).",
    "CRONJOBS": "Register each job with @job and have one scheduler call 'manage.py runjob "
    "NAME' instead of 'crontab add' on every host.",
}
