"""cache: which per-process memos the project clears, judged once every module is read.

A memo that nothing clears is stale in every process until it restarts, with one instance
or with many: the project chose "restart to see the change", and adding instances does not
change what anyone sees. A memo the project clears when the data changes
(``get_setting.cache_clear()`` in a save signal, ``del CONFERENCE_CACHE[self.id]`` in
``save()``, ``_cached_llm = None`` when the settings change) is a single-instance
assumption: the clear runs in the process that made the change, and the other instances
keep the old value. So a memo is reported (``cache``) when project code outside tests,
commands, scripts and the modules only they import clears it, with the clearing lines
related; one nothing clears is per-process state, reported with ``--extend-category
module-state``. On the tuning corpus the labellers called 17 of 100 memo findings
assumptions, and 11 of those 17 were memos the project clears.

A clear is matched to its memo by what it names, not by the name alone: the memo's own
module (not a local of the same name, not another object's attribute), a module that
imports the memo or its class from the memo's module (``from .tools import _data as
memo``, ``import app.tools as t`` … ``t._data``), or a memoised function reached through
an attribute (``instance.viewset.get_service.cache_clear()``: only a memo has
``cache_clear``). Each module is indexed once, whatever the number of memos.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from typing import NamedTuple

from horizontal.audit.findings import Finding, Location
from horizontal.audit.patterns import lazy_compile
from horizontal.audit.source import local_names, nodes_outside_scopes, parse_tree

__all__ = ["NEVER_CLEARED", "judge_memos", "setting_changed_receivers"]

# ``get_setting() memoises …``, ``dict _TOOL_CACHE memoises … (filled at line 12)``,
# ``dict Class.cache memoises …``, ``global CONFIG is loaded once from …``.
MEMO_NAMED = lazy_compile(
    r"^(?:(?P<function>\w+)\(\) memoises |\w+ (?P<container>[\w.]+) memoises |"
    r"global (?P<global>\w+) is loaded once from )"
)
FILLED_AT = lazy_compile(r"\(filled at line (\d+)\)")
# Memos already known to be cleared in one process only, or not memos of shared data.
ALREADY_JUDGED = ("cleared on save only", "fresh random value")
CLEARING_CALLS = frozenset({"cache_clear", "clear", "pop", "popitem", "remove", "discard"})
EMPTY_CALLS = frozenset({"dict", "list", "set", "OrderedDict", "defaultdict"})
RELATED_CLEARS = 5  # clearing lines shown beside the finding
NEVER_CLEARED = (
    "; nothing in the project clears it, so it is stale in every process until that process "
    "restarts (one instance or many)"
)

Scope = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda


class Clear(NamedTuple):
    line: int
    receiver: ast.expr  # what is cleared: ``_data``, ``Tool._CACHE``, ``x.get_service``
    cache_clear: bool
    scope: Scope
    owner_class: str  # the class the clearing method belongs to, or ""


class ModuleIndex(NamedTuple):
    clears: dict[str, list[Clear]]  # by the last name of what is cleared
    # Local name to (module, name) for ``from M import name [as local]``; to (M, "") for
    # ``import M [as local]``.
    imports: dict[str, tuple[str, str]]


def judge_memos(
    findings: list[Finding],
    python_texts: Iterable[tuple[str, str]],
    spared: set[str],
    wanted: set[str],
) -> list[Finding]:
    """Memos the project clears stay ``cache`` findings, their clears related; the others
    become ``module-state`` when that category is wanted and are dropped otherwise.
    ``spared``: modules whose clears run in no server (commands, scripts, their helpers)."""
    named = {id(f): _memo_name(f) for f in findings if f.category == "cache"}
    names = {memo.rpartition(".")[2] for memo in named.values() if memo}
    if not names:
        return findings if "cache" in wanted else [f for f in findings if f.category != "cache"]
    indexes = _indexes(python_texts, spared, names)
    judged: list[Finding] = []
    for finding in findings:
        memo = named.get(id(finding), "")
        if finding.category != "cache":
            judged.append(finding)
        elif not memo:
            if "cache" in wanted:
                judged.append(finding)
        elif clears := list(_clears(memo, finding, indexes)):
            if "cache" in wanted:
                related = tuple(Location(path, line) for path, line in clears[:RELATED_CLEARS])
                judged.append(finding._replace(related=(*finding.related, *related)))
        elif "module-state" in wanted:
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


def _indexes(
    python_texts: Iterable[tuple[str, str]], spared: set[str], names: set[str]
) -> dict[str, ModuleIndex]:
    """Each module whose text may clear one of ``names``, indexed once."""
    may_clear = _clearing_text(names)
    alternation = "|".join(sorted(map(re.escape, names)))
    renamed = re.compile(rf"\b(?:{alternation})\s+as\s+(\w+)")
    indexes: dict[str, ModuleIndex] = {}
    for path, text in python_texts:
        if path in spared or not any(name in text for name in names):
            continue
        lines = _lines_of(may_clear, text)
        if aliases := set(renamed.findall(text)):  # ``from .tools import _data as memo``
            lines |= _lines_of(_clearing_text(aliases), text)
        if not lines:
            continue
        try:
            tree = parse_tree(text, path)
        except RecursionError:  # a generated table nested too deep for the parser
            tree = None
        if tree is not None:
            indexes[path] = _index(tree, lines)
    return indexes


def _lines_of(pattern: re.Pattern[str], text: str) -> set[int]:
    return {text.count("\n", 0, match.start()) + 1 for match in pattern.finditer(text)}


def _clearing_text(names: set[str]) -> re.Pattern[str]:
    """A text test before a parse: one of ``names`` cleared, popped, deleted from or reset
    (``_data.pop(``, ``del CACHE[``, ``X = None``)."""
    alternation = "|".join(sorted(map(re.escape, names)))
    return re.compile(
        rf"\b(?:{alternation})\s*\.\s*(?:cache_clear|clear|pop|popitem|remove|discard)\s*\("
        rf"|\bdel\s+[^\n]*?\b(?:{alternation})\s*\["
        # A reset is indented: the module-level binding is the memo's own.
        rf"|^[ \t]+(?:[\w.]*\.)?(?:{alternation})\s*=\s*(?:None\b|\{{\s*\}}|\[\s*\]|"
        rf"(?:dict|list|set|OrderedDict|defaultdict)\()",
        re.MULTILINE,
    )


def _index(tree: ast.Module, lines: set[int]) -> ModuleIndex:
    """The module's imports, and the clears of the scopes that hold one of ``lines``."""
    clears: dict[str, list[Clear]] = {}
    imports: dict[str, tuple[str, str]] = {}
    owners: dict[int, str] = {}  # id of a method to its class
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                imports[alias.asname or alias.name] = (node.module, alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                imports[alias.asname or alias.name] = (alias.name, "")
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    owners[id(item)] = node.name
    on_setting_changed = setting_changed_receivers(tree)
    for scope in ast.walk(tree):
        if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) and any(
            scope.lineno <= line <= (scope.end_lineno or scope.lineno) for line in lines
        ):
            if getattr(scope, "name", None) in on_setting_changed:
                continue  # runs when a test overrides settings, never in production
            for clear in _clears_in(scope, owners.get(id(scope), "")):
                name = _last_name(clear.receiver)
                if name:
                    clears.setdefault(name, []).append(clear)
    return ModuleIndex(clears, imports)


def setting_changed_receivers(tree: ast.Module) -> set[str]:
    """The functions connected to Django's ``setting_changed`` signal alone (``@receiver(
    setting_changed)``, ``setting_changed.connect(reset)``): only ``override_settings``
    sends it, in tests. One that also receives another signal (``post_save``) is not."""
    signals: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for decorator in node.decorator_list:
                if isinstance(decorator, ast.Call) and decorator.args:
                    sent = decorator.args[0]
                    names = sent.elts if isinstance(sent, ast.List | ast.Tuple) else [sent]
                    signals.setdefault(node.name, set()).update(_last_name(n) for n in names)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "connect"
            and node.args
            and isinstance(node.args[0], ast.Name)
        ):
            signals.setdefault(node.args[0].id, set()).add(_last_name(node.func.value))
    return {name for name, sent in signals.items() if sent == {"setting_changed"}}


def _clears_in(scope: Scope, owner_class: str) -> Iterator[Clear]:
    body = [scope.body] if isinstance(scope, ast.Lambda) else scope.body
    nodes = list(nodes_outside_scopes(body))
    declared = {
        name for node in nodes if isinstance(node, ast.Global | ast.Nonlocal) for name in node.names
    }
    for node in nodes:
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in CLEARING_CALLS
        ):
            cache_clear = node.func.attr == "cache_clear"
            yield Clear(node.lineno, node.func.value, cache_clear, scope, owner_class)
        elif isinstance(node, ast.Delete):
            for target in node.targets:
                if isinstance(target, ast.Subscript):
                    yield Clear(node.lineno, target.value, False, scope, owner_class)
        elif isinstance(node, ast.Assign) and _empty(node.value):
            for target in node.targets:
                # ``X = None`` rebinds the global only where the function declares it.
                if isinstance(target, ast.Attribute) or (
                    isinstance(target, ast.Name) and target.id in declared
                ):
                    yield Clear(node.lineno, target, False, scope, owner_class)


