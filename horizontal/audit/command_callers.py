"""Functions that only commands and scripts call: what they do happens where an operator
runs them.

``importers.py`` spares the modules only commands import. A helper in a module that
request code imports too (``CsvMeta.trim_extra_fields``, beside the upload form's
``CsvMeta``) is judged by its name: when every mention of it outside its own ``def`` is
in a command or a script, it runs once, on the operator's host. A name mentioned nowhere
else is kept, and so is any function of a module Django or a task runner finds by its
name (``views.py``, ``tasks.py``): they may call it by itself.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator

from horizontal.audit.findings import Finding
from horizontal.audit.importers import found_by_name
from horizontal.audit.patterns import lazy_compile
from horizontal.audit.prefilter import hot_lines
from horizontal.audit.source import PythonModule

__all__ = [
    "commands_views_run",
    "without_what_only_commands_call",
    "writes_of_commands_views_run",
]

DEFINITION = lazy_compile(r"^([ \t]*)(?:async[ \t]+)?def[ \t]+(\w+)")
CLASS = lazy_compile(r"^([ \t]*)class[ \t]+\w+")
# Shorter names (``run``, ``save``) are everywhere; a helper worth judging is named.
SHORTEST_NAME = 6
# ``call_command("sync_data", …)``: the command a module runs by name.
CALLED_COMMAND = lazy_compile(r"\bcall_command\(\s*[\"'](\w+)[\"']")
# The modules that answer requests, by their name or their folder's: views (an admin
# action's or an API module's ``call_command`` is not followed: not measured yet).
VIEW_MODULE = lazy_compile(r"(^|/)(views|viewsets)(\.py$|/)")


def commands_views_run(python_texts: list[tuple[str, str]], by_hand: set[str]) -> list[str]:
    """The management command modules (by path, sorted) that a view runs by name: every
    command of that name, as the scan cannot tell which app's Django would pick."""
    commands: dict[str, list[str]] = {}
    for name in sorted(by_hand):
        if "/management/commands/" in f"/{name}":
            commands.setdefault(name.rsplit("/", 1)[-1][: -len(".py")], []).append(name)
    if not commands:
        return []
    called = {
        command
        for name, text in python_texts
        if "call_command(" in text and VIEW_MODULE.search(name) and name not in by_hand
        for command in CALLED_COMMAND.findall(text)
    }
    return sorted(path for command in called for path in commands.get(command, ()))


def without_what_only_commands_call(
    findings: list[Finding],
    categories: Iterable[str],
    python_texts: list[tuple[str, str]],
    by_hand: set[str],
) -> list[Finding]:
    """``findings`` without those (in ``categories``) inside a function that only
    commands and scripts call."""
    spared = frozenset(categories)
    texts = dict(python_texts)
    functions: dict[int, set[str]] = {}  # finding index: the functions its places are in
    for index, finding in enumerate(findings):
        if finding.category not in spared or finding.path in by_hand:
            continue  # a command's own code was judged by the rule that found it
        if found_by_name(finding.path):
            continue  # views.py, tasks.py: Django or a worker may call it by its name
        text = texts.get(finding.path)
        if text is None:
            continue
        # A finding that groups writes is spared only if every one of them is.
        # A module-level constant related (``HASH_FILE = … / "dbhash.json"``) names the
        # path written: it writes nothing itself.
        lines = [finding.line] + [
            r.line
            for r in finding.related
            if r.path == finding.path and not _names_a_constant(text, r.line)
        ]
        names = {_outermost_function(text, line) for line in lines}
        if all(name and len(name) >= SHORTEST_NAME and not name.startswith("__") for name in names):
            functions[index] = {name for name in names if name}
    if not functions:
        return findings
    signals = _signals_sent_by_hand(python_texts, by_hand)
    only_by_hand = {
        name
        for name in set().union(*functions.values())
        if _mentioned_only_by_hand(name, python_texts, by_hand, signals)
    }
    return [
        finding
        for index, finding in enumerate(findings)
        if index not in functions or not functions[index] <= only_by_hand
    ]


# ``HASH_FILE = settings.SITE.site_dir / "dbhash.json"`` at the top of a module.
MODULE_CONSTANT = lazy_compile(r"[A-Z_][A-Z0-9_]*[ \t]*(?::[^=\n]+)?=[^=]")


def _names_a_constant(text: str, line: int) -> bool:
    lines = text.splitlines()
    return 0 < line <= len(lines) and MODULE_CONSTANT.match(lines[line - 1]) is not None


