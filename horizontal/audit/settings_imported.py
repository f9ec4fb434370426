"""The deploy checks' view: the source of the settings module this process imported.

``check --deploy`` sees the live settings values, not how they were made: that a
``SECRET_KEY`` came from a random call (W050), a cache ``KEY_PREFIX`` from the hostname,
or ``HORIZONTAL_INSTANCE_ID`` from a literal every instance shares. These functions read
the source of the imported settings module and of every module it takes settings from
(``from .base import *``), found in ``sys.modules``, with the audit's rules. They never
import a module, and leave out nothing for looking like development settings: the module
being checked is the one deployed. The checks import this module lazily, inside the
check, so that a web worker never loads it.
"""

from __future__ import annotations

import ast
import os
import sys
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path

from horizontal.audit.env_lookups import env_default
from horizontal.audit.known import PER_INSTANCE_CALLS, PER_INSTANCE_ENVIRONMENT
from horizontal.audit.settings_branches import off_by_default_statements
from horizontal.audit.settings_secrets import random_value_line
from horizontal.audit.settings_values import top_level_settings
from horizontal.audit.source import PythonModule, dotted, string_value

__all__ = [
    "constant_instance_id_sites",
    "per_instance_cache_options",
    "per_instance_calls_in",
    "random_secret_key_sites",
    "release_instance_id_sites",
    "settings_sources",
]

CACHE_NAMESPACE_OPTIONS = ("KEY_PREFIX", "VERSION", "KEY_FUNCTION")


def settings_sources(
    module_name: str, deciding: str | None = None
) -> list[tuple[PythonModule, str]]:
    """The parsed source of the imported settings module ``module_name`` and of every
    module it takes settings from (``from .base import *``, ``from X import NAME``), to
    any depth, each with its module name; the module itself first. Nothing is imported.

    With ``deciding`` (a setting's name), an import that a later unconditional assignment
    of that setting overrides is not followed: what it set there is not what runs."""
    return list(_imported_settings(module_name, None, depth_first=False, deciding=deciding))


def random_secret_key_sites(module_name: str) -> list[str]:
    """``path:line`` of each random ``SECRET_KEY`` in the imported settings module
    ``module_name`` and in the modules it takes its settings from (``from .base import *``,
    ``from X import SECRET_KEY``), followed to any depth.

    The same rule as the audit's (``settings_secrets.random_value_line``), for ``check
    --deploy`` (horizontal.W050).
    """
    sites: list[str] = []
    names = ("*", "SECRET_KEY")
    settings_modules = _imported_settings(
        module_name, names, depth_first=True, deciding="SECRET_KEY"
    )
    for module, _name in settings_modules:
        statements = top_level_settings(module).get("SECRET_KEY", [])
        # As the audit reads it: a key generated only in a branch production does not
        # take (under DEBUG, after a guard that stops production without a key) is not
        # production's; nor is one a later unconditional assignment replaces.
        off = off_by_default_statements(module.tree)
        last = last_unconditional_assignment(module, "SECRET_KEY")
        for statement in sorted(statements, key=lambda node: node.lineno):
            if id(statement) in off or statement.lineno < last:
                continue
            line = random_value_line(module, statement, helpers=_imported_module)
            if line is not None:
                sites.append(f"{module.path}:{line}")
    return sites


def _imported_settings(
    module_name: str,
    names: tuple[str, ...] | None,
    *,
    depth_first: bool,
    deciding: str | None = None,
) -> Iterator[tuple[PythonModule, str]]:
    """``module_name``'s source and that of each module it takes ``names`` from
    (``_settings_imports``), each once, with its module name: depth first (each import
    followed before the next, as Python runs them) or breadth first."""
    seen: set[str] = set()
    pending = [module_name]
    while pending:
        name = pending.pop() if depth_first else pending.pop(0)
        if name in seen:
            continue
        seen.add(name)
        source = _imported_source(name)
        if source is None:
            continue
        module, package = source
        yield module, name
        after = last_unconditional_assignment(module, deciding) if deciding else 0
        imported = list(_settings_imports(module, package, names, after))
        pending.extend(reversed(imported) if depth_first else imported)


def _imported_source(module_name: str) -> tuple[PythonModule, str] | None:
    """The parsed source of the imported module ``module_name``, with the package its
    relative imports start from; None when it is not imported or has no ``.py`` source."""
    loaded = sys.modules.get(module_name)
    filename = getattr(loaded, "__file__", None)
    if not isinstance(filename, str) or not filename.endswith(".py"):
        return None
    try:
        module = _parsed(filename, os.stat(filename).st_mtime)
    except OSError:
        return None
    if module is None:
        return None
    # A package's __init__ is its own package; a plain module's is its parent's.
    return module, getattr(loaded, "__package__", None) or module_name.rpartition(".")[0]


