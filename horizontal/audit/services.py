"""Task queues and shared services that code (not settings) ties to this host.

``SqliteHuey``/``FileHuey`` keep the queue in a file on one host's disk and
``MemoryHuey`` in one process: consumers elsewhere never see the tasks. A Huey
``@periodic_task`` is enqueued by every consumer's scheduler, so N consumers run it N
times. A client built from ``os.getenv("REDIS_HOST", "localhost")`` (or a
``getattr(settings, "REDIS_URL", "redis://127.0.0.1")``) falls back to a server on this
host when the variable is missing. Settings modules are left to ``settings_modules``,
which reads them as Python runs them.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from horizontal.audit.findings import Finding, Location
from horizontal.audit.patterns import lazy_compile
from horizontal.audit.settings_branches import required_defaults
from horizontal.audit.settings_files import is_settings_path, looks_like_settings
from horizontal.audit.source import PythonModule, call_name, dotted, last_part, string_value
from horizontal.audit.this_host import this_host_addresses

LOCAL_QUEUES = {
    "SqliteHuey": "Huey's SqliteHuey keeps the task queue in a SQLite file on this host",
    "FileHuey": "Huey's FileHuey keeps the task queue in files on this host's disk",
    "MemoryHuey": "Huey's MemoryHuey keeps the task queue in this process's memory",
}
HUEY_PERIODIC = frozenset({"periodic_task", "db_periodic_task"})
HUEY_PERIODIC_MESSAGE = "Huey @"
# ``manage.py run_huey`` with its scheduler on (no ``--no-periodic``/``-n``).
HUEY_CONSUMER_WITH_SCHEDULER = lazy_compile(r"\brun_huey\b(?!.*\s(--no-periodic|-n)\b)")
# Lookups whose second argument (or ``default=``) is what production gets when unset.
ENV_LOOKUPS = frozenset({"getenv", "get", "env", "config", "getattr", "str", "url"})
# The looked-up name says it is a shared service's address (not EMAIL_HOST, not a URL
# of this site).
SERVICE_NAME = lazy_compile(
    r"(REDIS|VALKEY|BROKER|AMQP|RABBIT\w*|MEMCACHED?|CELERY|HUEY|CACHE|DATABASE|DB|"
    r"POSTGRES\w*|PG|MYSQL|MARIADB|ELASTICSEARCH|OPENSEARCH|MONGO\w*|TYPESENSE|MEILI\w*|SOLR|"
    r"HAYSTACK|SEARCH)_?\w*"
    r"(HOST|URL|URI|LOCATION|ADDRESS|SERVER)S?$",
    re.IGNORECASE,
)


def find_local_services(module: PythonModule) -> Iterator[Finding]:
    """On-disk and in-memory Huey queues, Huey periodic tasks, and service clients that
    default to this host (outside settings modules, whose lookups the settings scan
    judges as Python runs them)."""
    settings = is_settings_path(module.path) or looks_like_settings(module.text)
    required = required_defaults(module.tree) if "required=" in module.text else set()
    for call in module.nodes(ast.Call):
        assert isinstance(call, ast.Call)
        if id(call) in required:
            continue  # start-up stops without the variable: the default is never used
        name = last_part(call_name(module, call) or getattr(call.func, "attr", ""))
        if name in LOCAL_QUEUES:
            yield Finding(
                module.path,
                call.lineno,
                "file-write",
                f"{LOCAL_QUEUES[name]}: consumers on other instances never see the tasks",
                module.line(call.lineno),
                fix_text="Use RedisHuey (or PriorityRedisHuey) on the Redis every instance "
                "shares, or move the work to @job + runjob.",
            )
        elif not settings and not module.is_script:
            address = (
                _this_host_default(call)
                or _client_on_this_host(call, name)
                or _celery_conf_update_on_this_host(call)
            )
            if address is not None:
                yield _service_on_this_host(module, call.lineno, address)
    if not module.is_script:
        if not settings and ".conf." in module.text:
            yield from _celery_conf_on_this_host(module)
        yield from _huey_periodic_tasks(module)


def _service_on_this_host(module: PythonModule, line: int, address: str) -> Finding:
    return Finding(
        module.path,
        line,
        "settings",
        f"{address} is this host (written in the code, or the default when the "
        "variable is unset): each instance talks to a server on its own host",
        module.line(line),
        fix_text="Fail when the service address is missing instead of falling "
        "back to localhost; point it at the server every instance shares.",
    )


# A Celery app configured in code rather than from Django's settings.
CELERY_ADDRESS_OPTIONS = frozenset(
    {"broker_url", "result_backend", "broker_read_url", "broker_write_url", "BROKER_URL"}
)


def _celery_conf_update_on_this_host(call: ast.Call) -> str | None:
    """``app.conf.update(broker_url="redis://localhost:6379/0")``."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr == "update"):
        return None
    if last_part(dotted(func.value)) != "conf":
        return None
    for option in call.keywords:
        if option.arg in CELERY_ADDRESS_OPTIONS:
            address = next(this_host_addresses(string_value(option.value)), None)
            if address is not None:
                return address
    return None