def _outermost_function(text: str, line: int) -> str | None:
    """The function, or the top-level class's method, that holds ``line``: read back
    through the headers of the blocks around it, the last ``def`` before column 0."""
    lines = text.splitlines()
    if not 0 < line <= len(lines):
        return None
    source = lines[line - 1]
    indent = len(source) - len(source.lstrip())
    found: str | None = None
    for number in range(line - 1, 0, -1):
        if indent == 0:
            break
        source = lines[number - 1]
        stripped = source.lstrip()
        depth = len(source) - len(stripped)
        if not stripped or stripped.startswith(("#", ")", "]", "}")) or depth >= indent:
            continue  # inside the block, or a blank, comment or closing line
        if definition := DEFINITION.match(source):
            found = definition.group(2)
        elif CLASS.match(source) and depth == 0:
            break  # a method of a top-level class: the def found is the one
        indent = depth
    return found


# A signal the project defines (``database_prepared = Signal()``), and one sent
# (``database_prepared.send(self)``, ``send_robust``, their async forms).
SIGNAL_DEFINED = lazy_compile(r"^[ \t]*(\w+)[ \t]*=[ \t]*(?:[\w.]*\.)?Signal\(", re.M)
SIGNAL_SENT = lazy_compile(r"\b(\w+)\.a?send(?:_robust)?\(")
# ``database_prepared.connect(dbhash.mark_virgin)``, ``@receiver(database_prepared)``.
SIGNAL_CONNECTED = lazy_compile(r"\b(\w+)\.connect\(|^[ \t]*@(?:[\w.]*\.)?receiver\(\s*(\w+)")


def _signals_sent_by_hand(python_texts: list[tuple[str, str]], by_hand: set[str]) -> set[str]:
    """The project's own signals that only commands and scripts send (lino's
    ``database_prepared``, sent by its ``prep`` command): their receivers run where an
    operator runs the command. Django's and libraries' signals are sent elsewhere."""
    defined = {
        name
        for _, text in python_texts
        if "Signal(" in text
        for name in SIGNAL_DEFINED.findall(text)
    }
    if not defined:
        return set()
    sent_in: dict[str, set[bool]] = {}
    for path, text in python_texts:
        if "send" in text:
            for name in SIGNAL_SENT.findall(text):
                if name in defined:
                    sent_in.setdefault(name, set()).add(path in by_hand)
    return {name for name, places in sent_in.items() if places == {True}}


def _mentioned_only_by_hand(
    name: str, python_texts: list[tuple[str, str]], by_hand: set[str], signals: set[str]
) -> bool:
    """Every mention of ``name`` outside its ``def`` is in a command or a script, or
    connects it to a signal only they send (``signals``)."""
    word = re.compile(rf"\b{name}\b")
    by_hand_mentions = 0
    for path, text in python_texts:
        if name not in text:
            continue
        lines = text.splitlines()
        mentions = 0
        for number, line in enumerate(lines):
            if _defines(line, name):
                # Connected by its decorator to a signal only commands send: their run.
                above = lines[max(0, number - 3) : number]
                by_hand_mentions += sum(_connects_to(decorator, signals) for decorator in above)
            elif word.search(line):
                if _connects_to(line, signals):
                    by_hand_mentions += 1
                else:
                    mentions += 1
        if not mentions:
            continue
        if path not in by_hand:
            return False
        by_hand_mentions += mentions
    return by_hand_mentions > 0


def _connects_to(line: str, signals: set[str]) -> bool:
    return any(
        (match.group(1) or match.group(2)) in signals for match in SIGNAL_CONNECTED.finditer(line)
    )


def _defines(line: str, name: str) -> bool:
    definition = DEFINITION.match(line)
    return definition is not None and definition.group(2) == name


def writes_of_commands_views_run(
    python_texts: list[tuple[str, str]],
    by_hand: set[str],
    detect: Callable[[PythonModule], Iterable[Finding]],
) -> Iterator[Finding]:
    """The file writes (``detect``: the scan's Python detectors) of the management commands
    a view runs: they happen on the instance that served the request."""
    texts = dict(python_texts)
    for name in commands_views_run(python_texts, by_hand):
        module = PythonModule.parse(name, texts[name], hot_lines(texts[name]) or ())
        if module is None:
            continue
        module.__dict__["is_script"] = False  # what a request runs, not an operator
        yield from (f for f in detect(module) if f.category == "file-write")
