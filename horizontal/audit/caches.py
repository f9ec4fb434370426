"""cache: memoisation decorators over data that changes (rows, files, responses).

``@lru_cache`` over a pure function is the same on every instance and is not reported.
Over a query it freezes the first answer in one process: an admin edits the row, the
instance that served the edit may drop its memo, the other N-1 keep the old value until
they restart. Module-level memo dicts and lazily loaded globals are handled in ``state``.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from horizontal.audit.effects import reaches_outside
from horizontal.audit.findings import Finding, Location
from horizontal.audit.memo_clears import setting_changed_receivers
from horizontal.audit.patterns import lazy_compile
from horizontal.audit.prefilter import MEMO_SUFFIXES
from horizontal.audit.source import PythonModule, dotted, last_part

MEMO_DECORATORS = frozenset(
    {
        "functools.lru_cache",
        "functools.cache",
        "lru_cache",
        "cache",
        "memoize",
        "memoized",
        "cachetools.cached",
        "cachetools.func.lru_cache",
        "cachetools.func.ttl_cache",
        "cachetools.func.lfu_cache",
        "ttl_cache",
    }
)


def memo_decorator(module: PythonModule, decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    name = module.qualify(target) or ""
    if name in MEMO_DECORATORS:
        # A bare ``@cache`` is functools' only if imported from there.
        return name != "cache" or module.imports.get("cache") == "functools.cache"
    # ``lang_lru_cache``: a project's own wrapper keeps the name's ending.
    short = last_part(name)
    return short in {"lru_cache", "memoize", "memoized", "ttl_cache"} or short.endswith(
        MEMO_SUFFIXES
    )


# An import or ETL job's own code (``importer/base.py``, ``data_loaders/mixins.py``,
# ``legacy_migration.py``): its memo lives as long as one run of the job, in one process.
BATCH_JOB_PART = lazy_compile(
    r"(^|/)(importers?|imports|data_?loaders?|etl\w*|legacy_migrations?)(/|\.py$)", re.I
)


CLEARED_ON_SAVE = (
    "{name}() memoised per process and cleared on save only in the process that saved "
    "the change: the other instances keep the old value until they restart"
)


def find_memoised_reads(module: PythonModule) -> Iterator[Finding]:
    if module.is_script or BATCH_JOB_PART.search(module.path):
        return
    cleared = _cleared_on_save(module) if "cache_clear" in module.text else {}
    stale: list[tuple[int, str]] = []  # (line, name) of memos cleared on save: one cause
    for node in module.nodes(ast.FunctionDef, ast.AsyncFunctionDef):
        assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        decorator = next((d for d in node.decorator_list if memo_decorator(module, d)), None)
        if decorator is None:
            continue
        if node.name in cleared:
            # The project says the memo goes stale when a row changes, and clears it
            # where the change is saved: only in that process.
            stale.append((decorator.lineno, node.name))
            continue
        if _keyed_by_request(node) or _method_of_a_per_request_object(module, node):
            continue  # every request is a new key: the memo never outlives its request
        if _expires_within_a_minute(decorator):
            continue  # ``@memoize(ttl=20)``: as fresh as a cache read, by its own choice
        if _one_reference_row(node) or _row_made_by_its_key(module, node):
            continue  # ``Group.objects.get(name=settings.X)``: a fixed row, looked up once
        outside = reaches_outside(module, node)
        if not outside or (outside == {"network"} and not keyed_by_a_person(node)):
            continue  # what a service publishes (keys, discovery, lists): fetched again
        yield Finding(
            module.path,
            decorator.lineno,
            "cache",
            f"{node.name}() memoises {'/'.join(sorted(outside))} reads per process: "
            "a change made through another instance is never seen here",
            module.line(decorator.lineno),
        )
    if stale:
        (line, _), *others = stale = sorted(stale)
        # The other memos of the same cause, then the lines that clear them on save.
        clears = sorted({clear for _, name in stale for clear in cleared[name]})
        yield Finding(
            module.path,
            line,
            "cache",
            CLEARED_ON_SAVE.format(name="(), ".join(name for _, name in stale)),
            module.line(line),
            related=tuple(Location(module.path, n) for n in [*(o for o, _ in others), *clears]),
        )


def _cleared_on_save(module: PythonModule) -> dict[str, list[int]]:
    """Memos whose ``cache_clear()`` a model signal's receiver (``@receiver(post_save)``,
    a function ``post_save.connect(...)`` names) or a model's ``save``/``delete`` calls,
    to the lines of those calls."""
    connected = set(CONNECTED.findall(module.text))
    # ``@receiver(setting_changed)``: ``override_settings`` in tests sends it, no save.
    tests_only = (
        setting_changed_receivers(module.tree) if "setting_changed" in module.text else set()
    )
    cleared: dict[str, list[int]] = {}
    for function in module.nodes(ast.FunctionDef, ast.AsyncFunctionDef):
        assert isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
        if function.name in tests_only:
            continue
        on_save = (
            function.name in {"save", "delete"}
            or function.name in connected
            or any(
                last_part(dotted(d.func if isinstance(d, ast.Call) else d)) == "receiver"
                for d in function.decorator_list
            )
        )
        if not on_save:
            continue
        for call in ast.walk(function):
            if (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Attribute)
                and call.func.attr == "cache_clear"
            ):
                cleared.setdefault(last_part(dotted(call.func.value)), []).append(call.lineno)
    return cleared


# ``post_save.connect(clear_caches, sender=Service)``: the receiver's name.
CONNECTED = lazy_compile(r"\.connect\(\s*(\w+)")


# A remote answer memoised per process matters where it is a person's data, which they
# change through any instance (``fetch_profile(user_id)``). What a service publishes (a
# signing key by its ``kid``, an OIDC discovery document, a tracker list, a registry
# lookup) is the same on the next fetch: measured on the tuning corpus, eleven such memos
# of network reads alone, none labelled.
PERSON_ARGUMENT = lazy_compile(r"user|account|profile|member|email|person|customer", re.I)


def keyed_by_a_person(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    arguments = [a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)]
    return any(PERSON_ARGUMENT.search(name) for name in arguments)


def _one_reference_row(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A memo with no arguments whose body only returns one row looked up by constants
    (``return Group.objects.get(name=settings.CUSTOMER_GROUP_NAME)``): reference data a
    deployment creates once, the same row on every instance; a miss fetches it again."""
    arguments = node.args
    if arguments.args or arguments.posonlyargs or arguments.kwonlyargs or arguments.vararg:
        return False
    body = [
        s for s in node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
    ]
    if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
        return False
    calls = [n for n in ast.walk(body[0].value) if isinstance(n, ast.Call)]
    # Looked up by a key (``name=…``): a bare ``.first()`` is a singleton's row
    # (``SiteSettings.objects.first()``), read for values an admin edits.
    keyed = [
        c
        for c in calls
        if isinstance(c.func, ast.Attribute)
        and c.func.attr in ROW_LOOKUPS
        and (c.args or c.keywords)
    ]
    return bool(keyed) and all(
        _constant(value)
        for call in calls
        for value in (*call.args, *(k.value for k in call.keywords))
    )