def _imported_module(module_name: str) -> PythonModule | None:
    """The parsed source of an imported project module (a settings helper), or None for
    the standard library and installed packages: the audit follows only the scanned
    tree's modules, and parsing ``os.py`` on every ``check --deploy`` would cost."""
    loaded = sys.modules.get(module_name)
    filename = getattr(loaded, "__file__", None)
    if not isinstance(filename, str) or _installed(filename):
        return None
    source = _imported_source(module_name)
    return source[0] if source else None


def _installed(filename: str) -> bool:
    parts = Path(filename).parts
    if "site-packages" in parts or "dist-packages" in parts:
        return True
    prefixes = {sys.base_prefix, sys.base_exec_prefix}
    return any(Path(filename).is_relative_to(Path(prefix, "lib")) for prefix in prefixes)


@cache
def _parsed(filename: str, mtime: float) -> PythonModule | None:
    # Keyed by mtime so that an edited module (runserver's reloads) is read again.
    try:
        text = Path(filename).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    return PythonModule.parse(filename, text)


def last_unconditional_assignment(module: PythonModule, name: str) -> int:
    """The line of the last top-level statement that assigns ``name`` whatever the
    branch (``SECRET_KEY = os.environ["KEY"]``), or 0: what comes before it is replaced."""
    last = 0
    for node in module.tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign) and node.value is not None:
            targets = [node.target]
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            last = node.lineno
    return last


def _settings_imports(
    module: PythonModule, package: str, names: tuple[str, ...] | None, after: int = 0
) -> Iterator[str]:
    """Modules a settings module pulls settings from: ``*`` or one of ``names`` (any
    UPPERCASE name when ``names`` is None); not those imported before line ``after``."""
    for node in module.tree.body:
        if not isinstance(node, ast.ImportFrom) or node.lineno < after:
            continue
        if names is None:
            if not any(a.name == "*" or a.name.isupper() for a in node.names):
                continue
        elif not any(alias.name in names for alias in node.names):
            continue
        if node.level:
            base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
            yield f"{base}.{node.module}" if node.module else base
        elif node.module:
            yield node.module


# -- values that differ per instance: cache namespaces, the instance id ---------------------


def per_instance_cache_options(module_name: str) -> dict[tuple[str, str], str]:
    """``{(alias, option): "uuid4()"}`` for each cache ``KEY_PREFIX``/``VERSION`` in the
    settings source whose value comes from a per-instance call, directly or through
    module-level names, class attributes and helper functions. Only what reaches
    ``CACHES``: a dict written inside a ``CACHES`` assignment (``CACHES = {…}``,
    ``CACHES["pages"] = {…}``, ``CACHES = {**CACHES, "pages": {…}}``), an option set by
    subscript or ``.update()`` on an alias, or a dict bound to a name (or returned by a
    helper) that a ``CACHES`` assignment uses, alias ``"*"`` when its own is not written
    (``pages = env.cache(…); pages["KEY_PREFIX"] = …; CACHES["pages"] = pages``).
    Statements in a branch production does not take (``if "test" in sys.argv:``) are not
    production's."""
    found: dict[tuple[str, str], str] = {}
    for module, _name in settings_sources(module_name, deciding="CACHES"):
        if "KEY_PREFIX" not in module.text and "VERSION" not in module.text:
            continue
        per_instance_names = _per_instance_names(module)
        off = _nodes_within(module.tree, off_by_default_statements(module.tree))
        flow = _CacheFlow(module.tree)
        for node in ast.walk(module.tree):
            if id(node) in off:
                continue
            for place, expression in flow.namespace_values(node):
                why = _per_instance_expression(expression, per_instance_names)
                if why is not None:
                    found.setdefault(place, why)
    return found


