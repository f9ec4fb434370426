"""Celery configured in the project's code rather than its settings (``horizontal.W049``):
``app.conf.task_always_eager = True`` in ``proj/celery.py``, the same through
``app.conf.update(…)`` or ``app.conf["…"]``, and the settings namespace an app reads
(``config_from_object("django.conf:settings", namespace="TASKS")`` makes the setting
``TASKS_TASK_ALWAYS_EAGER``). Read from source, not from the live apps: Celery keeps every
app it ever made alive in the process (``celery._state``), so one made eager by a test or a
library would speak for the project.

Only module-level statements count, as the worker and the web process run them at import,
and only in modules that run in them (a command or a script run by hand is left out); an
``if`` is followed only when its test is one of Django's settings (``if settings.DEBUG:``),
which the check then reads live. A branch on anything else (``if "test" in sys.argv:``) is
left out.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from pathlib import Path

from horizontal.audit.celery_objects import (
    CONF_ADDRESSES,
    ConfigSource,
    addresses_of_source,
    config_calls,
    config_sources,
    dotted_module_name,
    options_of_source,
    read_named_module,
)
from horizontal.audit.celery_records import CeleryAddress, CeleryConf, address_of, resolved
from horizontal.audit.eager_options import EagerOption, Guards
from horizontal.audit.env_lookups import env_default, environment_variable
from horizontal.audit.rq_queues import inline_rq_queues
from horizontal.audit.source import (
    dotted,
    last_part,
    run_by_hand,
    settings_attribute,
    string_value,
)
from horizontal.audit.tree import iter_files, read_text

__all__ = ["EAGER_OPTIONS", "CeleryAddress", "CeleryConf", "EagerOption", "celery_conf"]

# The option's new name and its pre-4.0 one, and the prefixed form some projects copy over.
EAGER_OPTIONS = frozenset({"task_always_eager", "CELERY_ALWAYS_EAGER", "CELERY_TASK_ALWAYS_EAGER"})
# What a file must contain to be parsed at all. A module that configures a Celery app
# holds an eager option, a configuration object loaded, an app built (``Celery("shop",
# broker=…)``) or configured (``app.conf.broker_url = …``), or a configuration object's
# broker or result store; or an RQ queue is told whether to run jobs inline.
MARKERS = (
    "_eager",
    "_EAGER",
    "config_from_object",
    "Celery(",
    ".conf.",
    ".conf[",
    "is_async",
    "immediate",
    "broker_",
    "BROKER_",
    "result_backend",
    "RESULT_BACKEND",
)


def celery_conf(paths: Iterable[str | Path]) -> CeleryConf:
    """The eager options and settings namespaces in the Python files under ``paths``."""
    paths = list(paths)  # walked, then looked in again for configuration modules
    eager: list[EagerOption] = []
    namespaces: set[str] = set()
    addresses: list[CeleryAddress] = []
    from_settings: list[CeleryAddress] = []
    modules: dict[str, tuple[str, ast.Module]] = {}  # dotted name to file and tree
    sources: list[tuple[int, ConfigSource]] = []  # where in ``eager`` each is loaded
    for root in paths:
        for path in iter_files(Path(root)):
            if path.suffix != ".py":
                continue
            text = read_text(path)
            if text is None or not any(marker in text for marker in MARKERS):
                continue
            relative = path.relative_to(Path(root).parent)
            # A module with a ``__main__`` block is imported all the same (Celery's own
            # ``proj/celery.py`` ends with one): only the other marks of a script count.
            if run_by_hand(relative.as_posix(), text.replace("__main__", "")):
                continue
            try:
                tree = ast.parse(text)
            except (SyntaxError, ValueError, RecursionError):
                continue
            # By its packages' names, and as the app's folder names it (a namespace
            # package has no ``__init__.py`` to walk up through).
            modules[dotted_module_name(path)] = (str(path), tree)
            modules.setdefault(".".join(relative.with_suffix("").parts), (str(path), tree))
            django_settings = _imports_django_settings(tree)
            names: dict[str, ast.expr] = {}  # module-level names, as bound so far
            for statement, guards in _module_level(tree.body, (), django_settings):
                eager += _eager_options(str(path), statement, guards, django_settings, names)
                eager += inline_rq_queues(str(path), statement, guards)
                addresses += _addresses(str(path), statement, guards, names)
                from_settings += _settings_mappings(str(path), statement, guards)
                namespaces.update(_namespaces(statement))
                for source in config_sources(str(path), tree, statement, guards):
                    sources.append((len(eager), source))
                if (
                    isinstance(statement, ast.Assign)
                    and len(statement.targets) == 1
                    and isinstance(target := statement.targets[0], ast.Name)
                ):
                    names[target.id] = statement.value
    for _, source in sources:
        if source.module and source.module not in modules:
            # A configuration module with no marker of its own (``class Production(Base):
            # pass``): read because an app loads it.
            read_named_module(source.module, paths, modules)
    for position, source in reversed(sources):  # from the end: positions stay true
        eager[position:position] = options_of_source(source, modules)
    for number, (_, source) in enumerate(sources):
        addresses += addresses_of_source(source, modules, number)
    loads = tuple((source.loader, source.guards) for _, source in sources)
    return CeleryConf(eager, namespaces, addresses, loads, tuple(from_settings))


def _imports_django_settings(tree: ast.Module) -> bool:
    """``from django.conf import settings`` is the last import that binds ``settings``:
    only then is ``settings.X`` Django's (a project's pydantic ``settings`` is not)."""
    bindings = sorted(
        (
            node.lineno,
            isinstance(node, ast.ImportFrom)
            and node.module == "django.conf"
            and alias.name == "settings",
        )
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
        if (alias.asname or alias.name.partition(".")[0]) == "settings"
    )
    return bool(bindings) and bindings[-1][1]


def _module_level(
    body: list[ast.stmt], guards: Guards, django_settings: bool
) -> Iterator[tuple[ast.stmt, Guards]]:
    """The statements that run at import, in order, with the settings guarding them."""
    for statement in body:
        if isinstance(statement, ast.If):
            guard = _setting_test(statement.test) if django_settings else None
            if guard is not None:
                name, negated = guard
                yield from _module_level(statement.body, (*guards, guard), django_settings)
                yield from _module_level(
                    statement.orelse, (*guards, (name, not negated)), django_settings
                )
        elif isinstance(statement, ast.With | ast.Try):
            yield from _module_level(statement.body, guards, django_settings)
        else:
            yield statement, guards


def _setting_test(test: ast.expr) -> tuple[str, bool] | None:
    """``settings.DEBUG`` as ("DEBUG", False), ``not settings.DEBUG`` as ("DEBUG", True)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _setting_test(test.operand)
        return None if inner is None else (inner[0], not inner[1])
    name = settings_attribute(test)
    return None if name is None else (name, False)