def _row_made_by_its_key(
    module: PythonModule, node: ast.FunctionDef | ast.AsyncFunctionDef
) -> bool:
    """A memo whose only lookups are ``get_or_create`` by the key it is called with, of a
    model of this module that has no field but that key and timestamps (``Province``:
    ``name``, ``created_at``): the row a name stands for, made once and the same wherever
    it is asked for. A row with other fields (a shop's settings) holds what an admin
    edits, and its memo is reported."""
    lookups = [
        n
        for n in ast.walk(node)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr in ROW_LOOKUPS
    ]
    return bool(lookups) and all(_creates_a_whole_row(module, call) for call in lookups)


def _creates_a_whole_row(module: PythonModule, call: ast.Call) -> bool:
    """``Model.objects.get_or_create(k=v, …)`` whose keys are all of ``Model``'s fields."""
    assert isinstance(call.func, ast.Attribute)
    manager = call.func.value
    if call.func.attr != "get_or_create" or call.args or not isinstance(manager, ast.Attribute):
        return False
    model = manager.value.id if isinstance(manager.value, ast.Name) else None
    keys = {k.arg for k in call.keywords}
    if model is None or None in keys or "defaults" in keys:
        return False
    for statement in module.tree.body:
        if isinstance(statement, ast.ClassDef) and statement.name == model:
            return _model_fields(statement) <= keys
    return False


