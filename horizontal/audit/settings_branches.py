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
    "static_or_compared",
    "unset_names",
]


def static_or_compared(tree: ast.AST) -> set[int]:
    """``id()`` of each node that is compared, chosen only under ``DEBUG`` or in another
    branch that is off when nothing is set, or the static files' storage (never the
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
    return ignored


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
TEST_RUN_FLAG = lazy_compile(r"^(IS_)?(RUNNING_)?(UNIT_)?TEST(S|ING)?(_MODE|_RUN)?$")


def _is_test_run(test: ast.AST) -> bool:
    """``"test" in sys.argv``, ``"pytest" in sys.modules``: true only under a test run."""
    return (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.In)
        and "test" in (string_value(test.left) or "")
        and dotted(test.comparators[0]) in {"sys.argv", "sys.modules"}
    )


def off_by_default(test: ast.AST, unset: AbstractSet[str] = frozenset()) -> bool:
    """A branch taken only when DEBUG, a test run (``if TESTING:``) or an option that
    defaults to nothing is set: ``if DEBUG:``, ``if not SECRET_KEY and DEBUG:``,
    ``if SESSION_FILE_PATH is not None:`` (bound to None above), ``if env("CACHE_URL"):``
    (whose default is "")."""
    if isinstance(test, ast.Name):
        return test.id == "DEBUG" or test.id in unset or bool(TEST_RUN_FLAG.match(test.id))
    if _is_test_run(test):
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
    for statement in getattr(tree, "body", ()):
        if isinstance(statement, ast.If) and off_by_default(statement.test, unset):
            found.update(id(node) for node in ast.walk(statement) if node is not statement)
    return found


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
