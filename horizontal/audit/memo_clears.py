"""cache: which per-process memos the project clears, judged once every module is read.

A memo that nothing clears is stale in every process until it restarts, with one instance
or with many: the project chose "restart to see the change", and adding instances does not
change what anyone sees. A memo the project clears when the data changes
(``get_setting.cache_clear()`` in a save signal, ``del CONFERENCE_CACHE[self.id]`` in
``save()``, ``_cached_llm = None`` when the settings change) is a single-instance
assumption: the clear runs in the process that made the change, and the other instances
keep the old value. So a memo is reported (``cache``) when project code outside tests and
commands clears it, with the clearing lines related; one nothing clears is per-process
state, reported with ``--extend-category module-state``. On the tuning corpus the
labellers called 17 of 100 memo findings assumptions, and 11 of those 17 were memos the
project clears.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator

from horizontal.audit.findings import Finding, Location
from horizontal.audit.patterns import lazy_compile
from horizontal.audit.source import FunctionNode, parse_tree

__all__ = ["NEVER_CLEARED", "judge_memos"]

# ``get_setting() memoises …``, ``dict _TOOL_CACHE memoises …``, ``dict Class.cache
# memoises …``, ``global CONFIG is loaded once from …``: the memo's name.
MEMO_NAMED = lazy_compile(
    r"^(?:(?P<function>\w+)\(\) memoises |\w+ (?P<container>[\w.]+) memoises |"
    r"global (?P<global>\w+) is loaded once from )"
)
# Memos already known to be cleared in one process only, or not memos of shared data.
ALREADY_JUDGED = ("cleared on save only", "fresh random value")
CLEARING_CALLS = frozenset({"cache_clear", "clear", "pop", "popitem", "remove", "discard"})
# Cheap text test before a module is parsed for the name's clears.
MAY_CLEAR = lazy_compile(r"\.(cache_clear|clear|pop|popitem|remove|discard)\(|\bdel\b|=")
# ``from .models import get_setting``, ``from .tools import (\n    _data,\n)``, ``db.X``.
IMPORTED_OR_NAMED = r"\bimport\b[^\n(]*\b{name}\b|\bimport\s*\([^)]*\b{name}\b|\b{stem}\.{name}\b"
RELATED_CLEARS = 5  # clearing lines shown beside the finding
NEVER_CLEARED = (
    "; nothing in the project clears it, so it is stale in every process until that process "
    "restarts (one instance or many)"
)


def judge_memos(
    findings: list[Finding],
    python_texts: Iterable[tuple[str, str]],
    by_hand: set[str],
    wanted: set[str],
) -> list[Finding]:
    """Memos the project clears stay ``cache`` findings, their clears related; the others
    become ``module-state`` when that category is wanted and are dropped otherwise."""
    memos = [f for f in findings if f.category == "cache" and _memo_name(f)]
    if not memos:
        return findings if "cache" in wanted else [f for f in findings if f.category != "cache"]
    texts = [(path, text) for path, text in python_texts if path not in by_hand]
    judged: list[Finding] = []
    trees: dict[str, ast.Module | None] = {}  # parsed once for all the memos
    for finding in findings:
        if finding.category != "cache":
            judged.append(finding)
            continue
        memo = _memo_name(finding)
        if not memo:
            if "cache" in wanted:
                judged.append(finding)
            continue
        clears = list(_clears(memo, finding, texts, trees))
        if clears and "cache" in wanted:
            related = tuple(Location(path, line) for path, line in clears[:RELATED_CLEARS])
            judged.append(finding._replace(related=(*finding.related, *related)))
        elif not clears and "module-state" in wanted:
            judged.append(
                finding._replace(category="module-state", message=finding.message + NEVER_CLEARED)
            )
    return judged


def _memo_name(finding: Finding) -> str:
    if any(text in finding.message for text in ALREADY_JUDGED):
        return ""
    match = MEMO_NAMED.match(finding.message)
    if match is None:
        return ""
    return match.group("function") or match.group("container") or match.group("global")


def _clears(
    memo: str,
    finding: Finding,
    texts: list[tuple[str, str]],
    trees: dict[str, ast.Module | None],
) -> Iterator[tuple[str, int]]:
    """Lines of project code, inside functions, that clear the memo: its ``cache_clear()``,
    a ``clear()``/``pop()`` of it, ``del name[key]``, or ``name = None``/``{}`` (a global
    the function declares, or an attribute other than ``self``'s). The memo's own filler is
    not a clear, nor a module that neither imports the memo nor names its owner."""
    owner, _, name = memo.rpartition(".")
    for path, text in texts:
        if name not in text or not MAY_CLEAR.search(text):
            continue
        # ``service.viewset.get_service.cache_clear()``: only a memo has ``cache_clear``, so
        # that call needs no import; a ``clear()`` of a common name in another module does.
        reached = path == finding.path or _reaches(text, finding.path, owner, name)
        if path not in trees:
            trees[path] = parse_tree(text, path)
        tree = trees[path]
        if tree is None:
            continue
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            if path == finding.path and _spans(function, finding.line):
                continue  # the filler: ``global X`` … ``X = []`` before it fills X
            for line, memo_only in _clearing_lines(function, name):
                if reached or memo_only:
                    yield path, line


def _reaches(text: str, path: str, owner: str, name: str) -> bool:
    """Another module reaches the memo: it names its class (``Tool._CACHE``), imports it
    (``from .models import get_setting``) or names it through its module (``db.X``)."""
    if owner:
        return re.search(rf"\b{owner}\b", text) is not None
    stem = path.rsplit("/", 1)[-1].removesuffix(".py")
    return re.search(IMPORTED_OR_NAMED.format(name=name, stem=stem), text) is not None


def _spans(function: FunctionNode, line: int) -> bool:
    return function.lineno <= line <= (function.end_lineno or function.lineno)


def _clearing_lines(function: FunctionNode, name: str) -> Iterator[tuple[int, bool]]:
    """The lines that clear ``name``, each with whether only a memo has that call."""
    declared = {
        n for node in ast.walk(function) if isinstance(node, ast.Global) for n in node.names
    }
    for node in _own_nodes(function):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in CLEARING_CALLS
            and _names(node.func.value, name)
        ):
            yield node.lineno, node.func.attr == "cache_clear"
        elif isinstance(node, ast.Delete) and any(
            isinstance(t, ast.Subscript) and _names(t.value, name) for t in node.targets
        ):
            yield node.lineno, False
        elif isinstance(node, ast.Assign) and _empty(node.value):
            for target in node.targets:
                by_attribute = (
                    isinstance(target, ast.Attribute)
                    and target.attr == name
                    and not (isinstance(target.value, ast.Name) and target.value.id == "self")
                )
                by_global = isinstance(target, ast.Name) and target.id == name
                if by_attribute or (by_global and name in declared):
                    yield node.lineno, False


def _own_nodes(function: FunctionNode) -> Iterator[ast.AST]:
    """The function's nodes, not those of functions nested in it (walked on their own)."""
    stack: list[ast.AST] = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def _names(node: ast.expr, name: str) -> bool:
    """``name``, ``cls.name``, ``module.name``."""
    return (isinstance(node, ast.Name) and node.id == name) or (
        isinstance(node, ast.Attribute) and node.attr == name
    )


def _empty(value: ast.expr) -> bool:
    """None, an empty literal or an empty container call (``dict()``, ``OrderedDict()``)."""
    if isinstance(value, ast.Constant):
        return value.value is None
    if isinstance(value, ast.Dict | ast.List | ast.Set | ast.Tuple):
        return not getattr(value, "keys", None) and not getattr(value, "elts", None)
    if isinstance(value, ast.Call) and not value.args and not value.keywords:
        func = value.func
        called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        return called in {"dict", "list", "set", "OrderedDict"}
    if isinstance(value, ast.Call):  # ``defaultdict(list)``: empty, whatever it makes
        func = value.func
        return (func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")) == (
            "defaultdict"
        )
    return False
