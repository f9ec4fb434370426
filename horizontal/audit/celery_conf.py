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
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import NamedTuple

from horizontal.audit.eager_options import EagerOption, Guards
from horizontal.audit.env_lookups import env_default, environment_variable
from horizontal.audit.rq_queues import inline_rq_queues
from horizontal.audit.source import dotted, last_part, run_by_hand, settings_attribute
from horizontal.audit.tree import iter_files, read_text

__all__ = ["EAGER_OPTIONS", "CeleryAddress", "CeleryConf", "EagerOption", "celery_conf"]

# The option's new name and its pre-4.0 one, and the prefixed form some projects copy over.
EAGER_OPTIONS = frozenset({"task_always_eager", "CELERY_ALWAYS_EAGER", "CELERY_TASK_ALWAYS_EAGER"})
# What a file must contain to be parsed at all.
# What a module that configures a Celery app holds: an eager option, a configuration
# object loaded, an app built (``Celery("shop", broker=…)``) or configured
# (``app.conf.broker_url = …``), a configuration object's broker or result store; or an RQ
# queue told whether to run jobs inline.
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


class CeleryAddress(NamedTuple):
    """A broker or result store an app is given in code, under the ``if`` tests around
    it (as ``EagerOption.guards``)."""

    path: str
    line: int
    option: str
    value: str
    guards: Guards
    # Set by a configuration object (``config_from_object("shop.celeryconfig")``): the
    # loading call's place in ``CeleryConf.loads``, as a later load replaces it.
    loaded_by: int | None = None
    # The environment variables the value reads (``os.environ.get("BROKER", "redis://
    # localhost")``): where one is set, its default is not what runs.
    variables: tuple[str, ...] = ()
    # A Django setting the value is (``app.conf.broker_url = settings.REDIS_URL``): the
    # check reads it live; ``value`` is then empty.
    setting: str | None = None
    # The value as written, when it reads the environment: the check renders it with the
    # variables that are set (``f"redis://:{os.environ['PASSWORD']}@localhost"``).
    node: ast.expr | None = None


class CeleryConf(NamedTuple):
    """What the project's code tells its Celery apps: each write of an eager option, and
    the settings prefixes the apps read (``namespace="CELERY"``)."""

    eager: list[EagerOption]
    namespaces: set[str]
    # Each broker or result store written in code: ``Celery("shop",
    # broker="redis://localhost")``, ``app.conf.broker_url = …``, and in a configuration
    # object of the project's (``broker_url = …`` in ``shop/celeryconfig.py``).
    addresses: list[CeleryAddress]
    # Each ``config_from_object`` call: the calling file and the ``if`` tests around it.
    loads: tuple[tuple[str, Guards], ...] = ()
    # ``app.conf.update(settings.CELERY)``: Django settings whose live mapping configures
    # an app, with the call's place and guards.
    from_settings: tuple[CeleryAddress, ...] = ()


class _ConfigSource(NamedTuple):
    """``app.config_from_object(…)``: a module by dotted name, a class of the same
    module, or ``"module:Class"``, read when it is the project's own; Django's settings
    or an object the source does not tell only replace the object loaded before."""

    loader: str  # the file that calls it
    line: int
    tree: ast.Module  # that file's
    guards: Guards
    module: str | None  # dotted, None for the caller's own module
    attribute: str | None  # a class in that module
    namespace: str | None