def _conf_receiver(node: ast.expr) -> bool:
    """``app.conf``, ``celery_app.conf``, ``self.app.conf``."""
    return isinstance(node, ast.Attribute) and node.attr == "conf"


def _eager_options(
    path: str,
    statement: ast.stmt,
    guards: Guards,
    django_settings: bool,
    names: dict[str, ast.expr],
) -> list[EagerOption]:
    """The eager options ``statement`` writes; a value the source cannot tell is kept
    too (as None), since it replaces what an earlier line wrote. Module-level names are
    followed (``EAGER = True``, ``CONFIG = {…}`` then ``app.conf.update(CONFIG)``)."""
    found = []
    for node, name, written in _conf_items(statement, names):
        if name not in EAGER_OPTIONS:
            continue
        value = resolved(written, names)
        literal = value.value if isinstance(value, ast.Constant) else None
        setting = settings_attribute(value) if django_settings else None
        # A raw lookup only (``os.environ.get``, ``os.getenv``): Celery tests the text's
        # truth, where a typed reader (``env.bool``) would parse it.
        raw = isinstance(value, ast.Call) and (dotted(value.func) or "").endswith(
            ("getenv", "environ.get")
        )
        variable = environment_variable(value) if raw else None
        fallback = env_default(value) if variable is not None else None
        option = EagerOption(path, node.lineno, name, literal, setting, guards, path)
        if variable is not None and isinstance(fallback, ast.Constant | type(None)):
            option = option._replace(
                variable=variable, fallback=fallback.value if fallback is not None else None
            )
        found.append(option)
    return found


# The options that name a broker or a result store, and the constructor's names for them.
CONSTRUCTOR_ADDRESSES = frozenset({"broker", "backend"})
ADDRESS_OPTIONS = CONSTRUCTOR_ADDRESSES | frozenset(CONF_ADDRESSES)


def _addresses(
    path: str, statement: ast.stmt, guards: Guards, names: dict[str, ast.expr]
) -> list[CeleryAddress]:
    """The brokers and result stores ``statement`` writes as a string, or as an
    environment lookup's default (``broker`` and ``backend`` only as the constructor's
    keywords: no configuration key of Celery)."""
    found = []
    for node, name, written in _conf_items(statement, names):
        constructed = isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
        if name in CONSTRUCTOR_ADDRESSES and not constructed:
            continue
        if name in ADDRESS_OPTIONS:
            found += address_of(path, node.lineno, name, resolved(written, names), guards)
    return found


