"""What a settings module's top-level names hold when nothing is set.

``X = os.getenv("X")`` is falsy until an operator sets it; ``USE_REDIS = env.bool(…,
default=True)`` is on; ``CACHE_TYPE = os.getenv("CACHE_TYPE", "redis")`` is ``"redis"``.
``settings_branches`` reads ``if`` tests with these to tell production's branch from the
ones an option chooses. Reads parsed source only.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Set as AbstractSet

from horizontal.audit.env_lookups import (
    TEXT_PARSERS,
    env_default,
    is_test_or_build_expression,
    parsed_as_bool,
    reads_as_false,
    reads_as_true,
)
from horizontal.audit.patterns import lazy_compile
from horizontal.audit.source import dotted, last_part, string_value

__all__ = [
    "OPTION_KEY",
    "default_outcome",
    "default_strings",
    "falsy_when_unset",
    "not_none_operand",
    "on_names",
    "switch_outcome",
    "unset_names",
]


def unset_names(tree: ast.AST) -> set[str]:
    """Top-level names whose value is falsy when nothing is set: ``X = None``,
    ``X = os.environ.get("X")``, ``X = getattr(configuration, "X", None)``,
    ``X = env("X", default="")`` (the last top-level assignment decides)."""
    unset: set[str] = set()
    defaults = default_strings(tree)
    pending = list(getattr(tree, "body", ()))
    while pending:
        statement = pending.pop(0)
        if isinstance(statement, ast.If) and _off_when_unset(statement.test, unset):
            # ``if "redis" in VCAP_SERVICES: … else: REDIS_URL = env("REDIS_URL",
            # default=None)``: the ``else`` is what runs when nothing is set.
            pending[:0] = statement.orelse
            continue
        if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1):
            continue
        target = statement.targets[0]
        if isinstance(target, ast.Name):
            if (
                falsy_when_unset(statement.value, unset)
                or default_outcome(statement.value, defaults) is False
                or is_test_or_build_expression(statement.value)
            ):
                unset.add(target.id)
            else:
                unset.discard(target.id)
    return unset


def _off_when_unset(test: ast.AST, unset: AbstractSet[str]) -> bool:
    """A test that is false when nothing is set: a name bound to nothing, membership in
    one (``"redis" in VCAP_SERVICES`` with ``VCAP_SERVICES = env.json(…, default={})``),
    or an environment lookup with an empty default."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.In):
        container = test.comparators[0]
        return isinstance(container, ast.Name) and container.id in unset
    return falsy_when_unset(test, unset)


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


def not_none_operand(node: ast.AST) -> ast.AST | None:
    """``X`` of ``X is not None``; None for any other expression."""
    if (
        isinstance(node, ast.Compare)
        and len(node.ops) == 1
        and isinstance(node.ops[0], ast.IsNot)
        and isinstance(node.comparators[0], ast.Constant)
        and node.comparators[0].value is None
    ):
        return node.left
    return None


def falsy_when_unset(value: ast.AST, unset: AbstractSet[str] = frozenset()) -> bool:
    """Also what follows from options left unset: ``INCIDENT = INCIDENTS.get(KIND)`` (a
    mapping's ``get`` of None), ``READ_ONLY = INCIDENT and INCIDENT["readonly"]``, a
    configuration mapping's option with no value (``REDIS.get("UNIX_SOCKET_PATH", "")``)
    and a platform service no deployment bound (``env.get_service(label="s3")``)."""
    if isinstance(value, ast.Constant):
        return not value.value
    if isinstance(value, ast.Name):
        return value.id in unset
    if isinstance(value, ast.BoolOp) and isinstance(value.op, ast.And):
        return any(falsy_when_unset(v, unset) for v in value.values)
    if (tested := not_none_operand(value)) is not None:
        # ``REDIS_SSL = REDIS_PASSWORD is not None``: false while the option is unset.
        return falsy_when_unset(tested, unset)
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
        # An empty default, also an empty mapping or list (``env.json("X", default={})``).
        if isinstance(default, ast.Dict):
            return not default.keys
        if isinstance(default, ast.List | ast.Tuple):
            return not default.elts
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
    """``os.getenv("X")``, ``os.environ.get("X")``, ``os.environ.get("X", None)``: None
    when the variable is unset."""
    return (
        isinstance(node, ast.Call)
        and (
            len(node.args) == 1
            or (
                len(node.args) == 2
                and isinstance(node.args[1], ast.Constant)
                and node.args[1].value is None
            )
        )
        and not node.keywords
        and (dotted(node.func) or "").endswith(("getenv", "environ.get"))
    )


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
        return falsy_when_unset(call.args[0], unset)
    key = string_value(call.args[0]) if call.args else None
    if key is None or not OPTION_KEY.match(key) or len(call.args) > 2:
        return False
    default = call.args[1] if len(call.args) == 2 else None
    return default is None or (isinstance(default, ast.Constant) and not default.value)