def celery_conf(paths: Iterable[str | Path]) -> CeleryConf:
    """The eager options and settings namespaces in the Python files under ``paths``."""
    paths = list(paths)  # walked, then looked in again for configuration modules
    eager: list[EagerOption] = []
    namespaces: set[str] = set()
    addresses: list[CeleryAddress] = []
    from_settings: list[CeleryAddress] = []
    modules: dict[str, tuple[str, ast.Module]] = {}  # dotted name to file and tree
    sources: list[tuple[int, _ConfigSource]] = []  # where in ``eager`` each is loaded
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
            modules[_dotted_name(path)] = (str(path), tree)
            modules.setdefault(".".join(relative.with_suffix("").parts), (str(path), tree))
            django_settings = _imports_django_settings(tree)
            names: dict[str, ast.expr] = {}  # module-level names, as bound so far
            for statement, guards in _module_level(tree.body, (), django_settings):
                eager += _eager_options(str(path), statement, guards, django_settings, names)
                eager += inline_rq_queues(str(path), statement, guards)
                addresses += _addresses(str(path), statement, guards, names)
                from_settings += _settings_mappings(str(path), statement, guards)
                namespaces.update(_namespaces(statement))
                for source in _config_sources(str(path), tree, statement, guards):
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
            _read_named_module(source.module, paths, modules)
    for position, source in reversed(sources):  # from the end: positions stay true
        eager[position:position] = _options_of_source(source, modules)
    for number, (_, source) in enumerate(sources):
        addresses += _addresses_of_source(source, modules, number)
    loads = tuple((source.loader, source.guards) for _, source in sources)
    return CeleryConf(eager, namespaces, addresses, loads, tuple(from_settings))


def _read_named_module(
    dotted_name: str, roots: Iterable[str | Path], modules: dict[str, tuple[str, ast.Module]]
) -> None:
    """Parse the project's module ``dotted_name`` into ``modules``, found under the
    folders the roots sit in (``shop.celeryconfig``: ``shop/celeryconfig.py``)."""
    relative = Path(*dotted_name.split("."))
    for root in roots:
        for candidate in (relative.with_suffix(".py"), relative / "__init__.py"):
            path = Path(root).parent / candidate
            text = read_text(path) if path.is_file() else None
            if text is None:
                continue
            try:
                modules[dotted_name] = (str(path), ast.parse(text))
            except (SyntaxError, ValueError, RecursionError):
                continue
            return


def _dotted_name(path: Path) -> str:
    """The module's dotted name, through the packages (``__init__.py``) above it."""
    parts = [path.stem]
    folder = path.parent
    while (folder / "__init__.py").is_file() and folder.name:
        parts.insert(0, folder.name)
        folder = folder.parent
    return ".".join(parts)


def _config_sources(
    path: str, tree: ast.Module, statement: ast.stmt, guards: Guards
) -> Iterator[_ConfigSource]:
    """Each ``config_from_object`` a module-level statement makes (not in a function or
    a class it defines); Django's settings as a source whose object is not read here."""
    for node in _config_calls(statement):
        if not node.args:
            continue
        namespace = next((_string(k.value) for k in node.keywords if k.arg == "namespace"), None)
        target = node.args[0]
        line = node.lineno
        if isinstance(target, ast.Name):
            yield _ConfigSource(path, line, tree, guards, None, target.id, namespace)
        elif (name := _string(target)) is not None:
            module, _, attribute = name.partition(":")
            yield _ConfigSource(path, line, tree, guards, module, attribute or None, namespace)
        else:  # an object the source does not tell: it replaces the one before all the same
            yield _ConfigSource(path, line, tree, guards, "", None, namespace)


# A base class a module imports, by its name there: the class and its module's classes.
ImportedClass = Callable[[str], tuple[ast.ClassDef, list[ast.ClassDef], str] | None]
# A statement of a configuration object, with the file it is written in.
Placed = tuple[str, ast.stmt]


def _with_inherited(
    found: ast.ClassDef,
    classes: list[ast.ClassDef],
    path: str,
    seen: frozenset[str] = frozenset(),
    imported: ImportedClass | None = None,
) -> list[Placed]:
    """A configuration class's statements after those of its bases defined in the same
    module (``class Production(Base)``) or imported from another of the project's
    (``from proj.celery_base import Base``), in the order that lets the class and its
    leftmost base write last, as attribute lookup finds them."""
    body: list[Placed] = []
    for base in reversed(found.bases):
        name = base.id if isinstance(base, ast.Name) else None
        parent = next((c for c in classes if c.name == name), None)
        if parent is not None and parent.name not in seen | {found.name}:
            body += _with_inherited(parent, classes, path, seen | {found.name}, imported)
        elif parent is None and name is not None and imported is not None:
            outside = imported(name)
            if outside is not None and outside[0].name not in seen | {found.name}:
                body += _with_inherited(*outside, seen | {found.name})
    return body + [(path, statement) for statement in found.body]


