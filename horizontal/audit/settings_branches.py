"""Branches of a settings module that production does not take when nothing is set.

A value chosen only under ``if DEBUG:``, a test run (``if TESTING:``) or an option that
defaults to nothing (``X = os.getenv("X")`` then ``if X:``) is not production's; a string
inside a comparison, or in a branch whose test names it (``if url.startswith("sqlite"):``),
was asked for, not left as a default. Reads parsed source only.
"""

from __future__ import annotations

import ast
from collections.abc import Set as AbstractSet

from horizontal.audit.patterns import lazy_compile
from horizontal.audit.settings_values import env_default
from horizontal.audit.source import dotted, string_value

__all__ = [
    "explicitly_chosen",
    "off_by_default",
    "off_by_default_statements",
    "required_defaults",
    "static_or_compared",
    "unset_names",
]


def static_or_compared(tree: ast.AST) -> set[int]:
    """``id()`` of each node that is compared, chosen only under ``DEBUG`` or in another
    branch that is off when nothing is set, listed in a table of backends to pick from by
    name, a database alias whose engine is an unfinished placeholder, the default of an
    option declared ``required=True``, or the static files' storage (never the
    uploads'): not a value production is left with."""
    ignored: set[int] = set()
    unset = unset_names(tree)
    for node in ast.walk(tree):
        parts: list[ast.AST] = []
        if isinstance(node, ast.Compare):
            parts = [node]
        elif isinstance(node, ast.If | ast.IfExp) and off_by_default(node.test, unset):
            # Chosen only when DEBUG (or an option left unset) is on: not production's.
            parts = list(node.body) if isinstance(node, ast.If) else [node.body]
        elif isinstance(node, ast.Dict) and (_is_choice_table(node) or _is_placeholder(node)):
            parts = [node]
        elif isinstance(node, ast.Dict):
            parts = [
                v
                for k, v in zip(node.keys, node.values, strict=True)
                if string_value(k) == "staticfiles"
            ]
        elif isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "STATICFILES_STORAGE" for t in node.targets
        ):
            parts = [node.value]
        for part in parts:
            ignored.update(id(child) for child in ast.walk(part))
    # define_setting("DATABASE_URL", default=..., required=True): start-up stops without
    # the variable, so the default never reaches production.
    return ignored | required_defaults(tree)


# Keys of a backend's own configuration, never of a table of choices.
CONFIG_KEYS = frozenset({"ENGINE", "BACKEND", "default", "LOCATION", "NAME", "OPTIONS"})


def _is_choice_table(node: ast.Dict) -> bool:
    """``{"mysql": "django.db.backends.mysql", "sqlite": "django.db.backends.sqlite3"}``:
    backends an option picks from by name; listing SQLite there does not choose it."""
    keys = [string_value(k) if k is not None else None for k in node.keys]
    if not keys or any(k is None or k in CONFIG_KEYS for k in keys):
        return False
    modules = [
        text.rsplit(".", 1)[0] for v in node.values if (text := string_value(v)) and "." in text
    ]
    return len(modules) >= 2 and len(set(modules)) == 1 and len(modules) == len(node.values)


def _is_placeholder(node: ast.Dict) -> bool:
    """A database alias whose engine is left unfinished (``"ENGINE": "django.db.backends."``,
    or empty): a template that another file must replace whole, not a value to judge."""
    for key, value in zip(node.keys, node.values, strict=True):
        if key is not None and string_value(key) == "ENGINE":
            engine = string_value(value)
            return engine is not None and (engine == "" or engine.endswith("."))
    return False


def _is_required(call: ast.Call) -> bool:
    """``required=True``, or ``required=not TESTING`` (true outside a test run)."""
    for keyword in call.keywords:
        if keyword.arg not in {"required", "environ_required"}:  # environs; configurations
            continue
        value = keyword.value
        if isinstance(value, ast.Constant) and value.value is True:
            return True
        if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not):
            return isinstance(value.operand, ast.Name) and bool(
                TEST_RUN_FLAG.match(value.operand.id)
            )
    return False


def required_defaults(tree: ast.AST) -> set[int]:
    """``id()`` of each node in the ``default=`` of an option declared ``required=True``."""
    return {
        id(child)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and _is_required(node)
        for keyword in node.keywords
        if keyword.arg == "default"
        for child in ast.walk(keyword.value)
    }


def unset_names(tree: ast.AST) -> set[str]:
    """Top-level names whose value is falsy when nothing is set: ``X = None``,
    ``X = os.environ.get("X")``, ``X = getattr(configuration, "X", None)``,
    ``X = env("X", default="")`` (the last top-level assignment decides)."""
    unset: set[str] = set()
    for statement in getattr(tree, "body", ()):
        if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1):
            continue
        target = statement.targets[0]
        if isinstance(target, ast.Name):
            if _falsy_when_unset(statement.value):
                unset.add(target.id)
            else:
                unset.discard(target.id)
    return unset