class _CacheFlow:
    """Which dicts and names of a settings module reach ``CACHES``, and under which
    alias, for ``per_instance_cache_options``."""

    def __init__(self, tree: ast.AST) -> None:
        self.in_caches: set[int] = set()  # nodes inside what is assigned to CACHES
        self.into_caches: set[str] = set()  # names and helpers a CACHES assignment uses
        self.owner: dict[int, str] = {}  # a dict bound to a name, or a helper's return
        self.alias: dict[int, str] = {}  # a dict written as an alias
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign):
                self._assignment(node)
            elif isinstance(node, ast.Call) and _update_of(node) is not None:
                receiver = _update_of(node)
                if receiver is not None and _root_name(receiver) == "CACHES":
                    self._reaches_caches([*node.args, *(k.value for k in node.keywords)])
            elif isinstance(node, ast.FunctionDef):
                for child in ast.walk(node):
                    if isinstance(child, ast.Return) and isinstance(child.value, ast.Dict):
                        self._own(child.value, f"{node.name}()")
            elif isinstance(node, ast.Dict):
                for key, value in zip(node.keys, node.values, strict=True):
                    alias = string_value(key)
                    if isinstance(value, ast.Dict) and alias is not None:
                        self.alias[id(value)] = alias

    def _assignment(self, node: ast.Assign) -> None:
        for target in node.targets:
            keys = _subscript_keys(target)
            if _root_name(target) == "CACHES":
                self._reaches_caches([node.value])
                if keys and keys[-1] not in CACHE_NAMESPACE_OPTIONS:
                    self.alias[id(node.value)] = keys[-1]  # ``CACHES["pages"] = {…}``
            elif isinstance(target, ast.Name) and isinstance(node.value, ast.Dict):
                self._own(node.value, target.id)

    def _own(self, value: ast.Dict, owner: str) -> None:
        """The dict and the dicts nested in it are ``owner``'s (a name, a helper)."""
        for child in ast.walk(value):
            if isinstance(child, ast.Dict):
                self.owner[id(child)] = owner

    def _reaches_caches(self, values: list[ast.expr]) -> None:
        for value in values:
            for child in ast.walk(value):
                self.in_caches.add(id(child))
                if isinstance(child, ast.Name):
                    self.into_caches.add(child.id)
                elif isinstance(child, ast.Call) and isinstance(child.func, ast.Name):
                    self.into_caches.add(f"{child.func.id}()")

    def _reaches(self, node: ast.AST) -> bool:
        return id(node) in self.in_caches or self.owner.get(id(node), "") in self.into_caches

    def namespace_values(self, node: ast.AST) -> Iterator[tuple[tuple[str, str], ast.AST]]:
        """((alias, option), value) for each namespace option ``node`` sets in CACHES."""
        if isinstance(node, ast.Dict):
            if not self._reaches(node):
                return
            alias = self.alias.get(id(node), "*")
            for key, value in zip(node.keys, node.values, strict=True):
                option = string_value(key)
                if option in CACHE_NAMESPACE_OPTIONS:
                    yield (alias, option), value
        elif isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                keys = _subscript_keys(target)
                if keys and keys[-1] in CACHE_NAMESPACE_OPTIONS:
                    named = self._alias_of(_root_name(target), keys[:-1])
                    if named is not None:
                        yield (named, keys[-1]), node.value
        elif isinstance(node, ast.Call) and (receiver := _update_of(node)) is not None:
            updated = self._alias_of(_root_name(receiver), _subscript_keys(receiver))
            if updated is not None:
                for item in node.keywords:
                    if item.arg in CACHE_NAMESPACE_OPTIONS:
                        yield (updated, item.arg), item.value

    def _alias_of(self, root: str | None, keys: list[str]) -> str | None:
        """The alias an option set on ``root[keys…]`` belongs to, when it reaches CACHES."""
        if root == "CACHES":
            return keys[-1] if keys else None
        if root is not None and root in self.into_caches:
            return keys[-1] if keys else "*"
        return None


def _update_of(call: ast.Call) -> ast.expr | None:
    """The receiver of a ``.update(…)`` call."""
    if isinstance(call.func, ast.Attribute) and call.func.attr == "update":
        return call.func.value
    return None


def _root_name(target: ast.AST) -> str | None:
    """``CACHES`` for ``CACHES["pages"]["KEY_PREFIX"]``; None when it is no name."""
    while isinstance(target, ast.Subscript):
        target = target.value
    return target.id if isinstance(target, ast.Name) else None


def _nodes_within(tree: ast.AST, statements: set[int]) -> set[int]:
    """``id()`` of every node inside the statements whose ids are given."""
    if not statements:
        return set()
    return {
        id(child) for node in ast.walk(tree) if id(node) in statements for child in ast.walk(node)
    }


def _subscript_keys(target: ast.AST) -> list[str]:
    keys: list[str] = []
    while isinstance(target, ast.Subscript):
        key = string_value(target.slice)
        keys.insert(0, key if key is not None else "?")
        target = target.value
    return keys


