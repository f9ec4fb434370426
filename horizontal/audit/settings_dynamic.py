"""Settings a module binds by name at run time, which no assignment shows.

omero-web's settings loop over a table of ``"omero.web.caches": ["CACHES", …]`` and call
``setattr(sys.modules[__name__], name, value)``; other modules write ``globals()[name] =``
or ``globals().update(…)``. The audit cannot tell those values, but it can tell the names
are set: a rule about a setting left at Django's default ("CACHES is not set") must not
fire for one of them. Parsed source only.
"""

from __future__ import annotations

import ast
import re

from horizontal.audit.source import PythonModule, call_name

__all__ = ["names_set_at_run_time"]

SETTING_NAME = re.compile(r"[A-Z][A-Z0-9_]{2,}")
# The module itself as an object: ``sys.modules[__name__]`` (or bound to a name first).
THIS_MODULE = "sys.modules[__name__]"


def names_set_at_run_time(module: PythonModule) -> set[str]:
    """The setting-like string literals of a module that binds globals by name (every
    one: which of them the loop sets is not read), else nothing."""
    if not _binds_by_name(module):
        return set()
    return {
        node.value
        for node in ast.walk(module.tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and SETTING_NAME.fullmatch(node.value)
    }


def _binds_by_name(module: PythonModule) -> bool:
    text = module.text
    if "globals()" not in text and THIS_MODULE not in text:
        return False
    for node in ast.walk(module.tree):
        # ``globals()[name] = value``
        if isinstance(node, ast.Assign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Subscript) and _is_globals(t.value) for t in targets):
                return True
        if not isinstance(node, ast.Call):
            continue
        # ``globals().update(…)``, ``globals().setdefault(…)``
        func = node.func
        if (
            isinstance(func, ast.Attribute)
            and func.attr in {"update", "setdefault"}
            and _is_globals(func.value)
        ):
            return True
        # ``setattr(module, name, value)`` where ``sys.modules[__name__]`` is in the
        # module: the module handed to a helper that sets its attributes.
        if call_name(module, node) == "setattr" and THIS_MODULE in text:
            return True
    return False


def _is_globals(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in {"globals", "vars"}
        and not node.args
    )
