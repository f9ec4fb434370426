"""The W109 rules for shared services addressed as this host: caches, channel layers,
Celery brokers and result stores, search engines and database servers named as
``localhost``, loopback or a unix socket, literally or as an environment default (and a
database alias with no host at all). Each yields findings with the fix text of
``settings_rules.FIXES``; ``settings_modules`` decides whether production keeps them.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from horizontal.audit import known
from horizontal.audit.env_lookups import empty_default, env_default
from horizontal.audit.findings import Finding, Location
from horizontal.audit.patterns import lazy_compile
from horizontal.audit.settings_branches import explicitly_chosen, static_or_compared
from horizontal.audit.settings_rules import FIXES, SQLITE_URLS, _finding
from horizontal.audit.settings_values import (
    KeyPath,
    address_text,
    module_strings,
    strings_with_paths,
    top_level_settings,
)
from horizontal.audit.source import PythonModule, string_value
from horizontal.audit.this_host import is_kept_here, this_host_addresses

__all__ = ["databases_without_host", "services_on_this_host", "this_host_finding"]

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
# CELERY_BROKER, DB_HOST, MEMCACHED_LOCATION, AWS_S3_ENDPOINT_URL, KAFKA_BOOTSTRAP_SERVERS);
# not EMAIL_HOST, not this site's URL, not an agent every host runs for itself (a statsd or
# tracing agent), not an LDAP directory (an opt-in login source; its default is a
# placeholder far more often than the users' only home).
SERVICE_SETTING = lazy_compile(
    r"^(?!EMAIL_)([A-Z0-9]+_)*(REDIS|VALKEY|BROKER|AMQP|RABBIT\w*|MEMCACHED?|CELERY|HUEY|"
    r"CACHE|DATABASE|DB|POSTGRES\w*|PG|MYSQL|MARIADB|ELASTICSEARCH|ES|OPENSEARCH|MONGO\w*|"
    r"TYPESENSE|MEILI\w*|SOLR|HAYSTACK|SEARCH|S3|MINIO|DBMS|KAFKA|NATS|MQTT|ZOOKEEPER|"
    r"CLICKHOUSE|INFLUX\w*|NEO4J|CASSANDRA|QDRANT|WEAVIATE|MILVUS)"
    r"(_\w+)?_(HOST|URL|URI|LOCATION|ADDRESS|SERVER|CONNECTION|CONFIG)S?$|^SESSION_REDIS$"
    # Elasticsearch by its short name (``ELASTIC_URI``, ``ELASTIC6_URI``), not Elastic's
    # other products (``ELASTIC_APM_SERVER_URL``: an agent, often per host).
    r"|^ELASTIC\d*_(HOST|URL|URI)S?$"
)
# Celery brokers and result stores kept in files on this host.
FILE_TRANSPORTS = ("filesystem://", "sqla+sqlite:", "db+sqlite:", "sqlite:")
BROKER_SETTINGS = ("CELERY_BROKER_URL", "CELERY_RESULT_BACKEND")
# An empty broker URL is Celery's default broker (on this host); an empty result backend
# is no result backend.
DEFAULTING_BROKERS = ("CELERY_BROKER_URL", "BROKER_URL")

# Engines of database servers (not SQLite): with no HOST they use this host's socket.
SERVER_ENGINES = ("postgresql", "postgis", "mysql", "oracle")


def _database_aliases(module: PythonModule) -> Iterator[tuple[ast.Assign, ast.Dict]]:
    """Each alias dict of a ``DATABASES = {...}`` literal the module runs at import time,
    under ``if``/``try`` too (``if "DATABASE_URL" in env: … else: DATABASES = {…}``), with
    its statement."""
    for statement in top_level_settings(module).get("DATABASES", []):
        if (
            isinstance(statement, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "DATABASES" for t in statement.targets)
            and isinstance(statement.value, ast.Dict)
        ):
            yield from ((statement, v) for v in statement.value.values if isinstance(v, ast.Dict))


# A file cache's LOCATION is its folder, a LocMem cache's a name: no server's address (the
# backend itself is the finding, settings_rules').
LOCAL_CACHE_BACKENDS = frozenset(known.paths((*known.FILE_CACHES, *known.LOCMEM_CACHES)))


def _cache_folders(module: PythonModule) -> Iterator[int]:
    """The ids of the nodes under ``LOCATION`` of each ``CACHES`` alias whose backend
    keeps its entries on this host."""
    for statement in top_level_settings(module).get("CACHES", []):
        value = getattr(statement, "value", None)
        if not isinstance(value, ast.Dict):
            continue
        targets = getattr(statement, "targets", [getattr(statement, "target", None)])
        # ``CACHES["uploads"] = {"BACKEND": "…FileBasedCache", "LOCATION": "/tmp/…"}``:
        # the value is one alias, not the mapping of aliases.
        one_alias = any(isinstance(t, ast.Subscript) for t in targets)
        for alias in [value] if one_alias else value.values:
            if not isinstance(alias, ast.Dict):
                continue
            values = _alias_values(alias)
            location = values.get("LOCATION")
            if location is not None and string_value(values.get("BACKEND")) in (
                LOCAL_CACHE_BACKENDS
            ):
                yield from (id(node) for node in ast.walk(location))


def _alias_values(alias: ast.Dict) -> dict[str, ast.expr]:
    return {
        name: value
        for key, value in zip(alias.keys, alias.values, strict=True)
        if key is not None and (name := string_value(key)) is not None
    }


def _this_host_default(value: ast.expr | None) -> bool:
    """``os.environ.get("POSTGRES_HOST", "localhost")``: a default naming this host."""
    if value is None:
        return False
    default = env_default(value)
    text = string_value(default) if default is not None else string_value(value)
    return bool(text) and next(this_host_addresses(text), None) is not None


def _engine(value: ast.expr | None, names: dict[str, tuple[str, int]]) -> str:
    """An alias's ENGINE, or its environment default (``env.str("DB_ENGINE",
    default="django.db.backends.sqlite3")``), also through a top-level name (``"django.db.
    backends." + db_backend`` with ``db_backend = config.get(…, fallback="sqlite3")``):
    what a deployment that sets nothing gets."""
    if value is None:
        return ""
    default = env_default(value)
    found = string_value(value) or (string_value(default) if default is not None else None)
    return found or address_text(value, names)[0]


def _unnamed(value: ast.expr | None) -> bool:
    """A ``NAME`` that is empty, literally or as its environment default: the alias is a
    template the deployment fills in whole (Django refuses an empty database name)."""
    return value is not None and (string_value(value) == "" or empty_default(value))


def databases_without_host(module: PythonModule) -> Iterator[Finding]:
    """A server database alias written out with no ``HOST`` (or ``"HOST": ""``): libpq and
    MySQL's client then use this host's socket (``{"ENGINE": "…postgresql", "NAME": "app"}``)."""
    ignored = static_or_compared(module.tree)
    for statement, alias in _database_aliases(module):
        if id(alias) in ignored or None in alias.keys:  # ``**base``: the host may be there
            continue
        values = _alias_values(alias)
        engine = string_value(values.get("ENGINE")) or ""
        written_host = "HOST" in values and string_value(values["HOST"]) != ""
        if written_host or not engine.endswith(SERVER_ENGINES):
            continue  # (``"HOST": ""`` is no host written: the socket, as without one)
        if "NAME" not in values or _unnamed(_resolved(module, values["NAME"])):
            continue  # no database named: a template other modules fill in
        # ``"HOST": ""`` written out is the line a fix changes; the alias (and the
        # assignment, when the alias sits lower) are where the setting is decided.
        written = values.get("HOST")
        line = written.lineno if written is not None else alias.lineno
        finding = _finding(
            module,
            line,
            "DATABASES: no HOST, which is the database server on this host (its local socket):"
            " each instance talks to its own server",
            FIXES["this host"],
        )
        places = dict.fromkeys(n for n in (alias.lineno, statement.lineno) if n != line)
        yield finding._replace(related=tuple(Location(module.path, n) for n in places))


# Variables the platform sets for a linked service: Docker's legacy links
# (``POSTGRESQL_PORT_5432_TCP_ADDR``), Kubernetes' service variables (``DB_SERVICE_HOST``).
PLATFORM_ADDRESS = lazy_compile(r"_PORT_\d+_TCP_ADDR$|_SERVICE_HOST$")


def _single_binding(module: PythonModule, name: str) -> ast.expr | None:
    """The value of a top-level name bound once and never tested (``if not DB_HOST:``,
    ``DB_HOST or "db"``): what every deployment gets. None when it is bound again, in
    any branch, or tested, or not bound here."""
    values: list[ast.expr | None] = []
    tested = False
    pending: list[ast.AST] = list(module.tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        if isinstance(node, ast.Assign) and any(_names(t, name) for t in node.targets):
            values.append(node.value)
        elif isinstance(node, ast.AnnAssign | ast.AugAssign) and _names(node.target, name):
            values.append(node.value if isinstance(node, ast.AnnAssign) else None)
        elif isinstance(node, ast.If | ast.While | ast.IfExp | ast.Assert):
            tested = tested or any(_names(n, name) for n in ast.walk(node.test))
        elif isinstance(node, ast.BoolOp):
            tested = tested or any(_names(n, name) for n in node.values)
        pending.extend(ast.iter_child_nodes(node))
    return values[0] if len(values) == 1 and not tested else None


def _names(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _resolved(module: PythonModule, value: ast.expr | None) -> ast.expr | None:
    """A name's single binding, or the value itself."""
    if isinstance(value, ast.Name):
        return _single_binding(module, value.id)
    return value


def _empty_host(module: PythonModule, node: ast.AST) -> ast.AST | None:
    """Where a ``HOST`` is left empty by default, or None: an environment lookup whose
    default is empty, written in the alias or bound once to a top-level name
    (``POSTGRES_HOST = os.environ.get("POSTGRES_HOST", "")`` … ``"HOST": POSTGRES_HOST``; a
    name bound to ``""``); not when a lookup falls back on a variable the platform sets
    for a linked service."""
    if isinstance(node, ast.Name):
        bound = _single_binding(module, node.id)
        if bound is None:
            return None
        if string_value(bound) == "":
            return bound
        node = bound
    platform = any(PLATFORM_ADDRESS.search(string_value(child) or "") for child in ast.walk(node))
    return node if empty_default(node) and not platform else None


def services_on_this_host(module: PythonModule) -> Iterator[Finding]:
    """A cache, channel layer or Celery broker/result store addressed as this host
    (``localhost``, loopback, a unix socket), the literal or an environment default."""
    ignored = static_or_compared(module.tree)
    # An alias whose NAME is empty too is a template, its empty HOST no address; SQLite
    # ignores HOST (the file is the finding, sqlite_by_default's). A NAME read from the
    # environment with an empty default is one the deployment must set, while a HOST
    # written as ``localhost`` beside it is what it gets unless it sets that too.
    names = module_strings(module)
    for _, alias in _database_aliases(module):
        values = _alias_values(alias)
        engine = _engine(values.get("ENGINE"), names)
        name = values.get("NAME")
        template = _unnamed(_resolved(module, name)) and not _this_host_default(values.get("HOST"))
        if string_value(name) == "" or engine.endswith("sqlite3") or template:
            ignored.update(id(node) for node in ast.walk(alias))
    ignored.update(_cache_folders(module))
    chosen = explicitly_chosen(module.tree)
    seen: set[int] = set()
    # This host's addresses by the line that decides them, with the settings built there
    # from a name bound on that line (``f"redis://{REDIS_HOST}:6379/0"``): related.
    decided: dict[int, Finding] = {}
    users: dict[int, list[Location]] = {}
    for node, path in strings_with_paths(module):
        if id(node) in ignored:
            continue
        setting = _service_setting(path)
        if setting is None:
            continue
        # The name as the module writes it (Celery's old ``BROKER_URL``), which the rules
        # read as its new one.
        named = path[0] if len(path) == 1 else setting
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
        host = setting == "DATABASES" and path[2:] == ("HOST",)
        empty = _empty_host(module, node) if host else None
        if empty is not None:
            if isinstance(node, ast.Name):
                line = getattr(empty, "lineno", line)  # where the name is decided
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
            and not _filled_when_empty(module, node)
            and line not in seen
        ):
            # Celery given no broker connects to its default, amqp://guest@localhost//.
            seen.add(line)
            yield _finding(
                module,
                line,
                f"{named}: empty, so Celery uses its default broker amqp://guest@localhost//"
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
                    f"{named}: {text.split(':', 1)[0]} keeps the queue in a file on this "
                    "host: workers elsewhere never see it",
                    FIXES["kept here"],
                )
            continue
        if _url_path(setting, text) or text.isdigit():
            continue  # (``"0"``: a number, such as CONN_MAX_AGE's default, is no address)
        address = next(this_host_addresses(text), None)
        if address is None:
            continue
        own = getattr(node, "lineno", line)
        if not own <= line <= (getattr(node, "end_lineno", None) or own):
            users.setdefault(line, []).append(Location(module.path, own))
        if line not in seen:
            # The first setting read at the deciding line names the finding (the same name
            # the importing modules' findings of that address carry, so they fold as one).
            seen.add(line)
            decided[line] = this_host_finding(module, line, named, address)
    for line, finding in decided.items():
        places = tuple(dict.fromkeys(p for p in users.get(line, ()) if p.line != line))
        yield finding._replace(related=(*finding.related, *places)) if places else finding