def _class_importer(
    tree: ast.Module, module: str, modules: dict[str, tuple[str, ast.Module]]
) -> ImportedClass:
    """Resolves a name ``tree`` imports (``from proj.celery_base import Base``, also
    relative) to the class in the project's module that defines it."""
    package = module.rpartition(".")[0]
    origins: dict[str, tuple[str, str]] = {}
    for node in tree.body:
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
            owner = f"{base}.{node.module}" if node.module else base
        else:
            owner = node.module or ""
        for alias in node.names:
            origins[alias.asname or alias.name] = (owner, alias.name)

    def resolve(name: str) -> tuple[ast.ClassDef, list[ast.ClassDef], str] | None:
        owner, original = origins.get(name, ("", ""))
        if owner not in modules:
            return None
        path, tree = modules[owner]
        classes = [s for s in tree.body if isinstance(s, ast.ClassDef)]
        found = next((c for c in classes if c.name == original), None)
        return None if found is None else (found, classes, path)

    return resolve


def _options_of_source(
    source: _ConfigSource, modules: dict[str, tuple[str, ast.Module]]
) -> list[EagerOption]:
    """What loading a configuration object does to the eager option: it replaces the
    object loaded before (an entry with no value, at the call), then sets what the
    object sets at its top level (a class: with what its bases in the module set):
    ``task_always_eager`` or the old
    ``CELERY_ALWAYS_EAGER`` with no namespace, ``NS_TASK_ALWAYS_EAGER`` with one (Celery
    reads no other spelling). Django's settings are read live, by the settings check."""
    options = [
        EagerOption(
            source.loader,
            source.line,
            "task_always_eager",
            None,
            None,
            source.guards,
            source.loader,
            from_source=True,
        )
    ]
    body = _source_body(source, modules)
    if body is None:
        return options  # Django's settings, another package's module, or not ours to read
    wanted = (
        {f"{source.namespace}_TASK_ALWAYS_EAGER"}
        if source.namespace
        else {"task_always_eager", "CELERY_ALWAYS_EAGER"}
    )
    for path, statement in body:
        if isinstance(statement, ast.Assign | ast.AnnAssign) and statement.value is not None:
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            for target in targets:
                if isinstance(target, ast.Name) and target.id in wanted:
                    value = statement.value
                    literal = value.value if isinstance(value, ast.Constant) else None
                    options.append(
                        EagerOption(
                            path,
                            statement.lineno,
                            target.id,
                            literal,
                            None,
                            source.guards,
                            source.loader,
                            from_source=True,
                        )
                    )
    return options


def _source_body(
    source: _ConfigSource, modules: dict[str, tuple[str, ast.Module]]
) -> list[Placed] | None:
    """The file and the statements of a configuration object of the project's: a
    module's top level, or a class's body with what its bases in the module set."""
    if source.module is None:
        path, tree = source.loader, source.tree
    elif source.module in modules:
        path, tree = modules[source.module]
    else:
        return None
    if source.attribute is None:
        return [(path, statement) for statement in tree.body]
    classes = [s for s in tree.body if isinstance(s, ast.ClassDef)]
    found = next((c for c in classes if c.name == source.attribute), None)
    if found is None:
        return None
    imported = _class_importer(tree, source.module or "", modules)
    return _with_inherited(found, classes, path, imported=imported)


# A configuration object's brokers and result stores, by Celery's names and the pre-4.0
# ones (read from an object without a namespace); with a namespace, only its spelling.
CONF_ADDRESSES = ("broker_url", "result_backend", "broker_read_url", "broker_write_url")
OBJECT_ADDRESSES = {
    "broker_url": "broker_url",
    "result_backend": "result_backend",
    "broker_read_url": "broker_read_url",
    "broker_write_url": "broker_write_url",
    "BROKER_URL": "broker_url",
    "CELERY_RESULT_BACKEND": "result_backend",
    "BROKER_READ_URL": "broker_read_url",
    "BROKER_WRITE_URL": "broker_write_url",
}


