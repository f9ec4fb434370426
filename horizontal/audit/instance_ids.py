"""An instance id every instance shares, read from the imported settings' source
(``horizontal.E007``): a constant (followed through the module's names, classes, helpers
and formatting, and environment lookups that fell back to it), or variables that name a
release or a group. Imported lazily by the check, as ``settings_imported`` is.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from horizontal.audit.env_lookups import env_default, environment_variable
from horizontal.audit.known import PER_INSTANCE_ENVIRONMENT
from horizontal.audit.settings_imported import settings_sources
from horizontal.audit.settings_values import top_level_settings
from horizontal.audit.source import PythonModule, dotted, string_value

__all__ = ["constant_instance_id_sites", "names_a_release_or_group", "release_instance_id_sites"]


def constant_instance_id_sites(module_name: str) -> list[tuple[str, str]]:
    """(``path:line``, the literal) for each ``HORIZONTAL_INSTANCE_ID`` the settings source
    sets to a string constant, or whose environment lookup falls back to one
    (``os.environ.get("POD", "web")``): a value every instance shares."""
    found: list[tuple[str, str]] = []
    for module, _name in settings_sources(module_name):
        for statement in top_level_settings(module).get("HORIZONTAL_INSTANCE_ID", []):
            value = getattr(statement, "value", None)
            if value is None:
                continue
            literal = _resolved_constant(value, _ModuleNames(module))
            if literal is None:
                for node in ast.walk(value):
                    if isinstance(node, ast.Call) and len(node.args) >= 2:
                        literal = _constant_text(node.args[1])
                    elif isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
                        literal = _constant_text(node.values[-1])
                    if literal is not None:
                        break
            if literal is not None:
                found.append((f"{module.path}:{statement.lineno}", literal))
    return found


# Environment variables that name a release or a group, the same on every instance of
# it. A release: any name with a word for a version, a commit, an image tag, a build or a
# deployment (Heroku's ``HEROKU_RELEASE_VERSION``, Cloud Run's ``K_REVISION``,
# ``GIT_SHA``, ``BUILD_ID``). A group: a name made only of a group word (app, service,
# namespace, environment, stage, region, cluster, project) and platform qualifiers
# (``K_SERVICE``, ``FLY_APP_NAME``, ``POD_NAMESPACE``, ``APP_ENV``, ``HEROKU_APP_ID``);
# any other word may name the instance (``APP_WORKER_NAME``, ``SERVICE_REPLICA``).
RELEASE_WORDS = frozenset(
    {"RELEASE", "VERSION", "COMMIT", "SHA", "REVISION", "BUILD", "IMAGE", "TAG", "SLUG"}
    | {"DEPLOY", "DEPLOYMENT"}
)
GROUP_WORDS = frozenset(
    {"APP", "SERVICE", "NAMESPACE", "ENV", "ENVIRONMENT", "STAGE", "REGION", "CLUSTER"}
    | {"PROJECT"}
)
GROUP_QUALIFIERS = frozenset(
    {"ID", "NAME", "K", "K8S", "FLY", "HEROKU", "RENDER", "RAILWAY", "KUBERNETES", "POD"}
    | {"AWS", "ECS", "GCP", "CLOUD", "RUN", "DJANGO", "MY"}
)


def names_a_release_or_group(variable: str) -> bool:
    """Whether an environment variable's value is one for every instance of a release or
    a group (see ``RELEASE_WORDS``); never one that names the instance."""
    if variable in PER_INSTANCE_ENVIRONMENT:
        return False
    words = [word for word in variable.upper().split("_") if word]
    if any(word in RELEASE_WORDS for word in words):
        return True
    return any(word in GROUP_WORDS for word in words) and all(
        word in GROUP_WORDS or word in GROUP_QUALIFIERS for word in words
    )


def release_instance_id_sites(module_name: str) -> list[tuple[str, str]]:
    """(``path:line``, the variable) for each ``HORIZONTAL_INSTANCE_ID`` the settings
    source builds only from literals and environment variables that name the release
    (``os.environ["GIT_SHA"]``, ``f"web-{os.getenv('RELEASE')}"``): one value for every
    instance of a release."""
    found: list[tuple[str, str]] = []
    for module, _name in settings_sources(module_name):
        for statement in top_level_settings(module).get("HORIZONTAL_INSTANCE_ID", []):
            value = getattr(statement, "value", None)
            variables = _release_variables(value) if value is not None else None
            if variables:
                found.append((f"{module.path}:{statement.lineno}", variables[0]))
    return found


def _release_variables(node: ast.AST) -> list[str] | None:
    """The release variables ``node`` is built from, or None when a part is anything
    else than a literal or such a variable (a hostname, a pid, another variable)."""
    if isinstance(node, ast.Constant):
        return []
    if isinstance(node, ast.JoinedStr):
        parts: list[ast.AST] = list(node.values)
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        parts = [node.left, node.right]
    elif isinstance(node, ast.FormattedValue):
        parts = [node.value]
    elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
        parts = [node.value]  # ``os.environ["GIT_SHA"][:7]``: a piece of the same value
    else:
        variable = environment_variable(node)
        if variable is None:
            return None
        return [variable] if names_a_release_or_group(variable) else None
    found: list[str] = []
    for part in parts:
        variables = _release_variables(part)
        if variables is None:
            return None
        found += variables
    return found


class _ModuleNames:
    """What a settings module binds at its top level, for ``_resolved_constant``: names,
    class attributes, functions, and ``os.environ.setdefault`` defaults."""

    def __init__(self, module: PythonModule) -> None:
        self.values: dict[str, ast.expr] = {}
        self.functions: dict[str, ast.FunctionDef] = {}
        self.defaults: dict[str, ast.expr] = {}
        for node in module.tree.body:
            if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Name):
                        self.values[target.id] = node.value
            elif isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, ast.Assign | ast.AnnAssign) and item.value is not None:
                        targets = item.targets if isinstance(item, ast.Assign) else [item.target]
                        for target in targets:
                            if isinstance(target, ast.Name):
                                self.values[f"{node.name}.{target.id}"] = item.value
            elif isinstance(node, ast.FunctionDef):
                self.functions[node.name] = node
        if "setdefault" in module.text:
            for call in ast.walk(module.tree):
                if (
                    isinstance(call, ast.Call)
                    and dotted(call.func) == "os.environ.setdefault"
                    and len(call.args) == 2
                ):
                    variable = string_value(call.args[0])
                    if variable is not None:
                        self.defaults[variable] = call.args[1]


def _resolved_constant(node: ast.AST, names: _ModuleNames, depth: int = 0) -> str | None:
    """The text ``node`` has when it is built from constants alone, followed through
    module-level names, class attributes, helper functions, ``%``, ``str.join``,
    ``str.format``, and environment lookups that fall back to a default (also one
    ``os.environ.setdefault`` gives); None when any part is anything else. The caller
    compares it with the live value: equal, no instance-specific part was used."""
    if depth > 4:
        return None

    def again(child: ast.AST) -> str | None:
        return _resolved_constant(child, names, depth + 1)

    if isinstance(node, ast.Constant) and isinstance(node.value, str | int):
        return str(node.value)
    if isinstance(node, ast.JoinedStr):
        parts = [again(part) for part in node.values]
        return "".join(parts) if all(p is not None for p in parts) else None  # type: ignore[arg-type]
    if isinstance(node, ast.FormattedValue):
        return again(node.value) if node.format_spec is None else None
    if isinstance(node, ast.BinOp):
        left, right = again(node.left), None
        if isinstance(node.op, ast.Add):
            right = again(node.right)
            return left + right if left is not None and right is not None else None
        if isinstance(node.op, ast.Mod) and left is not None:
            items = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
            # A number stays one: ``"web-%d" % 1``.
            values: list[object] = [
                item.value
                if isinstance(item, ast.Constant)
                and isinstance(item.value, int)
                and abs(item.value) < 2**31
                else again(item)
                for item in items
            ]
            if all(v is not None for v in values):
                if "*" in left:
                    return None  # a width from the values: ``"%*d"`` may be any size
                try:
                    return left % tuple(values)
                except (TypeError, ValueError, OverflowError):
                    return None
        return None
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
        return again(node.values[-1])
    if isinstance(node, ast.Name | ast.Attribute):
        bound = names.values.get(dotted(node) or "")
        return again(bound) if bound is not None else _looked_up(node, names, again)
    if isinstance(node, ast.Subscript):
        return _looked_up(node, names, again)
    if isinstance(node, ast.Call):
        return _called(node, names, again)
    return None


def _looked_up(
    node: ast.AST, names: _ModuleNames, again: Callable[[ast.AST], str | None]
) -> str | None:
    """An environment lookup's default: its own, or the one ``setdefault`` gave."""
    variable = environment_variable(node)
    if variable is None:
        return None
    default = env_default(node) if isinstance(node, ast.Call) else None
    if default is None:
        default = names.defaults.get(variable)
    return again(default) if default is not None else None


