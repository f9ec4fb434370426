"""Globals loaded once and kept for the life of the process, with what resets them.

``_cached_llm`` loaded from the database on first use, and ``clear_provider_cache()``
setting it and ``_cached_embedder`` back to None when the settings change (in the process
that handled the change only): one cache, one finding, its module-level bindings and the
resets related.
"""

from __future__ import annotations

import ast

from horizontal.audit.findings import Finding, Location
from horizontal.audit.source import FunctionNode, PythonModule

__all__ = ["LOADED_ONCE", "assignments_to", "loaded_once_with_resets"]

LOADED_ONCE = " is loaded once from "


def loaded_once_with_resets(module: PythonModule, findings: list[Finding]) -> list[Finding]:
    """A global loaded once has its module-level binding related, and the functions that
    reset it (``clear_provider_cache()``: ``global _cached_llm, _cached_embedder``, each set
    to None); globals one function resets together are one cache, one finding."""
    if not any(LOADED_ONCE in f.message for f in findings):
        return findings
    resets = _resets(module)
    merged: dict[frozenset[str], Finding] = {}
    kept: list[Finding] = []
    for finding in findings:
        key = _cache_key(finding, resets)
        if not key:
            kept.append(finding)
            continue
        name = finding.message.split()[1]
        places = [*_module_bindings(module, name), *(line for _, line in resets.get(name, []))]
        related = tuple(Location(module.path, line) for line in dict.fromkeys(places))
        if key in merged:
            first = merged[key]
            merged[key] = first._replace(
                related=(*first.related, Location(module.path, finding.line), *related)
            )
        else:
            merged[key] = finding._replace(related=(*finding.related, *related))
            kept.append(finding)
    return [merged.get(_cache_key(f, resets), f) for f in kept]


def _cache_key(finding: Finding, resets: dict[str, list[tuple[str, int]]]) -> frozenset[str]:
    """The functions that reset a loaded-once global together (or its own name when none
    does); empty for any other finding."""
    if LOADED_ONCE not in finding.message:
        return frozenset()
    name = finding.message.split()[1]
    return frozenset(f for f, _ in resets.get(name, [])) or frozenset({name})


def _module_bindings(module: PythonModule, name: str) -> list[int]:
    return [
        statement.lineno
        for statement in module.tree.body
        if isinstance(statement, ast.Assign | ast.AnnAssign)
        and any(
            isinstance(t, ast.Name) and t.id == name
            for t in (
                statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            )
        )
    ]


def _resets(module: PythonModule) -> dict[str, list[tuple[str, int]]]:
    """name: (function, line) of each ``global name`` function that sets it to None."""
    found: dict[str, list[tuple[str, int]]] = {}
    for node in module.nodes(ast.Global):
        assert isinstance(node, ast.Global)
        function = module.scope(node).function
        if function is None:
            continue
        for name in node.names:
            for assignment in assignments_to(function, name):
                value = getattr(assignment, "value", None)
                if (
                    isinstance(value, ast.Constant)
                    and value.value is None
                    and not _guarded_by(function, assignment, name)
                ):
                    found.setdefault(name, []).append(
                        (function.name, getattr(assignment, "lineno", 0))
                    )
    return found


def _guarded_by(function: FunctionNode, assignment: ast.AST, name: str) -> bool:
    """Set to None under a test of ``name`` itself (``if X is not None: X.close(); X =
    None`` in a loader's error path is a loader's, not a reset's)."""
    return any(
        isinstance(node, ast.If)
        and any(child is assignment for child in ast.walk(node))
        and any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node.test))
        for node in ast.walk(function)
    )


def assignments_to(function: FunctionNode, name: str) -> list[ast.AST]:
    found: list[ast.AST] = []
    for node in ast.walk(function):
        targets: list[ast.AST] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            found.append(node)
    return found