def _clears(
    memo: str, finding: Finding, indexes: dict[str, ModuleIndex]
) -> Iterator[tuple[str, int]]:
    owner, _, name = memo.rpartition(".")
    home = _module_names(finding.path)
    filler = _filler_line(finding)
    for path, index in indexes.items():
        same_module = path == finding.path
        # The names this module knows the memo (or its class) by.
        known = {name} if same_module and not owner else set()
        modules: set[str] = set()  # local names of the memo's module
        for local, (module, imported) in index.imports.items():
            if _is_home(module, imported, home):
                modules.add(local)
            elif module.rpartition(".")[2] in home and imported == (owner or name):
                known.add(local)
        for local in {name, *known}:
            for clear in index.clears.get(local, []):
                if same_module and filler and _spans(clear.scope, filler):
                    continue  # the memo's filler: its own reset or eviction before it fills
                if _clears_the_memo(clear, owner, name, known, modules, same_module):
                    yield path, clear.line


def _clears_the_memo(
    clear: Clear, owner: str, name: str, known: set[str], modules: set[str], same_module: bool
) -> bool:
    receiver = clear.receiver
    if isinstance(receiver, ast.Name):
        if owner or receiver.id not in known:
            return False
        # ``plans.pop()`` of a local of the same name is not the memo's clear.
        return isinstance(clear.scope, ast.Lambda) or receiver.id not in _locals(clear.scope)
    if not isinstance(receiver, ast.Attribute) or receiver.attr != name:
        return False
    base = receiver.value
    if owner:
        if isinstance(base, ast.Name) and base.id in {"self", "cls"}:
            return same_module and clear.owner_class == owner
        return isinstance(base, ast.Name) and base.id in known | ({owner} if same_module else set())
    if isinstance(base, ast.Name):
        # ``tools._data.pop()``, ``t.get_setting.cache_clear()``; a method's memo through
        # ``self``/``cls`` (only a memoised function has ``cache_clear``).
        return base.id in modules or (clear.cache_clear and base.id in {"self", "cls"})
    # ``instance.viewset.get_service.cache_clear()``: only a memoised function has it.
    return clear.cache_clear