def _settings_mappings(path: str, statement: ast.stmt, guards: Guards) -> Iterator[CeleryAddress]:
    """``app.conf.update(settings.CELERY)`` or ``(**settings.CELERY)``: a Django setting
    whose live mapping configures the app."""
    if not (
        isinstance(statement, ast.Expr)
        and isinstance(call := statement.value, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr == "update"
        and _conf_receiver(call.func.value)
    ):
        return
    given = [*call.args, *(k.value for k in call.keywords if k.arg is None)]
    for argument in given:
        if (setting := settings_attribute(argument)) is not None:
            yield CeleryAddress(path, call.lineno, "update", "", guards, None, (), setting)


def _conf_items(
    statement: ast.stmt, names: dict[str, ast.expr]
) -> Iterator[tuple[ast.stmt | ast.expr, str, ast.expr]]:
    """(node, option, value) for each option ``statement`` sets on an app's ``conf``:
    ``app.conf.x = v``, ``app.conf["x"] = v``, ``app.conf.update(x=v)``, and the
    configuration its constructor takes: ``app = Celery("shop", broker=…,
    task_always_eager=True)``."""
    if (
        isinstance(statement, ast.Assign)
        and isinstance(statement.value, ast.Call)
        and last_part(dotted(statement.value.func) or "") == "Celery"
    ):
        for keyword in statement.value.keywords:
            if keyword.arg is not None:
                yield statement, keyword.arg, keyword.value
        return
    if isinstance(statement, ast.Assign | ast.AnnAssign) and statement.value is not None:
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        for target in targets:
            if isinstance(target, ast.Attribute) and _conf_receiver(target.value):
                yield statement, target.attr, statement.value
            elif (
                isinstance(target, ast.Subscript)
                and _conf_receiver(target.value)
                and (key := string_value(target.slice)) is not None
            ):
                yield statement, key, statement.value
    elif (
        isinstance(statement, ast.Expr)
        and isinstance(call := statement.value, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr == "update"
        and _conf_receiver(call.func.value)
    ):
        yield from ((call, name, value) for name, value in _mapping_items(call, names))


def _mapping_items(
    node: ast.expr, names: dict[str, ast.expr], depth: int = 5
) -> Iterator[tuple[str, ast.expr]]:
    """The items of a mapping as written: a dict display, ``dict(…)``, or the arguments
    of ``update(…)`` (keywords, a dict, ``**`` a dict), through module-level names (a
    few levels: ``CONFIG = {**CONFIG, …}`` names itself)."""
    if depth <= 0:
        return
    node = resolved(node, names)
    if isinstance(node, ast.Dict):
        for key, value in zip(node.keys, node.values, strict=True):
            if key is None:  # ``{**BASE, …}``
                yield from _mapping_items(value, names, depth - 1)
            elif (name := string_value(key)) is not None:
                yield name, value
    elif isinstance(node, ast.Call) and (
        (isinstance(node.func, ast.Name) and node.func.id == "dict")
        or (isinstance(node.func, ast.Attribute) and node.func.attr == "update")
    ):
        for argument in node.args:
            yield from _mapping_items(argument, names, depth - 1)
        for keyword in node.keywords:
            if keyword.arg is not None:
                yield keyword.arg, keyword.value
            else:
                yield from _mapping_items(keyword.value, names, depth - 1)


def _namespaces(statement: ast.stmt) -> Iterator[str]:
    """The prefix of the Django settings each ``config_from_object`` call reads: its
    ``namespace``, or "" when it reads Django's settings with none (``BROKER_URL``)."""
    for call in config_calls(statement):
        named = [k for k in call.keywords if k.arg == "namespace"]
        if named:
            if name := string_value(named[0].value):
                yield name
            elif isinstance(named[0].value, ast.Constant) and named[0].value.value is None:
                yield ""
        elif call.args and _reads_django_settings(call.args[0]):
            yield ""


def _reads_django_settings(source: ast.AST) -> bool:
    """``"django.conf:settings"``, or ``settings`` imported from django.conf."""
    text = string_value(source)
    if text is not None:
        return text == "django.conf:settings"
    return isinstance(source, ast.Name | ast.Attribute) and (
        (source.id if isinstance(source, ast.Name) else source.attr) == "settings"
    )
