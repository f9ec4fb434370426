"""Configuration objects a Celery app loads (``app.config_from_object("shop.celeryconfig")``):
a module of the project's, a class of one (with its bases, in this module or imported
from another), or Django's settings and objects the source does not tell, which only
replace what was loaded before. Read for the eager option (``horizontal.W049``) and the
broker and result store (``horizontal.W048``).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import NamedTuple

from horizontal.audit.celery_records import CeleryAddress, address_of, resolved
from horizontal.audit.eager_options import EagerOption, Guards
from horizontal.audit.source import string_value
from horizontal.audit.tree import read_text

__all__ = [
    "CONF_ADDRESSES",
    "ConfigSource",
    "addresses_of_source",
    "config_calls",
    "config_sources",
    "dotted_module_name",
    "options_of_source",
    "read_named_module",
]


class ConfigSource(NamedTuple):
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


def config_sources(
    path: str, tree: ast.Module, statement: ast.stmt, guards: Guards
) -> Iterator[ConfigSource]:
    """Each ``config_from_object`` a module-level statement makes (not in a function or
    a class it defines); Django's settings as a source whose object is not read here."""
    for node in config_calls(statement):
        if not node.args:
            continue
        namespace = next(
            (string_value(k.value) for k in node.keywords if k.arg == "namespace"), None
        )
        target = node.args[0]
        line = node.lineno
        if isinstance(target, ast.Name):
            yield ConfigSource(path, line, tree, guards, None, target.id, namespace)
        elif (name := string_value(target)) is not None:
            module, _, attribute = name.partition(":")
            yield ConfigSource(path, line, tree, guards, module, attribute or None, namespace)
        else:  # an object the source does not tell: it replaces the one before all the same
            yield ConfigSource(path, line, tree, guards, "", None, namespace)


def read_named_module(
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


def dotted_module_name(path: Path) -> str:
    """The module's dotted name, through the packages (``__init__.py``) above it."""
    parts = [path.stem]
    folder = path.parent
    while (folder / "__init__.py").is_file() and folder.name:
        parts.insert(0, folder.name)
        folder = folder.parent
    return ".".join(parts)


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


def options_of_source(
    source: ConfigSource, modules: dict[str, tuple[str, ast.Module]]
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
    source: ConfigSource, modules: dict[str, tuple[str, ast.Module]]
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


def addresses_of_source(
    source: ConfigSource, modules: dict[str, tuple[str, ast.Module]], number: int
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
                value = resolved(statement.value, names)
                line = statement.lineno
                last[wanted[target.id]] = address_of(
                    path, line, target.id, value, source.guards, number
                )
    return [address for addresses in last.values() for address in addresses]


def config_calls(statement: ast.stmt) -> Iterator[ast.Call]:
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
