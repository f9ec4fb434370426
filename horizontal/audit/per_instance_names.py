"""Names a settings module binds to this instance's own value: ``HOST =
socket.gethostname()``, ``PREFIX = f"shop-{HOST}"``, a class attribute, a function that
returns one, and such names imported from the project's own modules. Read for the cache
namespaces of ``cache_namespaces.py`` (``horizontal.W005``).
"""

from __future__ import annotations

import ast

from horizontal.audit.env_lookups import environment_variable
from horizontal.audit.key_functions import first_call
from horizontal.audit.known import (
    PER_INSTANCE_CALLS,
    PER_INSTANCE_ENVIRONMENT,
    PER_INSTANCE_FILES,
)
from horizontal.audit.settings_imported import imported_module
from horizontal.audit.source import PythonModule, dotted

__all__ = [
    "imported_names_bound_per_instance",
    "names_bound_per_instance",
    "per_instance_expression",
]


def names_bound_per_instance(module: PythonModule) -> dict[str, str]:
    """Names whose value is this instance's own, in the order the module binds them:
    ``HOST = socket.gethostname()``, then ``PREFIX = f"shop-{HOST}"`` (through earlier
    names), ``RUN_ID: str = uuid4().hex``, a class attribute (``Runtime.TOKEN``) and a
    module-level function that returns one (``_node_tag()``)."""
    names: dict[str, str] = {}

    def bind(prefix: str, body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
                why = per_instance_expression(node.value, names)
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
                    if (why := per_instance_expression(child.value, names)) is not None
                ]
                if returned:  # what it returns, not what else its body calls
                    names[f"{node.name}()"] = returned[0]

    bind("", module.tree.body)
    return names


def imported_names_bound_per_instance(module: PythonModule) -> dict[str, str]:
    """Per-instance names the settings module imports from the project's own modules
    (``from .runtime import BOOT_ID``, ``from . import runtime``, ``from .utils import
    cache_prefix``), as the module uses them: ``BOOT_ID``, ``runtime.BOOT_ID``,
    ``cache_prefix()``. One level: what the helper module binds itself."""
    found: dict[str, str] = {}
    for node in module.tree.body:
        if not isinstance(node, ast.ImportFrom) or any(a.name == "*" for a in node.names):
            continue
        for alias in node.names:
            local = alias.asname or alias.name
            full = module.absolute_import(local) if node.level else f"{node.module}.{alias.name}"
            owner, _, name = full.rpartition(".")
            # ``from . import runtime``: the module itself; else a name of ``owner``.
            helper = imported_module(full)
            if helper is not None:
                for bound, why in names_bound_per_instance(helper).items():
                    found[f"{local}.{bound}"] = why
                continue
            source = imported_module(owner) if owner else None
            if source is None:
                continue
            names = names_bound_per_instance(source)
            if name in names:
                found[local] = names[name]
            if f"{name}()" in names:
                found[f"{local}()"] = names[f"{name}()"]
    return found


def per_instance_expression(value: ast.AST, names: dict[str, str]) -> str | None:
    call = first_call(value, PER_INSTANCE_CALLS)
    if call is not None:
        return f"{call}()"
    for node in ast.walk(value):
        if isinstance(node, ast.Name | ast.Attribute) and (dotted(node) or "") in names:
            return names[dotted(node) or ""]
        if isinstance(node, ast.Call) and f"{dotted(node.func)}()" in names:
            return names[f"{dotted(node.func)}()"]
        variable = environment_variable(node)
        if variable in PER_INSTANCE_ENVIRONMENT:
            return f"${variable}"
        # ``open("/etc/machine-id").read()``: this host's own file.
        if isinstance(node, ast.Constant) and node.value in PER_INSTANCE_FILES:
            return str(node.value)
    return None