def _celery_conf_on_this_host(module: PythonModule) -> Iterator[Finding]:
    """``app.conf.broker_url = "redis://localhost:6379/0"``."""
    for node in module.nodes(ast.Assign):
        assert isinstance(node, ast.Assign)
        for target in node.targets:
            if not (isinstance(target, ast.Attribute) and target.attr in CELERY_ADDRESS_OPTIONS):
                continue
            if last_part(dotted(target.value)) != "conf":
                continue
            address = next(this_host_addresses(string_value(node.value)), None)
            if address is not None:
                yield _service_on_this_host(module, node.lineno, address)


# Clients of shared services, and the arguments that say where the server is.
CLIENTS = frozenset(
    {
        "Redis",
        "StrictRedis",
        "ConnectionPool",
        "from_url",
        "RedisHuey",
        "PriorityRedisHuey",
        "Celery",
        "ConnectionParameters",
        "URLParameters",
        "MongoClient",
        "Elasticsearch",
        "OpenSearch",
    }
)
ADDRESS_ARGUMENTS = frozenset({"host", "url", "broker", "backend", "hosts", "location"})


def _client_on_this_host(call: ast.Call, name: str) -> str | None:
    """``redis.Redis(host="localhost")``, ``Celery(broker="amqp://127.0.0.1//")``: a
    client of a shared service pointed at this host by a literal in the code."""
    if name not in CLIENTS:
        return None
    values = [k.value for k in call.keywords if k.arg in ADDRESS_ARGUMENTS]
    if call.args and name != "Celery":  # Celery's first argument is the app's name
        values.append(call.args[0])
    for value in values:
        items = value.elts if isinstance(value, ast.List | ast.Tuple) else [value]
        for item in items:
            address = next(this_host_addresses(string_value(item)), None)
            if address is not None:
                return address
    return None


def _this_host_default(call: ast.Call) -> str | None:
    """``os.getenv("REDIS_URL", "redis://localhost")``: the this-host default, if any."""
    name = last_part(getattr(call.func, "attr", None) or getattr(call.func, "id", None))
    if name not in ENV_LOOKUPS:
        return None
    arguments = list(call.args)
    looked_up = next((string_value(a) for a in arguments if string_value(a)), None)
    if looked_up is None or not SERVICE_NAME.search(looked_up):
        return None
    defaults = [a for a in arguments if string_value(a) and string_value(a) != looked_up]
    defaults += [k.value for k in call.keywords if k.arg == "default"]
    for default in defaults:
        address = next(this_host_addresses(string_value(default)), None)
        if address is not None:
            return address
    return None


def _huey_periodic_tasks(module: PythonModule) -> Iterator[Finding]:
    """Huey's periodic tasks: one finding per module (every consumer's scheduler enqueues
    them all: one cause, one fix), at the first, the others related."""
    if "periodic_task" not in module.text or "huey" not in module.text:
        return
    found: list[tuple[int, str]] = []
    for function in module.nodes(ast.FunctionDef, ast.AsyncFunctionDef):
        assert isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
        for decorator in function.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            qualified = module.qualify(target) or ""
            if last_part(qualified) in HUEY_PERIODIC and "huey" in qualified:
                found.append((decorator.lineno, last_part(qualified)))
    if not found:
        return
    (line, kind), *others = sorted(found)
    more = f" (and {len(others)} more periodic tasks here)" if others else ""
    yield Finding(
        module.path,
        line,
        "scheduler",
        f"{HUEY_PERIODIC_MESSAGE}{kind} is enqueued by the scheduler of every consumer: with "
        f"a consumer per instance the task runs N times{more}",
        module.line(line),
        related=tuple(Location(module.path, n, module.line(n)) for n, _ in others),
        fix_text="Run one consumer with periodic tasks and the others with "
        "'run_huey --no-periodic', or register the work with @job + runjob.",
    )


def one_huey_schedule(findings: list[Finding], texts: dict[str, list[str]]) -> list[Finding]:
    """A project's Huey periodic tasks are one finding: every consumer that runs its
    scheduler enqueues all of them, so which consumers run it is the one fix. At the first
    module's tasks, with the other modules' and the start lines (Procfile, scripts,
    supervisor programs) that run a consumer with its scheduler related."""
    periodic = sorted(
        f
        for f in findings
        if f.category == "scheduler" and f.message.startswith(HUEY_PERIODIC_MESSAGE)
    )
    if not periodic:
        return findings
    first, *rest = periodic
    consumers = [
        Location(path, number)
        for path, lines in texts.items()
        for number, line in enumerate(lines, start=1)
        if HUEY_CONSUMER_WITH_SCHEDULER.search(line)
    ]
    if not rest and not consumers:
        return findings
    related = [*first.related]
    for other in rest:
        related += [Location(other.path, other.line, other.source), *other.related]
    one = first._replace(related=tuple(dict.fromkeys([*related, *consumers])))
    kept = [f for f in findings if f not in periodic]
    return [*kept, one]
