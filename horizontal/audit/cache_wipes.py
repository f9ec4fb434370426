"""boot-reset in code: Django's cache wiped when a process starts.

``cache.clear()`` or ``caches["lock"].reset_all()`` (python-redis-lock's cache) in
``ready()``, a server hook or at import runs in every replica and every recycled worker:
each one that starts drops what the running ones keep in the shared cache. Start scripts
that run ``manage.py clear_cache`` are ``deploy.py``'s.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from horizontal.audit.concurrency import is_startup
from horizontal.audit.findings import Finding
from horizontal.audit.source import PythonModule

__all__ = ["debug_only_lines", "find_startup_cache_wipes"]

# ``cache.clear()``, ``caches["default"].clear()``, ``caches["lock"].reset_all()``
# (python-redis-lock's cache): a wipe. (Found by these literals: ``.clear()`` alone would
# parse most files.)
CACHE_WIPES = frozenset({"clear", "reset_all"})
WIPE_NEEDLES = ("cache.clear()", "].clear()", ".reset_all()", "clear_cache")
# ``call_command("clear_cache")`` (django-clear-cache's command): the same wipe.
CLEAR_CACHE_COMMAND = "clear_cache"
BOOT_CACHE_WIPE = (
    "the shared cache is wiped when each process starts: every new replica or recycled "
    "worker drops what the running ones keep there (entries, locks)"
)


def find_startup_cache_wipes(module: PythonModule) -> Iterator[Finding]:
    """Django's cache cleared in ``ready()``, a server hook or at import: the cache every
    instance shares, reset by each one that starts."""
    if not any(needle in module.text for needle in WIPE_NEEDLES):
        return
    debug_only = debug_only_lines(module)
    for call in module.nodes(ast.Call):
        assert isinstance(call, ast.Call)
        if not (_wipes_django_cache(module, call) or _runs_clear_cache(call)):
            continue
        if not is_startup(module, module.scope(call)) or call.lineno in debug_only:
            continue
        yield Finding(
            module.path, call.lineno, "boot-reset", BOOT_CACHE_WIPE, module.line(call.lineno)
        )


def debug_only_lines(module: PythonModule) -> set[int]:
    """Lines under ``if settings.DEBUG:`` (or ``if DEBUG``): a developer's server only."""
    lines: set[int] = set()
    for node in module.nodes(ast.If):
        assert isinstance(node, ast.If)
        if any(
            getattr(n, "id", None) == "DEBUG" or getattr(n, "attr", None) == "DEBUG"
            for n in ast.walk(node.test)
        ):
            end = node.body[-1].end_lineno or node.body[-1].lineno
            lines.update(range(node.body[0].lineno, end + 1))
    return lines


def _wipes_django_cache(module: PythonModule, call: ast.Call) -> bool:
    function = call.func
    return (
        isinstance(function, ast.Attribute)
        and function.attr in CACHE_WIPES
        and _django_cache(module, function.value)
    )


def _runs_clear_cache(call: ast.Call) -> bool:
    """``call_command("clear_cache")`` (``management.call_command`` too)."""
    name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
    first = call.args[0] if call.args else None
    return (
        name == "call_command"
        and isinstance(first, ast.Constant)
        and first.value == CLEAR_CACHE_COMMAND
    )


def _django_cache(module: PythonModule, node: ast.expr) -> bool:
    """``cache`` imported from ``django.core.cache``, or ``caches[alias]``."""
    wanted = "django.core.cache.cache"
    if isinstance(node, ast.Subscript):
        node, wanted = node.value, "django.core.cache.caches"
    return isinstance(node, ast.Name) and module.imports.get(node.id) == wanted