def this_host_finding(module: PythonModule, line: int, setting: str, address: str) -> Finding:
    """``REDIS_URL: localhost:6379 is this host``, with the fix for a shared service; a
    store in this process or a file (``memory://``, ``db+sqlite:///…``) has no server to
    talk to, nor one a proxy could reach."""
    if is_kept_here(address):
        return _finding(
            module,
            line,
            f"{setting}: {address} keeps its data in this process or a file on this host: "
            "each instance has its own",
            FIXES["kept here"],
        )
    return _finding(
        module,
        line,
        f"{setting}: {address} is this host: each instance talks to its own server",
        FIXES["this host"],
    )


def _url_path(setting: str, text: str) -> bool:
    """``CONTENT_DATABASE_URL = "/content/databases/"``: a URL's path on this site (what
    a URL setting holds when it has no scheme), not a socket, which is a file."""
    return (
        setting.endswith(("_URL", "_URI"))
        and text.startswith("/")
        and not text.endswith((".sock", ".socket"))
    )


def _empty_directly(node: ast.AST) -> bool:
    """``""`` itself or an environment lookup defaulting to it: not a fallback chain
    (``os.getenv(...) or ""``, ``x if x else build_url(...)``) whose other arm decides."""
    return string_value(node) == "" or empty_default(node)


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


