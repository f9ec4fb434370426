"""Branches of a settings module that production does not take when nothing is set.

A value chosen only under ``if DEBUG:``, a test run (``if TESTING:``) or an option that
defaults to nothing (``X = os.getenv("X")`` then ``if X:``) is not production's; a string
inside a comparison, or in a branch whose test names it (``if url.startswith("sqlite"):``),
was asked for, not left as a default. Reads parsed source only.
"""

from __future__ import annotations

import ast
from collections.abc import Set as AbstractSet

from horizontal.audit.env_lookups import (
    TEST_RUN_FLAG,
    is_required_option,
    is_test_or_build_run,
)
from horizontal.audit.patterns import lazy_compile
from horizontal.audit.settings_defaults import (
    OPTION_KEY,
    default_outcome,
    default_strings,
    falsy_when_unset,
    not_none_operand,
    on_names,
    switch_outcome,
    unset_names,
)
from horizontal.audit.source import dotted, string_value

__all__ = [
    "explicitly_chosen",
    "guards_of_bound_names",
    "off_by_default",
    "off_by_default_statements",
    "required_defaults",
    "static_or_compared",
]


def static_or_compared(tree: ast.AST) -> set[int]:
    """``id()`` of each node that is compared, chosen only under ``DEBUG`` or in another
    branch that is off when nothing is set, listed in a table of backends to pick from by
    name, a database alias whose engine is an unfinished placeholder, the default of an
    option declared ``required=True``, or the static files' storage (never the
    uploads'): not a value production is left with."""
    ignored: set[int] = set()
    unset = unset_names(tree)
    defaults = default_strings(tree)
    bound = guards_of_bound_names(tree)
    on = on_names(tree)
    for node in ast.walk(tree):
        parts: list[ast.AST] = []
        outcome = (
            _branch_outcome(node.test, defaults, on)
            if isinstance(node, ast.If | ast.IfExp)
            else None
        )
        if id(node) in bound:
            outcome = bound[id(node)]
        if isinstance(node, ast.Compare):
            parts = [node]
        elif isinstance(node, ast.If | ast.IfExp) and (
            off_by_default(node.test, unset) or outcome is False
        ):
            # Chosen only when DEBUG (or an option left unset) is on: not production's.
            parts = list(node.body) if isinstance(node, ast.If) else [node.body]
        elif isinstance(node, ast.If | ast.IfExp) and (
            outcome is True or on_by_default(node.test, unset)
        ):
            # The test holds by default: the other branch is what an option chooses.
            parts = list(node.orelse) if isinstance(node, ast.If) else [node.orelse]
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
        elif (string_value(node) or "").startswith(STATIC_STORAGES):
            # ``SASS_PROCESSOR_STORAGE = "django.contrib.staticfiles.storage.…"``: a
            # static-files storage, for what the build compiles, never for uploads.
            parts = [node]
        for part in parts:
            ignored.update(id(child) for child in ast.walk(part))
    # define_setting("DATABASE_URL", default=..., required=True): start-up stops without
    # the variable, so the default never reaches production.
    return ignored | required_defaults(tree)


STATIC_STORAGES = "django.contrib.staticfiles.storage."
# Keys of a backend's own configuration, never of a table of choices.
CONFIG_KEYS = frozenset({"ENGINE", "BACKEND", "default", "LOCATION", "NAME", "OPTIONS"})


# The kind a backend class's name ends with: the alternatives a choice table lists.
KIND_SUFFIX = lazy_compile(r"(Storage|Cache|KVStore|Backend)$")


def _is_choice_table(node: ast.Dict) -> bool:
    """``{"mysql": "django.db.backends.mysql", "sqlite": "django.db.backends.sqlite3"}``:
    backends an option picks from by name; listing SQLite there does not choose it."""
    keys = [string_value(k) if k is not None else None for k in node.keys]
    if not keys or any(k is None or k in CONFIG_KEYS for k in keys):
        return False
    paths = [text for v in node.values if (text := string_value(v)) and "." in text]
    if len(paths) < 2 or len(paths) != len(node.values):
        return False
    if len({path.rsplit(".", 1)[0] for path in paths}) == 1:
        return True
    # ``{"s3": "storages….S3Boto3Storage", "local-storage": "django….FileSystemStorage"}``:
    # classes of one kind from several packages, picked by name.
    kinds = [KIND_SUFFIX.search(path.rsplit(".", 1)[1]) for path in paths]
    return all(kinds) and len({kind[0] for kind in kinds if kind}) == 1


def _is_placeholder(node: ast.Dict) -> bool:
    """A database alias whose engine is left unfinished (``"ENGINE": "django.db.backends."``,
    or empty): a template that another file must replace whole, not a value to judge."""
    for key, value in zip(node.keys, node.values, strict=True):
        if key is not None and string_value(key) == "ENGINE":
            engine = string_value(value)
            return engine is not None and (engine == "" or engine.endswith("."))
    return False


def required_defaults(tree: ast.AST) -> set[int]:
    """``id()`` of each node in the ``default=`` of an option declared ``required=True``."""
    return {
        id(child)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and is_required_option(node)
        for keyword in node.keywords
        if keyword.arg == "default"
        for child in ast.walk(keyword.value)
    }


