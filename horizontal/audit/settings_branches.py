"""Branches of a settings module that production does not take when nothing is set.

A value chosen only under ``if DEBUG:``, a test run (``if TESTING:``) or an option that
defaults to nothing (``X = os.getenv("X")`` then ``if X:``) is not production's; a string
inside a comparison, or in a branch whose test names it (``if url.startswith("sqlite"):``),
was asked for, not left as a default. Reads parsed source only.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Set as AbstractSet

from horizontal.audit.env_lookups import (
    TEST_RUN_FLAG,
    TEXT_PARSERS,
    env_default,
    is_required_option,
    is_test_run,
    is_test_run_expression,
    parsed_as_bool,
    reads_as_false,
    reads_as_true,
)
from horizontal.audit.patterns import lazy_compile
from horizontal.audit.source import dotted, last_part, string_value

__all__ = [
    "explicitly_chosen",
    "guards_of_bound_names",
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


def unset_names(tree: ast.AST) -> set[str]:
    """Top-level names whose value is falsy when nothing is set: ``X = None``,
    ``X = os.environ.get("X")``, ``X = getattr(configuration, "X", None)``,
    ``X = env("X", default="")`` (the last top-level assignment decides)."""
    unset: set[str] = set()
    defaults = default_strings(tree)
    for statement in getattr(tree, "body", ()):
        if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1):
            continue
        target = statement.targets[0]
        if isinstance(target, ast.Name):
            if (
                _falsy_when_unset(statement.value, unset)
                or default_outcome(statement.value, defaults) is False
                or is_test_run_expression(statement.value)
            ):
                unset.add(target.id)
            else:
                unset.discard(target.id)
    return unset


def on_names(tree: ast.AST) -> set[str]:
    """Top-level names bound to a boolean option that is on when nothing is set
    (``USE_REDIS_CACHE = env.bool("USE_REDIS_CACHE", default=True)``; the last top-level
    assignment decides): ``if USE_REDIS_CACHE:`` is production's branch, its ``else`` what
    an operator chooses by switching it off."""
    on: set[str] = set()
    for statement in getattr(tree, "body", ()):
        if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1):
            continue
        target = statement.targets[0]
        if not isinstance(target, ast.Name):
            continue
        value = statement.value
        if (
            isinstance(value, ast.Call)
            and parsed_as_bool(value)
            and reads_as_true(env_default(value))
        ):
            on.add(target.id)
        else:
            on.discard(target.id)
    return on


def switch_outcome(test: ast.AST, on: AbstractSet[str]) -> bool | None:
    """``if USE_REDIS_CACHE:`` (True) or ``if not USE_REDIS_CACHE:`` (False) for a switch
    that is on by default; None for any other test."""
    if isinstance(test, ast.Name) and test.id in on:
        return True
    if (
        isinstance(test, ast.UnaryOp)
        and isinstance(test.op, ast.Not)
        and isinstance(test.operand, ast.Name)
        and test.operand.id in on
    ):
        return False
    return None


def _falsy_when_unset(value: ast.AST, unset: AbstractSet[str] = frozenset()) -> bool:
    """Also what follows from options left unset: ``INCIDENT = INCIDENTS.get(KIND)`` (a
    mapping's ``get`` of None), ``READ_ONLY = INCIDENT and INCIDENT["readonly"]``, a
    configuration mapping's option with no value (``REDIS.get("UNIX_SOCKET_PATH", "")``)
    and a platform service no deployment bound (``env.get_service(label="s3")``)."""
    if isinstance(value, ast.Constant):
        return not value.value
    if isinstance(value, ast.Name):
        return value.id in unset
    if isinstance(value, ast.BoolOp) and isinstance(value.op, ast.And):
        return any(_falsy_when_unset(v, unset) for v in value.values)
    if (
        isinstance(value, ast.Compare)
        and len(value.ops) == 1
        and isinstance(value.ops[0], ast.IsNot)
        and isinstance(value.comparators[0], ast.Constant)
        and value.comparators[0].value is None
    ):
        # ``REDIS_SSL = REDIS_PASSWORD is not None``: false while the option is unset.
        return _falsy_when_unset(value.left, unset)
    if not isinstance(value, ast.Call):
        return False
    if _mapping_get_of_nothing(value, unset):
        return True
    if last_part(dotted(value.func)) in TEXT_PARSERS and len(value.args) == 1:
        # ``ast.literal_eval(os.environ.get("X", "False"))``: the default's text, parsed.
        return reads_as_false(env_default(value.args[0]))
    default = env_default(value)
    if default is not None:
        if isinstance(default, ast.Constant) and parsed_as_bool(value):
            # ``config("TOOL_ENV", default="false", parser=bool)``: the text, parsed.
            return reads_as_false(default)
        return isinstance(default, ast.Constant) and not default.value
    # os.environ.get("X") and os.getenv("X") give None; env("X") with no default raises.
    function = dotted(value.func) or ""
    if function.endswith("get_service"):
        return True  # cfenv's AppEnv().get_service(label="s3"): None when none is bound
    return function.endswith(("getenv", "environ.get")) and len(value.args) == 1


# str methods that keep a default's meaning: os.getenv("X", "redis").strip().lower()
TEXT_METHODS = frozenset({"strip", "lower", "upper", "casefold", "rstrip", "lstrip"})


def _default_string(node: ast.AST, defaults: dict[str, str]) -> str | None:
    """The string ``node`` is when nothing is set: an environment lookup's string default
    (through ``.strip()``/``.lower()``), or a name bound to one above."""
    if isinstance(node, ast.Name):
        return defaults.get(node.id)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in TEXT_METHODS
        and not node.args
    ):
        inner = _default_string(node.func.value, defaults)
        if inner is None:
            return None
        method = node.func.attr
        return inner.strip() if method == "strip" else getattr(inner, method)()
    default = env_default(node)
    return string_value(default) if default is not None else None


# An environment's name that says it is production (``ENV not in ["STAGING", "PRODUCTION"]``).
PRODUCTION_NAME = lazy_compile(r"^(prod|production|live)$", re.I)
DEVELOPMENT_NAME = lazy_compile(r"^(local|dev|devel|development|test|testing)$", re.I)


def _branch_outcome(test: ast.AST, defaults: dict[str, str], on: AbstractSet[str]) -> bool | None:
    outcome = switch_outcome(test, on)
    return default_outcome(test, defaults) if outcome is None else outcome


def default_outcome(test: ast.AST, defaults: dict[str, str]) -> bool | None:
    """Whether ``test`` holds when nothing is set (or, for a switch that names production,
    in production), where that is known:
    ``os.environ.get("USE_SQLITE", "false").strip() == "true"`` is False, ``CACHE_TYPE ==
    "redis"`` with ``CACHE_TYPE = os.getenv("CACHE_TYPE", "redis")`` is True."""
    if not (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.Eq | ast.NotEq | ast.In | ast.NotIn)
    ):
        return None
    value = _default_string(test.left, defaults)
    right = test.comparators[0]
    if value is None and isinstance(test.left, ast.Name) and _names_environments(right):
        value = ""  # a required ``ENVIRONMENT``: which one production is, its names say
    if value is None and _lookup_of_nothing(test.left) and string_value(right):
        value = ""  # ``os.getenv("INTEGRATION_TEST") == "TRUE"``: None is no such text
    if value is None:
        return None
    if isinstance(test.ops[0], ast.Eq | ast.NotEq):
        other = string_value(right)
        if other is None:
            return None
        if PRODUCTION_NAME.match(other):
            value = other  # a switch between named environments: production is its own
        elif DEVELOPMENT_NAME.match(other):
            value = "production"  # ``if ENVIRONMENT == "local":``: not production's arm
        return (value == other) == isinstance(test.ops[0], ast.Eq)
    if not isinstance(right, ast.Tuple | ast.List | ast.Set):
        return None
    options = [string_value(e) for e in right.elts]
    if any(o is None for o in options):
        return None
    named = next((o for o in options if o and PRODUCTION_NAME.match(o)), None)
    if named is None and options and all(o and DEVELOPMENT_NAME.match(o) for o in options):
        named = "production"  # ``in ("local", "dev")``: production is none of them
    return ((named or value) in options) == isinstance(test.ops[0], ast.In)


def _lookup_of_nothing(node: ast.AST) -> bool:
    """``os.getenv("X")``, ``os.environ.get("X")``: None when the variable is unset."""
    return (
        isinstance(node, ast.Call)
        and len(node.args) == 1
        and not node.keywords
        and (dotted(node.func) or "").endswith(("getenv", "environ.get"))
    )


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


def _names_environments(node: ast.AST) -> bool:
    """``"local"``, ``["staging", "production"]``: the names of deployment environments."""
    names = [node] if isinstance(node, ast.Constant) else getattr(node, "elts", [])
    texts = [string_value(n) or "" for n in names]
    return bool(texts) and any(PRODUCTION_NAME.match(t) or DEVELOPMENT_NAME.match(t) for t in texts)


def default_strings(tree: ast.AST) -> dict[str, str]:
    """Top-level names bound to an environment lookup's string default (the last
    top-level assignment decides): ``CACHE_TYPE = os.getenv("CACHE_TYPE", "redis")``."""
    defaults: dict[str, str] = {}
    for statement in getattr(tree, "body", ()):
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target = statement.targets[0]
            if isinstance(target, ast.Name):
                value = _default_string(statement.value, defaults)
                if value is None:
                    defaults.pop(target.id, None)
                else:
                    defaults[target.id] = value
    return defaults


# An option's key in a configuration mapping (``REDIS["caching"].get("SOCKET_PATH", "")``).
OPTION_KEY = lazy_compile(r"^[A-Z][A-Z0-9_]*$")


def _mapping_get_of_nothing(call: ast.Call, unset: AbstractSet[str]) -> bool:
    """``MAPPING.get(NAME)`` with ``NAME`` unset (a dict's get of None), or
    ``MAPPING.get("OPTION")``/``MAPPING.get("OPTION", "")``: falsy unless configured."""
    if not (isinstance(call.func, ast.Attribute) and call.func.attr == "get") or call.keywords:
        return False
    if len(call.args) == 1 and not isinstance(call.args[0], ast.Constant):
        return _falsy_when_unset(call.args[0], unset)
    key = string_value(call.args[0]) if call.args else None
    if key is None or not OPTION_KEY.match(key) or len(call.args) > 2:
        return False
    default = call.args[1] if len(call.args) == 2 else None
    return default is None or (isinstance(default, ast.Constant) and not default.value)


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
    if is_test_run(test) or _is_set_in_environment(test):
        return True
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return any(off_by_default(value, unset) for value in test.values)
    if isinstance(test, ast.BoolOp):  # ``"test" in sys.argv or "pytest" in sys.modules``
        return all(off_by_default(value, unset) for value in test.values)
    if (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.IsNot)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value is None
    ):
        return off_by_default(test.left, unset)
    return isinstance(test, ast.Call) and _falsy_when_unset(test)


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