def _model_fields(model: ast.ClassDef) -> set[str | None]:
    """The fields a model class declares, but for timestamps Django fills itself."""
    fields: set[str | None] = set()
    for statement in model.body:
        if not (isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Call)):
            continue
        kind = last_part(dotted(statement.value.func)) or ""
        automatic = any(k.arg in {"auto_now", "auto_now_add"} for k in statement.value.keywords)
        if MODEL_FIELD.search(kind) and not automatic:
            fields.update(t.id for t in statement.targets if isinstance(t, ast.Name))
    return fields


MODEL_FIELD = lazy_compile(r"(Field|ForeignKey|OneToOne\w*|ManyToMany\w*)$")


# The lookups that return one row (``.get(name=…)``, ``.filter(…).first()``).
ROW_LOOKUPS = frozenset({"get", "first", "get_or_create", "translated", "filter"})


def _constant(node: ast.AST) -> bool:
    """A literal, or a setting (``settings.X``): the same on every call and instance."""
    if isinstance(node, ast.Constant):
        return True
    return isinstance(node, ast.Attribute) and dotted(node.value) == "settings"


def _keyed_by_request(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """``@cache def f(request, ...)``: the request object is part of every key."""
    arguments = [*node.args.posonlyargs, *node.args.args]
    if arguments and arguments[0].arg in {"self", "cls"}:
        arguments = arguments[1:]
    return bool(arguments) and arguments[0].arg in {"request", "req"}


# Objects Django and DRF make anew for every request: a class-based view (``as_view()``
# builds one per request), a serializer, a form.
PER_REQUEST_CLASS = lazy_compile(r"(View|ViewSet|Serializer|Form)$")


def _method_of_a_per_request_object(
    module: PythonModule, node: ast.FunctionDef | ast.AsyncFunctionDef
) -> bool:
    """``@functools.cache def get_object(self)`` on a view: ``self`` is in every key, and
    ``self`` lives for one request. A mixin's method that reads ``self.request`` is one
    too, whatever its class is called."""
    arguments = [*node.args.posonlyargs, *node.args.args]
    cls = module.scope(node).cls
    if not arguments or arguments[0].arg != "self" or cls is None:
        return False
    names = [cls.name, *(last_part(dotted(base) or "") for base in cls.bases)]
    return any(PER_REQUEST_CLASS.search(name) for name in names if name) or any(
        isinstance(child, ast.Attribute) and dotted(child) == "self.request"
        for child in ast.walk(node)
    )


# Keywords memo decorators take for their entries' lifetime, in seconds.
LIFETIME_KEYWORDS = frozenset({"ttl", "timeout", "expire", "expires", "seconds", "max_age"})
SHORT_LIFETIME = 60


def _expires_within_a_minute(decorator: ast.expr) -> bool:
    """``@memoize(ttl=20)``, or a cache object given the lifetime
    (``@cached(cache=TTLCache(maxsize=100, ttl=60))``, ``TTLCache(100, 60)``)."""
    for call in ast.walk(decorator):
        if not isinstance(call, ast.Call):
            continue
        lifetimes = [k.value for k in call.keywords if k.arg in LIFETIME_KEYWORDS]
        if (dotted(call.func) or "").endswith("TTLCache") and len(call.args) > 1:
            lifetimes.append(call.args[1])  # cachetools.TTLCache(maxsize, ttl)
        if any(_seconds_within_a_minute(value) for value in lifetimes):
            return True
    return False


def _seconds_within_a_minute(value: ast.expr) -> bool:
    return (
        isinstance(value, ast.Constant)
        and isinstance(value.value, int | float)
        and not isinstance(value.value, bool)
        and value.value <= SHORT_LIFETIME
    )