def _locals(scope: Scope) -> set[str]:
    assert not isinstance(scope, ast.Lambda)
    return local_names(scope)


def _module_names(path: str) -> set[str]:
    """The last names the memo's module is imported by: ``app/tools.py`` is ``tools``, a
    package's ``app/tools/__init__.py`` is ``tools``."""
    parts = path.removesuffix(".py").split("/")
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return {parts[-1]}


def _is_home(module: str, imported: str, home: set[str]) -> bool:
    """``import app.tools [as t]`` or ``from app import tools``: the memo's module."""
    if imported:
        return imported in home
    return module.rpartition(".")[2] in home


def _filler_line(finding: Finding) -> int:
    """A line inside the function that fills the memo: a loaded-once global's finding is
    its ``global`` statement there; a container's message names its fill."""
    if finding.message.startswith("global "):
        return finding.line
    match = FILLED_AT.search(finding.message)
    return int(match.group(1)) if match else 0


def _spans(scope: Scope, line: int) -> bool:
    return scope.lineno <= line <= (scope.end_lineno or scope.lineno)


def _last_name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _empty(value: ast.expr) -> bool:
    """None, an empty literal or an empty container call (``dict()``, ``defaultdict(list)``)."""
    if isinstance(value, ast.Constant):
        return value.value is None
    if isinstance(value, ast.Dict):
        return not value.keys
    if isinstance(value, ast.List | ast.Set | ast.Tuple):
        return not value.elts
    if isinstance(value, ast.Call):
        func = value.func
        called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        return called in EMPTY_CALLS and (called == "defaultdict" or not value.args)
    return False