def _branch_outcome(test: ast.AST, defaults: dict[str, str], on: AbstractSet[str]) -> bool | None:
    outcome = switch_outcome(test, on)
    return default_outcome(test, defaults) if outcome is None else outcome


# ``locals()``, ``globals()``, ``dir()``, ``vars()``: the names a module has bound so far.
BOUND_NAMES = frozenset({"locals", "globals", "dir", "vars"})


def guards_of_bound_names(tree: ast.AST) -> dict[int, bool]:
    """``id()`` of each top-level ``if "SECRET_KEY" not in locals():`` (or ``in``) whose
    name an earlier top-level statement always binds, to the test's outcome: the fallback
    under it never runs (``SECRET_KEY = env("SECRET_KEY")`` above it binds the name, set
    or not)."""
    outcomes: dict[int, bool] = {}
    bound: set[str] = set()
    for statement in getattr(tree, "body", ()):
        test = statement.test if isinstance(statement, ast.If) else None
        if (
            isinstance(test, ast.Compare)
            and len(test.ops) == 1
            and isinstance(test.ops[0], ast.In | ast.NotIn)
            and isinstance(call := test.comparators[0], ast.Call)
            and not call.args
            and dotted(call.func) in BOUND_NAMES
            and string_value(test.left) in bound
        ):
            outcomes[id(statement)] = isinstance(test.ops[0], ast.In)
        if isinstance(statement, ast.Assign):
            bound.update(t.id for t in statement.targets if isinstance(t, ast.Name))
        elif (
            isinstance(statement, ast.AnnAssign)
            and statement.value is not None
            and isinstance(statement.target, ast.Name)
        ):
            bound.add(statement.target.id)
    return outcomes


def _is_set_in_environment(test: ast.AST) -> bool:
    """``"CACHE_URL" in os.environ``, ``"CACHES" in conf["django"]``: true only where the
    deployment sets the variable (or the option of a configuration mapping)."""
    if not (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.In)
        and (key := string_value(test.left)) is not None
    ):
        return False
    container = test.comparators[0]
    if (dotted(container) or "").endswith("environ"):
        return True
    return bool(OPTION_KEY.match(key)) and isinstance(
        container, ast.Name | ast.Attribute | ast.Subscript
    )


def off_by_default(test: ast.AST, unset: AbstractSet[str] = frozenset()) -> bool:
    """A branch taken only when DEBUG, a test run (``if TESTING:``) or an option that
    defaults to nothing is set: ``if DEBUG:``, ``if not SECRET_KEY and DEBUG:``,
    ``if SESSION_FILE_PATH is not None:`` (bound to None above), ``if env("CACHE_URL"):``
    (whose default is ""), ``if "CACHE_URL" in os.environ:``."""
    if isinstance(test, ast.Name):
        return test.id == "DEBUG" or test.id in unset or bool(TEST_RUN_FLAG.match(test.id))
    if is_test_or_build_run(test) or _is_set_in_environment(test):
        return True
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return any(off_by_default(value, unset) for value in test.values)
    if isinstance(test, ast.BoolOp):  # ``"test" in sys.argv or "pytest" in sys.modules``
        return all(off_by_default(value, unset) for value in test.values)
    if (tested := not_none_operand(test)) is not None:
        return off_by_default(tested, unset)
    return isinstance(test, ast.Call) and falsy_when_unset(test)


def on_by_default(test: ast.AST, unset: AbstractSet[str] = frozenset()) -> bool:
    """``if not DEBUG:``: the branch production takes; its ``else`` is the developer's."""
    return (
        isinstance(test, ast.UnaryOp)
        and isinstance(test.op, ast.Not)
        and off_by_default(test.operand, unset)
    )


def off_by_default_statements(tree: ast.AST) -> set[int]:
    """``id()`` of each statement in a branch that is off when nothing is set (see
    ``off_by_default``): a setting assigned only there is left at Django's default. An
    option's branch nested in a branch production may take (``if not DEBUG:`` then
    ``if USE_S3:``) is off too."""
    unset = unset_names(tree)
    defaults = default_strings(tree)
    bound = guards_of_bound_names(tree)
    on = on_names(tree)
    found: set[int] = set()
    required: set[str] = set()  # names production must set: a guard above raises
    blocks: list[list[ast.stmt]] = [list(getattr(tree, "body", ()))]
    while blocks:
        for statement in blocks.pop():
            if not isinstance(statement, ast.If):
                continue
            required |= _required_by_guard(statement)
            branch: ast.If | None = statement
            while branch is not None:  # ``if … elif … else``: each test in turn
                outcome = bound.get(id(branch), _branch_outcome(branch.test, defaults, on))
                off = (
                    off_by_default(branch.test, unset)
                    or _tests_unset(branch.test, required)
                    or outcome is False
                )
                if outcome is True or (not off and on_by_default(branch.test, unset)):
                    found.update(id(node) for part in branch.orelse for node in ast.walk(part))
                    blocks.append(branch.body)
                    break
                if off:
                    # The body only: the ``else:`` (or the next ``elif``) is what
                    # production gets.
                    found.update(id(node) for part in branch.body for node in ast.walk(part))
                else:
                    blocks.append(branch.body)
                elif_ = branch.orelse[0] if len(branch.orelse) == 1 else None
                if not isinstance(elif_, ast.If):
                    blocks.append(branch.orelse)
                branch = elif_ if isinstance(elif_, ast.If) else None
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
