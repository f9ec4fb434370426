"""A parsed Python file with what every detector needs: import aliases and scopes.

One walk over the tree records, for each node, its innermost enclosing function and
class. Detectors then look at calls, assignments and ``with`` blocks together with where
they sit (import time or run time) instead of matching text.
"""

from __future__ import annotations

import ast
import bisect
import posixpath
import re
import sys
from collections import defaultdict
from collections.abc import Iterable, Iterator
from functools import cached_property
from typing import NamedTuple

from horizontal.audit.patterns import lazy_compile

# Scopes are defs: a lambda's body is an expression of the statement around it.
FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


# Run when a package or image is built, never by a replica.
BUILD_SCRIPTS = frozenset({"setup.py", "_build.py", "build.py", "build_backend.py"})
# Code that runs inside a developer tool's process (a lint plugin, a docs extension, an
# operator's invoke/fabric tasks file).
# Developer tools, and Airflow (a DAG runs on Airflow's workers, a deployment of its own).
TOOL_PACKAGES = frozenset(
    {"pylint", "astroid", "flake8", "sphinx", "docutils", "setuptools", "invoke", "fabric"}
    | {"airflow"}
)
# A staticfiles finder runs in ``collectstatic``, a build step: what it writes is in the
# image (or the static files' storage) before any instance serves a request.
BUILD_TIME_MODULES = ("django.contrib.staticfiles.finders.",)


class Scope(NamedTuple):
    """Where a node sits: the innermost function (None at import time) and class."""

    function: FunctionNode | None
    cls: ast.ClassDef | None


