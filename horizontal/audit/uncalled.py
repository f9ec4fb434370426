"""File writes in module-level functions whose every call is commented out.

``# write_event_to_local_file(event)  # for debugging``: a helper whose calls were turned
off runs in no request and no task, so its write keeps nothing on any instance's disk.
Only a commented-out call says so: a function nothing names at all may be a reusable
app's API, called by code outside the tree. A decorated function is kept (a decorator
registers it: a task, a receiver, a route), as is a method (a framework calls
``form_valid``, ``handle``, ``save``), and a name written in a string (``"app.jobs.export"``
in a schedule) counts as a call.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable

from horizontal.audit.findings import Finding

__all__ = ["without_uncalled_writers"]


def without_uncalled_writers(
    findings: list[Finding], python_texts: Iterable[tuple[str, str]]
) -> list[Finding]:
    """``findings`` without the file writes whose module-level function is named only in
    definitions and in commented-out calls."""
    texts = dict(python_texts)
    candidates = [f for f in findings if f.category == "file-write" and f.path in texts]
    if not candidates:
        return findings
    dropped: set[int] = set()
    functions: dict[str, dict[int, ast.FunctionDef | ast.AsyncFunctionDef]] = {}
    for finding in candidates:
        if finding.path not in functions:
            functions[finding.path] = _module_functions(texts[finding.path])
        function = _enclosing(functions[finding.path], finding.line)
        if function is not None and _only_called_in_comments(function, texts):
            dropped.add(id(finding))
    return [f for f in findings if id(f) not in dropped]


def _module_functions(text: str) -> dict[int, ast.FunctionDef | ast.AsyncFunctionDef]:
    """The module's top-level functions with no decorator, by their first line."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return {}
    return {
        node.lineno: node
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and not node.decorator_list
    }


def _enclosing(
    functions: dict[int, ast.FunctionDef | ast.AsyncFunctionDef], line: int
) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    for node in functions.values():
        if node.lineno <= line <= (node.end_lineno or node.lineno):
            return node
    return None


def _only_called_in_comments(
    function: ast.FunctionDef | ast.AsyncFunctionDef, texts: dict[str, str]
) -> bool:
    """Every mention of the name outside a ``def`` is in a comment, and one of them is a
    call."""
    name = function.name
    if name.startswith("_") and name.endswith("_"):
        return False  # a dunder: Python calls it
    word = re.compile(rf"\b{re.escape(name)}\b")
    commented_call = False
    for text in texts.values():
        if name not in text:
            continue
        for match in word.finditer(text):
            start = text.rfind("\n", 0, match.start()) + 1
            before = text[start : match.start()]
            if "#" in before:  # (a ``#`` in a string on the line is rare)
                commented_call = commented_call or text.startswith("(", match.end())
            elif before.split()[-1:] != ["def"]:  # a definition: its own, or a namesake's
                return False
    return commented_call
