"""Cache namespaces that differ per instance, read from the imported settings' source
(``horizontal.W005``): a ``KEY_PREFIX``/``VERSION`` built from the hostname, the pid, a
random value or the clock (a ``KEY_FUNCTION``'s code is read in ``key_functions.py``).
Imported lazily by the check, as ``settings_imported`` is.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from horizontal.audit.per_instance_names import (
    imported_names_bound_per_instance,
    names_bound_per_instance,
    per_instance_expression,
)
from horizontal.audit.settings_branches import off_by_default_statements
from horizontal.audit.settings_imported import settings_sources
from horizontal.audit.source import string_value

__all__ = ["per_instance_cache_options"]

CACHE_NAMESPACE_OPTIONS = ("KEY_PREFIX", "VERSION", "KEY_FUNCTION")


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
        per_instance_names = names_bound_per_instance(module)
        per_instance_names.update(imported_names_bound_per_instance(module))
        off = _nodes_within(
            module.tree, off_by_default_statements(module.tree) | _replaced_caches(module.tree)
        )
        flow = _CacheFlow(module.tree)
        parameters = _HelperParameters(module.tree, off, flow)
        for node in ast.walk(module.tree):
            if id(node) in off:
                continue
            for place, expression in flow.namespace_values(node):
                why = per_instance_expression(expression, per_instance_names)
                if why is not None:
                    found.setdefault(place, why)
                    continue
                alias, option = place
                for called_as, argument in parameters.arguments_into(expression):
                    why = per_instance_expression(argument, per_instance_names)
                    if why is not None:
                        found.setdefault((called_as if alias == "*" else alias, option), why)
    return found


def _replaced_caches(tree: ast.Module) -> set[int]:
    """``id()`` of the module-level statements that write ``CACHES`` before the last
    plain ``CACHES = …`` that does not read it: that one replaces what they wrote."""
    replacing = [
        index
        for index, statement in enumerate(tree.body)
        if isinstance(statement, ast.Assign | ast.AnnAssign)
        and statement.value is not None
        and any(isinstance(t, ast.Name) and t.id == "CACHES" for t in _targets(statement))
        and "CACHES" not in _names_read(statement.value)
    ]
    if not replacing:
        return set()
    return {id(s) for s in tree.body[: replacing[-1]] if _writes_caches(s)}


def _targets(statement: ast.Assign | ast.AnnAssign) -> list[ast.expr]:
    return statement.targets if isinstance(statement, ast.Assign) else [statement.target]


def _names_read(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _writes_caches(statement: ast.stmt) -> bool:
    """``CACHES = …``, ``CACHES["pages"] = …``, ``CACHES["pages"].update(…)``."""
    for node in ast.walk(statement):
        if isinstance(node, ast.Name | ast.Subscript) and isinstance(node.ctx, ast.Store):
            written: ast.AST | None = node
        elif isinstance(node, ast.Call):
            written = _update_of(node)
        else:
            continue
        if written is not None and _root_name(written) == "CACHES":
            return True
    return False


class _HelperParameters:
    """What reaches a helper's parameters on the way into ``CACHES``: a helper that
    builds a cache dict from its parameter (``def cache(prefix): return {"KEY_PREFIX":
    prefix}``) is judged by the arguments of the module-level calls whose value
    ``CACHES`` takes (``CACHES = {"pages": cache(uuid4().hex)}``), each under its alias,
    and by its defaults (under every alias). A call elsewhere (another setting, a
    function's body) passes nothing to CACHES."""

    def __init__(self, tree: ast.Module, off: set[int], flow: _CacheFlow) -> None:
        self.function_of: dict[int, ast.FunctionDef] = {}  # node id to its helper
        # (helper, parameter) to (alias, argument): "*" when the alias is not written.
        self.passed: dict[tuple[str, str], list[tuple[str, ast.expr]]] = {}
        helpers = {s.name: s for s in tree.body if isinstance(s, ast.FunctionDef)}
        for helper in helpers.values():
            for child in ast.walk(helper):
                self.function_of[id(child)] = helper
            self._defaults(helper)
        for statement in tree.body:
            if isinstance(statement, ast.FunctionDef) and f"{statement.name}()" in flow.into_caches:
                calls = _calls_returned(statement)  # ``CACHES = build_caches()``
            elif isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                continue
            else:
                calls = _calls_into_caches(statement, flow)
            for call, alias in calls:
                called = helpers.get(call.func.id) if isinstance(call.func, ast.Name) else None
                if called is not None and id(call) not in off:
                    self._call(called, call, alias)

    def _defaults(self, function: ast.FunctionDef) -> None:
        positional = [*function.args.posonlyargs, *function.args.args]
        for parameter, default in zip(
            positional[len(positional) - len(function.args.defaults) :],
            function.args.defaults,
            strict=True,
        ):
            self.passed.setdefault((function.name, parameter.arg), []).append(("*", default))
        for parameter, value in zip(
            function.args.kwonlyargs, function.args.kw_defaults, strict=True
        ):
            if value is not None:
                self.passed.setdefault((function.name, parameter.arg), []).append(("*", value))

    def _call(self, function: ast.FunctionDef, call: ast.Call, alias: str) -> None:
        positional = [*function.args.posonlyargs, *function.args.args]
        arguments = [
            *zip((p.arg for p in positional), call.args, strict=False),
            *((k.arg, k.value) for k in call.keywords if k.arg is not None),
        ]
        for parameter, argument in arguments:
            self.passed.setdefault((function.name, parameter), []).append((alias, argument))

    def arguments_into(self, expression: ast.AST) -> Iterator[tuple[str, ast.expr]]:
        """(alias, argument) for the parameters ``expression`` reads, in its helper."""
        function = self.function_of.get(id(expression))
        if function is None:
            return
        for node in ast.walk(expression):
            if isinstance(node, ast.Name):
                yield from self.passed.get((function.name, node.id), ())


def _calls_returned(function: ast.FunctionDef) -> Iterator[tuple[ast.Call, str]]:
    """The calls in what a helper whose value ``CACHES`` takes returns, each with the
    alias it is written under in the returned dict (``"*"`` when none is)."""
    for node in ast.walk(function):
        if isinstance(node, ast.Return) and node.value is not None:
            aliases = _dict_aliases(node.value)
            for child in ast.walk(node.value):
                if isinstance(child, ast.Call):
                    yield child, aliases.get(id(child), "*")


def _dict_aliases(value: ast.AST) -> dict[int, str]:
    """``id()`` of each value written under a string key in the dicts of ``value``."""
    return {
        id(item): alias
        for node in ast.walk(value)
        if isinstance(node, ast.Dict)
        for key, item in zip(node.keys, node.values, strict=True)
        if (alias := string_value(key)) is not None
    }


def _calls_into_caches(statement: ast.stmt, flow: _CacheFlow) -> Iterator[tuple[ast.Call, str]]:
    """The calls of a module-level statement whose value ``CACHES`` takes, each with the
    alias it is written under (``"*"`` when the alias is not written)."""
    aliases = _dict_aliases(statement)
    for node in ast.walk(statement):
        if (
            isinstance(node, ast.Assign)
            and (keys := _subscript_keys(node.targets[0]))
            and _root_name(node.targets[0]) == "CACHES"
        ):
            aliases[id(node.value)] = keys[-1]  # ``CACHES["pages"] = cache(…)``
    bound = (
        statement.targets[0].id
        if isinstance(statement, ast.Assign) and isinstance(statement.targets[0], ast.Name)
        else None
    )
    bound_into_caches = bound is not None and bound in flow.into_caches
    for node in ast.walk(statement):
        if isinstance(node, ast.Call) and (id(node) in flow.in_caches or bound_into_caches):
            # Bound to a name: the alias ``CACHES`` uses that name under, when it says.
            default = flow.name_alias.get(bound, "*") if bound is not None else "*"
            yield node, aliases.get(id(node), default)


class _CacheFlow:
    """Which dicts and names of a settings module reach ``CACHES``, and under which
    alias, for ``per_instance_cache_options``."""

    def __init__(self, tree: ast.AST) -> None:
        self.in_caches: set[int] = set()  # nodes inside what is assigned to CACHES
        self.into_caches: set[str] = set()  # names and helpers a CACHES assignment uses
        self.owner: dict[int, str] = {}  # a dict bound to a name, or a helper's return
        self.alias: dict[int, str] = {}  # a dict written as an alias
        self.name_alias: dict[str, str] = {}  # a name CACHES takes under one alias
        # Options the module writes as a dict's key or a subscript (which a later
        # ``setdefault`` then leaves alone).
        self.written_options = {
            key
            for node in ast.walk(tree)
            if isinstance(node, ast.Dict)
            for key in map(string_value, node.keys)
            if key in CACHE_NAMESPACE_OPTIONS
        } | {
            keys[-1]
            for node in ast.walk(tree)
            if isinstance(node, ast.Assign)
            for target in node.targets
            if (keys := _subscript_keys(target)) and keys[-1] in CACHE_NAMESPACE_OPTIONS
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
                self._assignment(node)
            elif isinstance(node, ast.AugAssign) and isinstance(node.op, ast.BitOr):
                self._assignment(node)  # ``CACHES["pages"] |= {"KEY_PREFIX": …}``
            elif isinstance(node, ast.For):
                self._loop_over_aliases(node)
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
                    if (isinstance(value, ast.Dict) or _dict_call(value)) and alias is not None:
                        self.alias[id(value)] = alias
        self._through_names(tree)

    def _loop_over_aliases(self, loop: ast.For) -> None:
        """``for config in CACHES.values():`` (or ``for alias, config in
        CACHES.items():``): what the body sets on ``config`` it sets on every alias."""
        over = loop.iter
        if not (
            isinstance(over, ast.Call)
            and isinstance(over.func, ast.Attribute)
            and over.func.attr in {"values", "items"}
            and _root_name(over.func.value) == "CACHES"
        ):
            return
        target = loop.target
        if over.func.attr == "items" and isinstance(target, ast.Tuple) and len(target.elts) == 2:
            target = target.elts[1]
        if isinstance(target, ast.Name):
            self.into_caches.add(target.id)
            self.name_alias[target.id] = "*"

    def _through_names(self, tree: ast.AST) -> None:
        """A name or helper that reaches CACHES brings what its own value uses: ``PAGES =
        cache(…)``, then ``CACHES = {"default": PAGES}``, brings the helper ``cache()``; so
        does ``CACHES = build_caches()`` with a ``build_caches`` that returns ``cache(…)``."""
        bound: dict[str, list[ast.expr]] = {}  # a name, or a helper's ``f()``, to values
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        bound.setdefault(target.id, []).append(node.value)
            elif isinstance(node, ast.FunctionDef):
                bound[f"{node.name}()"] = [
                    child.value
                    for child in ast.walk(node)
                    if isinstance(child, ast.Return) and child.value is not None
                ]
        pending = [name for name in self.into_caches if name in bound]
        while pending:
            for value in bound[pending.pop()]:
                for child in ast.walk(value):
                    if isinstance(child, ast.Name):
                        used = child.id
                    elif isinstance(child, ast.Call) and isinstance(child.func, ast.Name):
                        used = f"{child.func.id}()"
                    else:
                        continue
                    if used not in self.into_caches:
                        self.into_caches.add(used)
                        if used in bound:
                            pending.append(used)

    def _assignment(self, node: ast.Assign | ast.AnnAssign | ast.AugAssign) -> None:
        if node.value is None:
            return
        targets = [node.target] if isinstance(node, ast.AugAssign) else _targets(node)
        for target in targets:
            keys = _subscript_keys(target)
            if _root_name(target) == "CACHES":
                self._reaches_caches([node.value])
                if keys and keys[-1] not in CACHE_NAMESPACE_OPTIONS:
                    self.alias[id(node.value)] = keys[-1]  # ``CACHES["pages"] = {…}``
                    if isinstance(node.value, ast.Name):
                        self.name_alias[node.value.id] = keys[-1]
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
                if isinstance(child, ast.Dict):  # ``{"pages": PAGES}``
                    for key, item in zip(child.keys, child.values, strict=True):
                        alias = string_value(key)
                        if alias is not None and isinstance(item, ast.Name):
                            self.name_alias.setdefault(item.id, alias)
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
        elif isinstance(node, ast.Call) and _dict_call(node):  # ``dict(BASE, KEY_PREFIX=…)``
            if self._reaches(node):
                alias = self.alias.get(id(node), "*")
                for item in node.keywords:
                    if item.arg in CACHE_NAMESPACE_OPTIONS:
                        yield (alias, item.arg), item.value
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "setdefault"
            and len(node.args) == 2
            and string_value(node.args[0]) in CACHE_NAMESPACE_OPTIONS
        ):
            # ``CACHES["default"].setdefault("KEY_PREFIX", …)``: unless the option is
            # written in the module, where setdefault leaves it as it is.
            owner = node.func.value
            named = self._alias_of(_root_name(owner), _subscript_keys(owner))
            option = string_value(node.args[0]) or ""
            if named is not None and option not in self.written_options:
                yield (named, option), node.args[1]
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
        """The alias an option set on ``root[keys…]`` belongs to, when it reaches CACHES;
        every alias (``"*"``) for one not written (``CACHES[alias]`` in a loop)."""
        if root == "CACHES":
            return ("*" if keys[-1] == "?" else keys[-1]) if keys else None
        if root is not None and root in self.into_caches:
            return keys[-1] if keys and keys[-1] != "?" else "*"
        return None


def _dict_call(node: ast.AST) -> bool:
    """``dict(…)``: a mapping built from keywords (``dict(BASE, KEY_PREFIX=…)``)."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict"


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