# ``str.splitlines()`` also breaks lines at these, the parser's line numbers do not.
LINE_MARKS_THE_PARSER_IGNORES = ("\v", "\f", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")


class PythonModule:
    """One parsed module, indexed once for every detector.

    A plain class, not a dataclass: ``check --deploy`` imports the scanner, and generating
    a dataclass's methods at import costs about what importing a small module does.
    """

    def __init__(self, path: str, text: str, tree: ast.Module, lines: list[str]) -> None:
        self.path = path
        self.text = text
        self.tree = tree
        self.lines = lines
        self.imports: dict[str, str] = {}
        # ``from .keys import make_key``: make_key -> (1, "keys.make_key"); resolved
        # against ``package`` (``absolute_import``), which whoever knows it sets.
        self.relative_imports: dict[str, tuple[int, str]] = {}
        self.package: str | None = None
        self.scopes: dict[int, Scope] = {}  # id(node) -> Scope
        self.by_type: dict[type[ast.AST], list[ast.AST]] = defaultdict(list)
        self.functions: dict[str, list[FunctionNode]] = defaultdict(list)
        self.decorator_names: set[str] = set()
        self.hot_lines: list[int] = []
        # Class-based settings: the line of the class production runs (settings_classes.py),
        # where a setting it leaves unset is decided.
        self.decided_at = 0
        # The line of an environment lookup whose default is declared elsewhere, and that
        # place (path, line): django-environ's schema (settings_values.apply_env_schema), an
        # importer's os.environ.setdefault (settings_setdefaults.py).
        self.declared_defaults: dict[int, tuple[str, int]] = {}
        # The schema's default nodes judged elsewhere (at the calls that read them) or
        # read by nothing (apply_env_schema): not evidence where they are written.
        self.schema_defaults: set[int] = set()
        # Every call in a function body, by the called name's last part, with each function
        # that contains it: built on the first ``calls_to`` (one walk, not one per name).
        self.calls_by_name: dict[str, list[tuple[FunctionNode, ast.Call]]] | None = None

    @classmethod
    def parse(cls, path: str, text: str, hot_lines: Iterable[int] = ()) -> PythonModule | None:
        """Parse ``text``; expressions are indexed only on ``hot_lines`` (see ``_index``)."""
        tree = parse_tree(text, path)
        if tree is None:
            return None  # not our job to report broken files; the compiler will
        return cls.of_tree(path, text, tree, hot_lines)

    @classmethod
    def of_tree(
        cls, path: str, text: str, tree: ast.Module, hot_lines: Iterable[int] = ()
    ) -> PythonModule:
        """A module of an already parsed (or rearranged) tree of ``text``."""
        module = cls(path=path, text=text, tree=tree, lines=text.splitlines())
        module.hot_lines = sorted(set(hot_lines))
        module._index()
        return module

    def _index(self) -> None:
        """Index every statement with its scope, and expressions only on hot lines.

        Visiting every expression node of a large tree costs several times the parse
        itself; the detectors only look at calls on lines a regex already picked out
        (``hot_lines``), so statements are walked fully and expressions selectively.
        """
        statements: list[tuple[ast.stmt, Scope]] = []
        stack: list[tuple[ast.stmt, Scope]] = [(s, Scope(None, None)) for s in self.tree.body]
        while stack:
            node, scope = stack.pop()
            statements.append((node, scope))
            self.scopes[id(node)] = scope
            self.by_type[type(node)].append(node)
            inner = scope
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                self.functions[node.name].append(node)
                for decorator in node.decorator_list:
                    target = decorator.func if isinstance(decorator, ast.Call) else decorator
                    name = dotted(target)
                    if name:
                        self.decorator_names.add(name.rsplit(".", 1)[-1])
                inner = Scope(node, scope.cls)
            elif isinstance(node, ast.ClassDef):
                inner = Scope(scope.function, node)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    local = alias.asname or alias.name.split(".")[0]
                    self.imports[local] = alias.name if alias.asname else local
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    self.imports[alias.asname or alias.name] = f"{node.module}.{alias.name}"
            elif isinstance(node, ast.ImportFrom) and node.level:
                prefix = f"{node.module}." if node.module else ""
                for alias in node.names:
                    local = alias.asname or alias.name
                    self.relative_imports[local] = (node.level, prefix + alias.name)
            for child in _child_statements(node):
                stack.append((child, inner))
        if self.hot_lines:
            for node, scope in statements:
                # A statement with no hot line anywhere in its span has nothing to index.
                if self._hot(node.lineno, node.end_lineno or node.lineno):
                    self._index_expressions(node, scope)

    def _index_expressions(self, node: ast.stmt, scope: Scope) -> None:
        for name, value in ast.iter_fields(node):
            if name in {"body", "orelse", "finalbody", "handlers", "cases"}:
                continue
            for expr in value if isinstance(value, list) else [value]:
                if not isinstance(expr, ast.expr | ast.withitem | ast.arguments | ast.keyword):
                    continue
                first = getattr(expr, "lineno", node.lineno)
                last = getattr(expr, "end_lineno", None) or node.end_lineno or first
                if not self._hot(first, last):
                    continue
                for child in ast.walk(expr):
                    # (``MEDIA_ROOT`` alone: imported from a settings module, local_storage.py)
                    if isinstance(child, ast.Call | ast.Attribute) or (
                        isinstance(child, ast.Name) and child.id == "MEDIA_ROOT"
                    ):
                        self.scopes[id(child)] = scope
                        self.by_type[type(child)].append(child)

    def _hot(self, first: int, last: int) -> bool:
        index = bisect.bisect_left(self.hot_lines, first)
        return index < len(self.hot_lines) and self.hot_lines[index] <= last

    @cached_property
    def is_script(self) -> bool:
        """A management command, a ``__main__`` or executable (``#!``) script, a build
        step (``setup.py``, an in-tree build backend, a staticfiles finder) or a developer
        tool's plugin: its
        process ends with the run, and no request reads what it keeps."""
        path = f"/{self.path}"
        return (
            "/management/commands/" in path
            or is_runscript(path, self.text)
            or "__main__" in self.text
            or self.text.startswith("#!")
            or parses_its_command_line(self.text)
            or path.rsplit("/", 1)[-1] in BUILD_SCRIPTS
            or bool(BUILD_STEP.search(path))
            or bool(CLI_PACKAGE.search(path))
            or bool(INFRASTRUCTURE_FOLDER.search(path))
            or "/_build/" in path
            or bool(SCRIPTS_FOLDER.search(path))
            or any(target.split(".", 1)[0] in TOOL_PACKAGES for target in self.imports.values())
            or self._defines_a_build_time_class()
        )

    def _defines_a_build_time_class(self) -> bool:
        """A class built on ``BUILD_TIME_MODULES``' (``class Vendor(BaseFinder)``)."""
        if "staticfiles" not in self.text:
            return False
        return any(
            (self.qualify(base) or "").startswith(BUILD_TIME_MODULES)
            for cls in self.nodes(ast.ClassDef)
            if isinstance(cls, ast.ClassDef)
            for base in cls.bases
        )

    def nodes(self, *types: type[ast.AST]) -> Iterator[ast.AST]:
        for node_type in types:
            yield from self.by_type.get(node_type, ())

    def scope(self, node: ast.AST) -> Scope:
        return self.scopes.get(id(node), Scope(None, None))

    def absolute_import(self, name: str) -> str:
        """``name`` (``make_key``, ``keys.make_key``) as the absolute dotted name its
        relative import gives (``mysite.keys.make_key``), from ``package`` or else the
        module's folder; ``name`` unchanged when its head is no relative import."""
        head, _, rest = name.partition(".")
        if head not in self.relative_imports:
            return name
        level, target = self.relative_imports[head]
        package = self.package
        if package is None:
            # The module's folder as a dotted name; ``../proj/mysite`` (a tree beside the
            # working directory) is ``proj.mysite``.
            folders = [
                p for p in posixpath.dirname(self.path).split("/") if p not in {"", ".", ".."}
            ]
            package = ".".join(folders)
        base = package.rsplit(".", level - 1)[0] if level > 1 else package
        full = f"{base}.{target}" if base else target
        return f"{full}.{rest}" if rest else full

    def qualify(self, node: ast.AST) -> str | None:
        """``lru_cache`` → ``functools.lru_cache`` when imported so; None if not a name."""
        name = dotted(node)
        if name is None:
            return None
        head, _, rest = name.partition(".")
        full = self.imports.get(head)
        if full is None:
            return name
        return f"{full}.{rest}" if rest else full

    def is_settings(self, node: ast.AST) -> bool:
        """``settings`` in ``settings.MEDIA_ROOT``, or Django's settings imported under
        another name (``from django.conf import settings as djsettings``)."""
        name = dotted(node)
        return name == "settings" or (
            name is not None and self.imports.get(name) == "django.conf.settings"
        )

    def line(self, number: int) -> str:
        return self.lines[number - 1].strip() if 0 < number <= len(self.lines) else ""

    def segment(self, node: ast.AST) -> str:
        """``ast.get_source_segment(text, node) or ""`` from the lines split once (the
        standard one splits the whole text again on every call)."""
        if any(mark in self.text for mark in LINE_MARKS_THE_PARSER_IGNORES):
            return ast.get_source_segment(self.text, node) or ""
        first, last = getattr(node, "lineno", None), getattr(node, "end_lineno", None)
        start, end = getattr(node, "col_offset", None), getattr(node, "end_col_offset", None)
        if first is None or last is None or start is None or end is None:
            return ""
        # Offsets count UTF-8 bytes, as the parser does.
        lines = [line.encode() for line in self.lines[first - 1 : last]]
        if len(lines) != last - first + 1:
            return ""
        if len(lines) == 1:
            return lines[0][start:end].decode(errors="replace")
        parts = [lines[0][start:], *lines[1:-1], lines[-1][:end]]
        return "\n".join(part.decode(errors="replace") for part in parts)


# useful_scripts/get_emails.py, scripts/import_2019.py: a folder of scripts an operator
# runs by hand (``manage.py shell < …``, ``runscript``), not code a request reaches.
SCRIPTS_FOLDER = lazy_compile(r"/(?:[\w-]+[_-])?scripts/(?:[\w.-]+/)*[\w.-]+\.py$", re.I)
# build_assets.py, build_docs.py: a build step a command or the image build runs.
BUILD_STEP = lazy_compile(r"/build_\w+\.py$")
# terraform/, ansible/, packer/: infrastructure code an operator applies, not the app.
INFRASTRUCTURE_FOLDER = lazy_compile(r"/(?:terraform|ansible|pulumi|packer|cloudformation)/", re.I)
# tethys_cli/, myapp_cli/: the command-line client shipped beside the web app, run on
# an operator's machine (a bare cli/ package is often also reached through an API).
CLI_PACKAGE = lazy_compile(r"/\w+_cli/(?:[\w.-]+/)*[\w.-]+\.py$")


def _child_statements(node: ast.stmt) -> Iterator[ast.stmt]:
    for name in ("body", "orelse", "finalbody"):
        for child in getattr(node, name, ()):
            if isinstance(child, ast.stmt):
                yield child
    for handler in getattr(node, "handlers", ()):
        yield from handler.body
    for case in getattr(node, "cases", ()):
        yield from case.body


def dotted(node: ast.AST) -> str | None:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def calls_to(module: PythonModule, name: str) -> Iterator[tuple[FunctionNode, ast.Call]]:
    """Each call of the function ``name`` (``f(…)``, ``self.f(…)``) in the module, with each
    function that contains it. The bodies are walked whole: the prefilter indexed the
    expressions of hot lines only, and a call is rarely on one."""
    if module.calls_by_name is None:
        index: dict[str, list[tuple[FunctionNode, ast.Call]]] = defaultdict(list)
        for caller in module.nodes(ast.FunctionDef, ast.AsyncFunctionDef):
            assert isinstance(caller, ast.FunctionDef | ast.AsyncFunctionDef)
            for node in ast.walk(caller):
                if isinstance(node, ast.Call):
                    index[last_part(dotted(node.func))].append((caller, node))
        module.calls_by_name = index
    yield from module.calls_by_name.get(name, ())


def local_names(function: FunctionNode) -> set[str]:
    """Names bound in a function (its parameters and assignments), minus ``global`` ones."""
    args = function.args
    names = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
    names |= {a.arg for a in (args.vararg, args.kwarg) if a}
    declared: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            declared.update(node.names)
    return names - declared


def call_name(module: PythonModule, node: ast.AST) -> str | None:
    """Qualified name of what a call calls (``threading.Thread``), if it is a name."""
    return module.qualify(node.func) if isinstance(node, ast.Call) else None


def class_paths(path: str, class_name: str) -> Iterator[str]:
    """``app.storage.MediaStorage`` and each shorter suffix of it, for a class defined in
    the file at ``path``: the tree may be scanned from above the import root, so any suffix
    can be the dotted path that settings and imports name it by."""
    dotted_module = path[: -len(".py")].replace("/", ".").removesuffix(".__init__")
    parts = f"{dotted_module}.{class_name}".split(".")
    for start in range(len(parts) - 1):
        yield ".".join(parts[start:])


def nodes_outside_scopes(body: Iterable[ast.AST]) -> Iterator[ast.AST]:
    """Every node of ``body``, not those of the functions, lambdas and classes defined in
    it (what a module runs at import; what one function runs itself)."""
    pending: list[ast.AST] = list(body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        yield node
        pending.extend(ast.iter_child_nodes(node))


def last_part(name: str | None) -> str:
    return name.rsplit(".", 1)[-1] if name else ""


def settings_attribute(node: ast.AST | None) -> str | None:
    """``settings.REDIS_URL`` as ``REDIS_URL``: the Django setting an expression reads."""
    if (
        isinstance(node, ast.Attribute)
        and node.attr.isupper()
        and isinstance(node.value, ast.Name)
        and node.value.id == "settings"
    ):
        return node.attr
    return None


def string_value(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def keyword(call: ast.Call, name: str) -> ast.expr | None:
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value
    return None


# Python 3.14's unparenthesized ``except A, B:`` (PEP 758), which older parsers reject.
BARE_EXCEPT_TUPLE = lazy_compile(
    r"^([ \t]*except\*?[ \t]+)([\w.]+(?:[ \t]*,[ \t]*[\w.]+)+)[ \t]*:", re.M
)


def parse_tree(text: str, path: str) -> ast.Module | None:
    """The tree of ``text``; newer syntax this interpreter lacks is rewritten in place
    (same lines) where that is a pure spelling change."""
    try:
        return ast.parse(text, filename=path)
    except (SyntaxError, ValueError):
        pass
    except RecursionError:  # a generated expression nested deeper than the parser goes
        return None
    rewritten = _without_type_parameters(BARE_EXCEPT_TUPLE.sub(r"\1(\2):", text))
    if rewritten != text and (tree := _parsed(rewritten, path)) is not None:
        return tree
    if sys.version_info < (3, 12) and "{" in text:
        # Imported here: only a file this parser rejects is respelled.
        from horizontal.audit.fstrings import respell_fstrings

        respelled = respell_fstrings(rewritten)
        if respelled != rewritten:
            return _parsed(respelled, path)
    return None


def _parsed(text: str, path: str) -> ast.Module | None:
    try:
        return ast.parse(text, filename=path)
    except (SyntaxError, ValueError, RecursionError):
        return None


# Python 3.12's type parameters (PEP 695): ``def f[T: X](…)``, ``class C[T]:`` and
# ``type Alias[T] = …``. Dropped before an older parser reads the file: no rule reads them.
TYPE_PARAMETERS = lazy_compile(r"\b(?:def|class)[ \t]+\w+(\[)|^[ \t]*type[ \t]+\w+[ \t]*(\[)", re.M)
TYPE_ALIAS = lazy_compile(r"^([ \t]*)type[ \t]+(\w+)(?=[ \t\\\n]*[\[=])", re.M)


def _without_type_parameters(text: str) -> str:
    if "[" not in text:
        return text
    pieces: list[str] = []
    start = 0
    for match in TYPE_PARAMETERS.finditer(text):
        opening = match.start(1) if match.group(1) else match.start(2)
        if opening < start:
            continue
        closing = _matching_bracket(text, opening)
        if closing is None:
            continue
        # Newlines are kept, as line continuations, so every later line keeps its number
        # and a header spread over lines (``class Merger[\n  T,\n](Base):``) stays one.
        breaks = " \\\n" * text.count("\n", opening, closing + 1)
        pieces += [text[start:opening], breaks]
        start = closing + 1
    text = "".join(pieces) + text[start:]
    aliases = TYPE_ALIAS.sub(r"\1\2", text)
    return aliases if "type" in text else text


def _matching_bracket(text: str, opening: int) -> int | None:
    depth = 0
    for index in range(opening, min(len(text), opening + 2000)):
        if text[index] == "[":
            depth += 1
        elif text[index] == "]":
            depth -= 1
            if depth == 0:
                return index
    return None


# ``args = parser.parse_args()`` at a module's top level: it reads its command line when
# it is run, so it is a tool someone runs (``python lint.py file.yaml``), not code a
# request imports.
TOP_LEVEL_ARGUMENT_PARSE = lazy_compile(r"^\w[^\n]*\.parse(?:_known)?_args\(", re.M)


def parses_its_command_line(text: str) -> bool:
    return "parse_" in text and bool(TOP_LEVEL_ARGUMENT_PARSE.search(text))


def run_by_hand(name: str, text: str) -> bool:
    """A management command or a script, judged from its text (``PythonModule.is_script``
    without the parse): what it does happens once, where its operator runs it."""
    return (
        "/management/commands/" in f"/{name}"
        or bool(INFRASTRUCTURE_FOLDER.search(f"/{name}"))
        or is_runscript(name, text)
        or text.startswith("#!")
        or "__main__" in text
        or parses_its_command_line(text)
    )


def is_runscript(path: str, text: str) -> bool:
    """A django-extensions ``runscript`` script: a module of a ``scripts/`` package with a
    top-level ``def run(``, run by hand (``manage.py runscript development_fixtures``)."""
    return "/scripts/" in f"/{path}" and ("\ndef run(" in text or text.startswith("def run("))