def _addresses_of_source(
    source: _ConfigSource, modules: dict[str, tuple[str, ast.Module]], number: int
) -> list[CeleryAddress]:
    """The brokers and result stores a configuration object of the project's sets at
    its top level, as a string or an environment lookup's default."""
    body = _source_body(source, modules)
    if body is None:
        return []
    if source.namespace:
        wanted = {f"{source.namespace}_{name.upper()}": name for name in CONF_ADDRESSES}
    else:
        wanted = OBJECT_ADDRESSES
    # An option also bound inside an ``if``/``try`` (``if os.environ.get("BROKER_URL"):
    # broker_url = …``) is decided where the object loads: not judged from its source.
    branched = {
        node.id
        for _, statement in body
        if not isinstance(statement, ast.Assign | ast.AnnAssign | ast.FunctionDef | ast.ClassDef)
        for node in ast.walk(statement)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
    }
    names: dict[str, ast.expr] = {}
    last: dict[str, list[CeleryAddress]] = {}  # the last binding of each option wins
    for path, statement in body:
        if not isinstance(statement, ast.Assign | ast.AnnAssign) or statement.value is None:
            continue
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        for target in targets:
            if not isinstance(target, ast.Name):
                continue
            names[target.id] = statement.value
            if target.id in wanted and target.id not in branched:
                resolved = _resolved(statement.value, names)
                line = statement.lineno
                last[wanted[target.id]] = _address(
                    path, line, target.id, resolved, source.guards, number
                )
    return [address for addresses in last.values() for address in addresses]


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
        value = _resolved(written, names)
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
            found += _address(path, node.lineno, name, _resolved(written, names), guards)
    return found


def _address(
    path: str, line: int, option: str, node: ast.expr, guards: Guards, loaded_by: int | None = None
) -> list[CeleryAddress]:
    """The address a value gives: a string, an environment lookup's fallback (with the
    variable, which wins where it is set), an f-string or ``+`` of those, or a Django
    setting read live (``settings.REDIS_URL``)."""
    from horizontal.audit.settings_values import address_text  # loaded with the check

    variables = tuple(
        variable for child in ast.walk(node) if (variable := environment_variable(child))
    )
    setting = settings_attribute(node)
    if setting is not None:
        return [CeleryAddress(path, line, option, "", guards, loaded_by, (), setting)]
    value = _string(node) or _string(env_default(node))
    if value is None and isinstance(node, ast.JoinedStr | ast.BinOp):
        value = address_text(node, {})[0]
    if value is None:
        return []
    written = node if variables else None
    return [CeleryAddress(path, line, option, value, guards, loaded_by, variables, None, written)]


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


def _resolved(node: ast.expr, names: dict[str, ast.expr]) -> ast.expr:
    """What a module-level name was bound to, through a few names in a row."""
    for _ in range(5):
        if not isinstance(node, ast.Name) or node.id not in names:
            break
        node = names[node.id]
    return node


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
                and (key := _string(target.slice)) is not None
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
    node = _resolved(node, names)
    if isinstance(node, ast.Dict):
        for key, value in zip(node.keys, node.values, strict=True):
            if key is None:  # ``{**BASE, …}``
                yield from _mapping_items(value, names, depth - 1)
            elif (name := _string(key)) is not None:
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


def _config_calls(statement: ast.stmt) -> Iterator[ast.Call]:
    """The ``config_from_object(…)`` calls a module-level statement makes, not those in a
    function or a class it defines."""
    if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return
    for node in ast.walk(statement):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "config_from_object"
        ):
            yield node


def _namespaces(statement: ast.stmt) -> Iterator[str]:
    """The prefix of the Django settings each ``config_from_object`` call reads: its
    ``namespace``, or "" when it reads Django's settings with none (``BROKER_URL``)."""
    for call in _config_calls(statement):
        named = [k for k in call.keywords if k.arg == "namespace"]
        if named:
            if name := _string(named[0].value):
                yield name
            elif isinstance(named[0].value, ast.Constant) and named[0].value.value is None:
                yield ""
        elif call.args and _reads_django_settings(call.args[0]):
            yield ""


def _reads_django_settings(source: ast.AST) -> bool:
    """``"django.conf:settings"``, or ``settings`` imported from django.conf."""
    text = _string(source)
    if text is not None:
        return text == "django.conf:settings"
    return isinstance(source, ast.Name | ast.Attribute) and (
        (source.id if isinstance(source, ast.Name) else source.attr) == "settings"
    )


def _string(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None