def _falsy_when_unset(value: ast.AST) -> bool:
    if isinstance(value, ast.Constant):
        return not value.value
    if not isinstance(value, ast.Call):
        return False
    default = env_default(value)
    if default is not None:
        return isinstance(default, ast.Constant) and not default.value
    # os.environ.get("X") and os.getenv("X") give None; env("X") with no default raises.
    function = dotted(value.func) or ""
    return function.endswith(("getenv", "environ.get")) and len(value.args) == 1


# A flag that says the process is a test run (``if TESTING:``): off in production.
TEST_RUN_FLAG = lazy_compile(r"^(IS_)?(RUNNING_)?(UNIT_)?(PY)?TEST(S|ING)?(_MODE|_RUN)?$")


def _is_test_run(test: ast.AST) -> bool:
    """``"test" in sys.argv``, ``"pytest" in sys.modules``: true only under a test run."""
    return (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.In)
        and "test" in (string_value(test.left) or "")
        and dotted(test.comparators[0]) in {"sys.argv", "sys.modules"}
    )


def _is_set_in_environment(test: ast.AST) -> bool:
    """``"CACHE_URL" in os.environ``: true only where the deployment sets the variable."""
    return (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.In)
        and string_value(test.left) is not None
        and (dotted(test.comparators[0]) or "").endswith("environ")
    )


def off_by_default(test: ast.AST, unset: AbstractSet[str] = frozenset()) -> bool:
    """A branch taken only when DEBUG, a test run (``if TESTING:``) or an option that
    defaults to nothing is set: ``if DEBUG:``, ``if not SECRET_KEY and DEBUG:``,
    ``if SESSION_FILE_PATH is not None:`` (bound to None above), ``if env("CACHE_URL"):``
    (whose default is ""), ``if "CACHE_URL" in os.environ:``."""
    if isinstance(test, ast.Name):
        return test.id == "DEBUG" or test.id in unset or bool(TEST_RUN_FLAG.match(test.id))
    if _is_test_run(test) or _is_set_in_environment(test):
        return True
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return any(off_by_default(value, unset) for value in test.values)
    if (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.IsNot)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value is None
    ):
        return off_by_default(test.left, unset)
    return isinstance(test, ast.Call) and _falsy_when_unset(test)


def off_by_default_statements(tree: ast.AST) -> set[int]:
    """``id()`` of each statement in a top-level branch that is off when nothing is set
    (see ``off_by_default``): a setting assigned only there is left at Django's default."""
    unset = unset_names(tree)
    found: set[int] = set()
    required: set[str] = set()  # names production must set: a guard above raises
    for statement in getattr(tree, "body", ()):
        if isinstance(statement, ast.If):
            required |= _required_by_guard(statement)
        if isinstance(statement, ast.If) and (
            off_by_default(statement.test, unset) or _tests_unset(statement.test, required)
        ):
            # The body only: the ``else:`` is what production gets.
            found.update(id(node) for part in statement.body for node in ast.walk(part))
    return found


def _required_by_guard(statement: ast.If) -> set[str]:
    """``if not DEBUG and not SECRET_KEY: raise …`` (or ``if not SECRET_KEY: raise``):
    production cannot start without ``SECRET_KEY``."""
    if not (len(statement.body) == 1 and isinstance(statement.body[0], ast.Raise)):
        return set()
    parts = statement.test.values if isinstance(statement.test, ast.BoolOp) else [statement.test]
    if isinstance(statement.test, ast.BoolOp) and not isinstance(statement.test.op, ast.And):
        return set()
    names = {
        part.operand.id
        for part in parts
        if isinstance(part, ast.UnaryOp)
        and isinstance(part.op, ast.Not)
        and isinstance(part.operand, ast.Name)
    }
    return names - {"DEBUG"} if len(names) == len(parts) else set()


def _tests_unset(test: ast.AST, required: set[str]) -> bool:
    """``if not SECRET_KEY:`` after a guard that stops production without it."""
    return (
        isinstance(test, ast.UnaryOp)
        and isinstance(test.op, ast.Not)
        and isinstance(test.operand, ast.Name)
        and test.operand.id in required
    )


def explicitly_chosen(tree: ast.AST) -> dict[int, set[str]]:
    """For each node in the body of an ``if``/``elif`` whose test compares a value with
    string literals (``schema == "sqlite"``, ``url.startswith("sqlite")``), those
    literals: a backend they name was asked for by configuration, not a default."""
    chosen: dict[int, set[str]] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.If):
            continue
        words = {
            word
            for child in ast.walk(node.test)
            if isinstance(child, ast.Compare | ast.Call)
            for literal in ast.walk(child)
            if (word := string_value(literal)) and len(word) >= 4
        }
        if not words:
            continue
        for statement in node.body:
            for child in ast.walk(statement):
                chosen.setdefault(id(child), set()).update(words)
    return chosen
