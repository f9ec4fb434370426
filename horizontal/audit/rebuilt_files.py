"""A local file rebuilt wherever it is missing: a per-host cache, not lost data.

``if not os.path.exists(pdf): render(pdf)``, ``if path.exists(): return path`` or ``try:
return open(path) except IOError: pass`` before a download: an instance that lacks the
file makes its own copy from what every instance can reach (the database, a template, a
URL). Each host keeps a copy and nothing is lost
when one is replaced, so the write is not a file-write finding. A write that only
*creates* the folder or is guarded by some other path's existence alone is still judged.
"""

from __future__ import annotations

import ast

from horizontal.audit.source import FunctionNode, dotted

# ``os.path.exists(p)``, ``os.path.isfile(p)``, ``p.exists()``, ``p.is_file()``.
EXISTENCE_TESTS = frozenset({"exists", "isfile", "is_file", "lexists"})


def rebuilt_when_missing(function: FunctionNode, call: ast.Call, target: ast.AST) -> bool:
    """The write at ``call`` to ``target`` runs only when ``target`` does not exist yet."""
    key = _key(target)
    if key is None:
        return False
    # ``found = os.path.isfile(p)`` then ``if found: return p``: the test under a name.
    bound = {
        target.id: node.value
        for node in ast.walk(function)
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    for node in ast.walk(function):
        if not isinstance(node, ast.If):
            continue
        test = node.test
        if isinstance(test, ast.Name) and test.id in bound:
            test = bound[test.id]
        elif (
            isinstance(test, ast.UnaryOp)
            and isinstance(test.op, ast.Not)
            and isinstance(test.operand, ast.Name)
            and test.operand.id in bound
        ):
            test = ast.UnaryOp(op=ast.Not(), operand=bound[test.operand.id])
        if isinstance(test, ast.BoolOp):
            # ``if not p.exists() or p.stat().st_size == 0:``: missing (or empty) rebuilds;
            # ``if os.path.exists(folder) and not os.path.exists(tag):``: only when missing.
            missing = any(_existence_test(value) == (True, key) for value in test.values)
            if missing and _contains(node.body, call):
                return True
            continue
        negated, tested = _existence_test(test)
        if tested != key:
            continue
        if negated and _contains(node.body, call):
            return True
        if not negated and (_contains(node.orelse, call) or _returns_before(node, call)):
            return True
    return any(
        isinstance(node, ast.Try) and node.lineno < call.lineno and _opens_or_misses(node, key)
        for node in ast.walk(function)
    )


# What ``open()`` of a file that is not there raises.
MISSING_FILE_ERRORS = frozenset({"IOError", "OSError", "FileNotFoundError", "EnvironmentError"})


def _opens_or_misses(attempt: ast.Try, key: str) -> bool:
    """``try: return open(p) except IOError: pass``: the file is returned when it is
    there, so what follows (the write of ``p``) runs only where it is missing."""
    returns_it = any(
        isinstance(statement, ast.Return)
        and isinstance(statement.value, ast.Call)
        and getattr(statement.value.func, "id", None) == "open"
        and statement.value.args
        and _key(statement.value.args[0]) == key
        for statement in attempt.body
    )
    caught = {
        name
        for handler in attempt.handlers
        if handler.type is not None
        for node in ast.walk(handler.type)
        if (name := getattr(node, "id", None))
    }
    return returns_it and bool(caught & MISSING_FILE_ERRORS)


def _key(target: ast.AST) -> str | None:
    """What names the path: a dotted name, or the call or expression that builds it."""
    name = dotted(target)
    if name is not None:
        return name
    if isinstance(target, (ast.Call, ast.BinOp, ast.JoinedStr)):
        return ast.dump(target)
    return None


def _existence_test(test: ast.expr) -> tuple[bool, str | None]:
    """(negated, key of the path tested) for ``[not] exists(p)`` / ``[not] p.exists()``."""
    negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
    inner = test.operand if isinstance(test, ast.UnaryOp) and negated else test
    if not isinstance(inner, ast.Call):
        return negated, None
    func = inner.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    if name not in EXISTENCE_TESTS:
        return negated, None
    if inner.args:
        return negated, _key(inner.args[0])
    if isinstance(func, ast.Attribute):
        return negated, _key(func.value)
    return negated, None


def _contains(statements: list[ast.stmt], call: ast.Call) -> bool:
    return any(node is call for statement in statements for node in ast.walk(statement))


def _returns_before(test: ast.If, call: ast.Call) -> bool:
    """``if exists(p): return …`` ahead of the write: the write is reached only without p.

    ``if exists(p): raise`` is a refusal to overwrite, not a cache: still judged."""
    ends = test.body and isinstance(test.body[-1], (ast.Return, ast.Continue))
    return bool(ends) and not test.orelse and test.lineno < call.lineno