def _per_instance_names(module: PythonModule) -> dict[str, str]:
    """Names whose value is this instance's own, in the order the module binds them:
    ``HOST = socket.gethostname()``, then ``PREFIX = f"shop-{HOST}"`` (through earlier
    names), ``RUN_ID: str = uuid4().hex``, a class attribute (``Runtime.TOKEN``) and a
    module-level function that returns one (``_node_tag()``)."""
    names: dict[str, str] = {}

    def bind(prefix: str, body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
                why = _per_instance_expression(node.value, names)
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if why is not None and isinstance(target, ast.Name):
                        names[prefix + target.id] = why
            elif isinstance(node, ast.ClassDef) and not prefix:
                bind(f"{node.name}.", node.body)
            elif isinstance(node, ast.FunctionDef) and not prefix:
                returned = [
                    why
                    for child in ast.walk(node)
                    if isinstance(child, ast.Return) and child.value is not None
                    if (why := _per_instance_expression(child.value, names)) is not None
                ]
                if returned:  # what it returns, not what else its body calls
                    names[f"{node.name}()"] = returned[0]

    bind("", module.tree.body)
    return names


def _per_instance_expression(value: ast.AST, names: dict[str, str]) -> str | None:
    call = _first_call(value, PER_INSTANCE_CALLS)
    if call is not None:
        return f"{call}()"
    for node in ast.walk(value):
        if isinstance(node, ast.Name | ast.Attribute) and (dotted(node) or "") in names:
            return names[dotted(node) or ""]
        if isinstance(node, ast.Call) and f"{dotted(node.func)}()" in names:
            return names[f"{dotted(node.func)}()"]
        variable = _environment_variable(node)
        if variable in PER_INSTANCE_ENVIRONMENT:
            return f"${variable}"
    return None


# The last part of a call that reads the environment: os.getenv, os.environ.get, env(),
# env.str(), config() (python-decouple).
ENVIRONMENT_CALLS = ("getenv", "environ.get", "env", "config")


def _environment_variable(node: ast.AST) -> str | None:
    """The variable an environment lookup reads: ``os.environ["HOSTNAME"]``,
    ``os.getenv("HOSTNAME", "")``, ``env.str("POD_NAME")``; None for anything else."""
    if isinstance(node, ast.Subscript) and dotted(node.value) == "os.environ":
        return string_value(node.slice)
    if isinstance(node, ast.Call) and node.args:
        function = dotted(node.func) or ""
        # ``env.str("POD_NAME")``, ``ENV.str(…)``: django-environ's reader by any name case.
        lowered = function.lower()
        if lowered == "env" or lowered.startswith("env.") or function.endswith(ENVIRONMENT_CALLS):
            return string_value(node.args[0])
    return None


def per_instance_calls_in(function: object, depth: int = 2) -> str | None:
    """The first call in ``function``'s source whose value differs per instance
    (hostname, pid, random), or in the source of a function of its module that it calls
    (``depth`` levels: a key function that asks a ``_node()`` helper); None when there is
    none or the source cannot be read."""
    import inspect
    import textwrap

    try:
        source = textwrap.dedent(inspect.getsource(function))  # type: ignore[arg-type]
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError):
        return None
    found = _first_call(tree, PER_INSTANCE_CALLS)
    if found is not None or depth <= 1:
        return found
    module_names = getattr(function, "__globals__", {})
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            helper = module_names.get(node.func.id)
            if inspect.isfunction(helper) and helper is not function:
                found = per_instance_calls_in(helper, depth - 1)
                if found is not None:
                    return found
    return None


def _first_call(tree: ast.AST, calls: frozenset[str]) -> str | None:
    """The last name of the first call in ``tree`` that is one of ``calls``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            target = node.func
            name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
            if name in calls:
                return str(name)
    return None


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
            literal = (
                _constant_text(value)
                or _fallback_text(value)
                or _resolved_constant(value, _ModuleNames(module))
            )
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
    else:
        variable = _environment_variable(node)
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


def _fallback_text(node: ast.AST) -> str | None:
    """The value ``node`` has when every environment lookup in it falls back to its
    literal default (``f"web-{os.environ.get('REPLICA', '0')}"`` is ``web-0``), or None
    when a part is neither (a call, a name): equal to the live value, no variable was set."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str | int):
        return str(node.value)
    if isinstance(node, ast.JoinedStr | ast.BinOp):
        parts = node.values if isinstance(node, ast.JoinedStr) else [node.left, node.right]
        if isinstance(node, ast.BinOp) and not isinstance(node.op, ast.Add):
            return None
        texts = [_fallback_text(part) for part in parts]
        return "".join(texts) if all(t is not None for t in texts) else None  # type: ignore[arg-type]
    if isinstance(node, ast.FormattedValue) and node.format_spec is None:
        return _fallback_text(node.value)
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
        return _fallback_text(node.values[-1])
    if isinstance(node, ast.Call) and _environment_variable(node) is not None:
        default = env_default(node)
        return _fallback_text(default) if default is not None else None
    return None


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
            values = [again(item) for item in items]
            if all(v is not None for v in values):
                try:
                    return left % tuple(values)
                except (TypeError, ValueError):
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
    variable = _environment_variable(node)
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