def _called(
    call: ast.Call, names: _ModuleNames, again: Callable[[ast.AST], str | None]
) -> str | None:
    function = call.func
    if isinstance(function, ast.Attribute) and function.attr in {"join", "format"}:
        receiver = again(function.value)
        if receiver is None:
            return None
        if function.attr == "join" and len(call.args) == 1:
            items = call.args[0]
            if isinstance(items, ast.List | ast.Tuple):
                parts = [again(item) for item in items.elts]
                return receiver.join(parts) if all(p is not None for p in parts) else None  # type: ignore[arg-type]
            return None
        if function.attr == "format" and not call.keywords:
            values = [again(argument) for argument in call.args]
            if all(v is not None for v in values):
                try:
                    return receiver.format(*values)
                except (IndexError, KeyError, ValueError):
                    return None
        return None
    if isinstance(function, ast.Name) and function.id == "str" and len(call.args) == 1:
        return again(call.args[0])  # ``str(os.environ.get("REPLICA", 0))``
    if isinstance(function, ast.Name) and function.id in names.functions and not call.args:
        returns = [
            node.value
            for node in ast.walk(names.functions[function.id])
            if isinstance(node, ast.Return) and node.value is not None
        ]
        return again(returns[0]) if len(returns) == 1 else None
    return _looked_up(call, names, again)


def _constant_text(node: ast.AST) -> str | None:
    """A string (or number) constant, or an f-string/concatenation of constants only."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str | int) and node.value != "":
        return str(node.value)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _constant_text(node.left), _constant_text(node.right)
        return left + right if left is not None and right is not None else None
    return None
