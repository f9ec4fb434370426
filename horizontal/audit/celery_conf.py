"""Celery configured in the project's code rather than its settings (``horizontal.W049``):
``app.conf.task_always_eager = True`` in ``proj/celery.py``, the same through
``app.conf.update(…)`` or ``app.conf["…"]``, and the settings namespace an app reads
(``config_from_object("django.conf:settings", namespace="TASKS")`` makes the setting
``TASKS_TASK_ALWAYS_EAGER``). Read from source, not from the live apps: Celery keeps every
app it ever made alive in the process (``celery._state``), so one made eager by a test or a
library would speak for the project.

Only module-level statements count, as the worker and the web process run them at import;
an ``if`` is followed only when its test is a setting (``if settings.DEBUG:``), which the
check then reads live. A branch on anything else (``if "test" in sys.argv:``) is left out.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import NamedTuple

from horizontal.audit.tree import iter_files, read_text

__all__ = ["EAGER_OPTIONS", "CeleryConf", "EagerOption", "celery_conf"]

# The option's new name and its pre-4.0 one, and the prefixed form some projects copy over.
EAGER_OPTIONS = frozenset({"task_always_eager", "CELERY_ALWAYS_EAGER", "CELERY_TASK_ALWAYS_EAGER"})
# What a file must contain to be parsed at all.
MARKERS = ("_eager", "_EAGER", "config_from_object")
UNSET = object()


class EagerOption(NamedTuple):
    """One eager option set on an app's ``conf``: where, which, and its value, a literal
    (``value``) or a setting to read live (``setting``); ``guards`` are the settings the
    enclosing ``if`` tests read, with whether each is negated."""

    path: str
    line: int
    option: str
    value: object
    setting: str | None
    guards: tuple[tuple[str, bool], ...]


class CeleryConf(NamedTuple):
    eager: list[EagerOption]
    namespaces: set[str]  # the settings prefixes apps read (``namespace="CELERY"``)


def celery_conf(paths: Iterable[str | Path]) -> CeleryConf:
    """The eager options and settings namespaces in the Python files under ``paths``."""
    eager: list[EagerOption] = []
    namespaces: set[str] = set()
    for root in paths:
        for path in iter_files(Path(root)):
            if path.suffix != ".py":
                continue
            text = read_text(path)
            if text is None or not any(marker in text for marker in MARKERS):
                continue
            try:
                tree = ast.parse(text)
            except (SyntaxError, ValueError, RecursionError):
                continue
            for statement, guards in _module_level(tree.body, ()):
                eager += _eager_options(str(path), statement, guards)
                namespaces.update(_namespaces(statement))
    return CeleryConf(eager, namespaces)


def _module_level(
    body: list[ast.stmt], guards: tuple[tuple[str, bool], ...]
) -> Iterator[tuple[ast.stmt, tuple[tuple[str, bool], ...]]]:
    """The statements that run at import, with the settings guarding them."""
    for statement in body:
        if isinstance(statement, ast.If):
            guard = _setting_test(statement.test)
            if guard is not None:
                name, negated = guard
                yield from _module_level(statement.body, (*guards, (name, negated)))
                yield from _module_level(statement.orelse, (*guards, (name, not negated)))
        elif isinstance(statement, ast.With | ast.Try):
            yield from _module_level(statement.body, guards)
        else:
            yield statement, guards


def _setting_test(test: ast.expr) -> tuple[str, bool] | None:
    """``settings.DEBUG`` as ("DEBUG", False), ``not settings.DEBUG`` as ("DEBUG", True)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _setting_test(test.operand)
        return None if inner is None else (inner[0], not inner[1])
    name = _setting_name(test)
    return None if name is None else (name, False)


def _setting_name(node: ast.expr) -> str | None:
    """``settings.NAME`` (``django.conf.settings.NAME`` too) as NAME."""
    if (
        isinstance(node, ast.Attribute)
        and node.attr.isupper()
        and isinstance(node.value, ast.Name | ast.Attribute)
        and (node.value.id if isinstance(node.value, ast.Name) else node.value.attr) == "settings"
    ):
        return node.attr
    return None


def _conf_receiver(node: ast.expr) -> bool:
    """``app.conf``, ``celery_app.conf``, ``self.app.conf``."""
    return isinstance(node, ast.Attribute) and node.attr == "conf"


def _eager_options(
    path: str, statement: ast.stmt, guards: tuple[tuple[str, bool], ...]
) -> Iterator[EagerOption]:
    for node, name, value in _conf_items(statement):
        if name not in EAGER_OPTIONS:
            continue
        literal = value.value if isinstance(value, ast.Constant) else UNSET
        setting = _setting_name(value)
        if literal is not UNSET or setting is not None:
            # Anything else (an environment lookup, a helper) is not known from the source.
            yield EagerOption(path, node.lineno, name, literal, setting, guards)


def _conf_items(statement: ast.stmt) -> Iterator[tuple[ast.stmt | ast.expr, str, ast.expr]]:
    """(node, option, value) for each option ``statement`` sets on an app's ``conf``:
    ``app.conf.x = v``, ``app.conf["x"] = v``, ``app.conf.update(x=v)``."""
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
        for name, value in _update_items(call):
            yield call, name, value


def _update_items(call: ast.Call) -> Iterator[tuple[str, ast.expr]]:
    """``update(name=value)``, ``update({"name": value})``, ``update(**{"name": value})``."""
    dicts = [a for a in call.args if isinstance(a, ast.Dict)]
    for keyword in call.keywords:
        if keyword.arg is not None:
            yield keyword.arg, keyword.value
        elif isinstance(keyword.value, ast.Dict):
            dicts.append(keyword.value)
    for mapping in dicts:
        for key, value in zip(mapping.keys, mapping.values, strict=True):
            name = _string(key)
            if name is not None:
                yield name, value


def _namespaces(statement: ast.stmt) -> Iterator[str]:
    for node in ast.walk(statement):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "config_from_object"
        ):
            for keyword in node.keywords:
                if keyword.arg == "namespace" and (name := _string(keyword.value)):
                    yield name


def _string(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None