def _filled_when_empty(module: PythonModule, value: ast.AST) -> bool:
    """``BROKER_URL = os.environ.get("BROKER_URL", "")`` then ``if BROKER_URL == "":
    BROKER_URL = "amqp://…"`` (or ``if BROKER_URL: … else: BROKER_URL = …``): the empty
    value is replaced when it is empty, so it is no default the process keeps (what fills
    it is judged as a value of its own)."""
    names = {
        target.id
        for statement in module.tree.body
        if isinstance(statement, ast.Assign) and statement.value is value
        for target in statement.targets
        if isinstance(target, ast.Name)
    }
    for statement in module.tree.body:
        if not isinstance(statement, ast.If):
            continue
        when_empty = _branch_when_empty(statement, names)
        if when_empty and any(
            isinstance(n, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id in names for t in n.targets)
            for branch in when_empty
            for n in ast.walk(branch)
        ):
            return True
    return False


def _branch_when_empty(statement: ast.If, names: set[str]) -> list[ast.stmt]:
    """The statements an ``if`` runs when one of ``names`` is empty: its body for ``not
    X``, ``X == ""``, ``X is None``; its ``else`` for ``X``, ``X != ""``; none otherwise."""
    test = statement.test
    if isinstance(test, ast.Name) and test.id in names:
        return statement.orelse
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        operand = test.operand
        return statement.body if isinstance(operand, ast.Name) and operand.id in names else []
    if (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id in names
        and len(test.ops) == 1
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value in ("", None)
    ):
        if isinstance(test.ops[0], ast.Eq | ast.Is):
            return statement.body
        if isinstance(test.ops[0], ast.NotEq | ast.IsNot):
            return statement.orelse
    return []


def _assigned_whole(module: PythonModule) -> set[int]:
    """``id()`` of each top-level assignment's whole value (not a part of an expression)."""
    return {id(s.value) for s in module.tree.body if isinstance(s, ast.Assign)}


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
    if path[:1] == ("DATABASES",) and (len(path) <= 2 or path[2:] == ("HOST",)):
        # A whole alias built from a URL, or its HOST; the whole setting from one URL
        # (django-configurations' ``DATABASES = values.DatabaseURLValue(url)``).
        return "DATABASES"
    return None


def _matches(path: KeyPath, pattern: KeyPathPattern) -> bool:
    return len(path) >= len(pattern) and all(
        want in ("*", have) for want, have in zip(pattern, path, strict=False)
    )
