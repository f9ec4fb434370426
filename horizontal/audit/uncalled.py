"""File writes in module-level functions whose every call is commented out.

``    # write_event_to_local_file(event)  # for debugging``: a helper whose calls were
turned off runs in no request and no task, so its write keeps nothing on any instance's
disk. Only a commented-out call inside a block says so: a function nothing names at all
may be a reusable app's API, called by code outside the tree, and a comment at a
module's top level is more often a usage example. A decorated function is kept (a
decorator registers it: a task, a receiver, a route), as is a method (a framework calls
``form_valid``, ``handle``, ``save``); any mention outside a comment counts as a call, in
code, in a string (``"app.jobs.export"`` in a schedule) or in any other file of the tree
(a script that runs ``python -c '…'``). A finding is dropped only when every place of it
is in such a function.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterable

from horizontal.audit.findings import Finding

__all__ = ["without_uncalled_writers"]

Function = ast.FunctionDef | ast.AsyncFunctionDef


def without_uncalled_writers(
    findings: list[Finding],
    python_texts: Iterable[tuple[str, str]],
    other_texts: Iterable[str] = (),
) -> list[Finding]:
    """``findings`` without the file writes all of whose places are in module-level
    functions named only in definitions and in commented-out calls."""
    texts = dict(python_texts)
    candidates = [f for f in findings if f.category == "file-write" and f.path in texts]
    if not candidates:
        return findings
    functions: dict[str, list[Function]] = {}
    places: dict[int, list[Function | None]] = {}
    for finding in candidates:
        enclosing = []
        for path, line in [
            (finding.path, finding.line),
            *((r.path, r.line) for r in finding.related),
        ]:
            if path not in functions:
                functions[path] = _module_functions(texts.get(path, ""))
            enclosing.append(_enclosing(functions[path], line))
        if all(enclosing):
            places[id(finding)] = enclosing
    names = {f.name for found in places.values() for f in found if f is not None}
    if not names:
        return findings
    turned_off = _only_called_in_comments(names, list(texts.values()), list(other_texts))
    dropped = {
        key
        for key, found in places.items()
        if all(f is not None and f.name in turned_off for f in found)
    }
    return [f for f in findings if id(f) not in dropped]


def _module_functions(text: str) -> list[Function]:
    """The module's top-level functions with no decorator."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    return [
        node
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and not node.decorator_list
    ]


def _enclosing(functions: list[Function], line: int) -> Function | None:
    for node in functions:
        if node.lineno <= line <= (node.end_lineno or node.lineno):
            return node
    return None


def _only_called_in_comments(
    names: set[str], python_texts: list[str], other_texts: list[str]
) -> set[str]:
    """Of ``names``, those whose every mention outside a ``def`` is in a comment, one of
    them a call inside an indented block. One pass over each text."""
    word = re.compile(r"\b(" + "|".join(re.escape(n) for n in sorted(names)) + r")\b")
    called: set[str] = set()
    commented_calls: set[str] = set()
    for text in other_texts:
        called.update(match.group(1) for match in word.finditer(text))
    for text in python_texts:
        matches = list(word.finditer(text))
        if not matches:
            continue
        comments: list[tuple[int, int]] | None = None  # tokenized once a line needs it
        for match in matches:
            name = match.group(1)
            start = text.rfind("\n", 0, match.start()) + 1
            comment = None
            if "#" in text[start : match.start()]:
                comments = _comment_spans(text) if comments is None else comments
                comment = next((c for c in comments if c[0] <= match.start() < c[1]), None)
            if comment is not None:
                indented = comment[0] > start  # a comment inside a block, not at the top
                if indented and text.startswith("(", match.end()):
                    commented_calls.add(name)
            elif text[start : match.start()].split()[-1:] != ["def"]:
                called.add(name)
    return commented_calls - called


def _comment_spans(text: str) -> list[tuple[int, int]]:
    """Where the module's comments are, as offsets (a ``#`` in a string is no comment)."""
    starts = [0]
    for line in text.split("\n"):
        starts.append(starts[-1] + len(line) + 1)
    spans = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                (row, column), (_, end) = token.start, token.end
                spans.append((starts[row - 1] + column, starts[row - 1] + end))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return spans
