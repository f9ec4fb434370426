"""What a settings module gives production, read from its source as Python would run it.

The last assignment of a setting wins, and a module that ``from … import *`` another
replaces what it reassigns; an environment lookup (``os.getenv("X", d)``,
``env("X", default=d)``) is worth its default, the value production gets when nothing
is set (the branches production does not take are ``settings_branches``). Nothing here
judges a value: the rules (``settings_rules``) do. Reads parsed source only; imports
nothing but the audit's own ``source`` and ``known``.
"""

from __future__ import annotations

import ast
import copy
import posixpath
from collections.abc import Callable, Iterator, Mapping, Sequence

from horizontal.audit.env_lookups import (
    empty_default,
    env_default,
    is_required_option,
)
from horizontal.audit.patterns import lazy_compile
from horizontal.audit.settings_branches import off_by_default, on_by_default
from horizontal.audit.source import PythonModule, dotted, keyword, last_part, string_value
from horizontal.audit.this_host import this_host_addresses

__all__ = [
    "KeyPath",
    "address_text",
    "apply_env_schema",
    "env_schemas",
    "imported_env_schemas",
    "module_strings",
    "mutated_in_place",
    "replacement_check",
    "strings_with_paths",
    "top_level_settings",
    "value_paths",
]

# A setting and the dict keys under it: ("STORAGES", "default", "BACKEND").
KeyPath = tuple[str, ...]
PATH_CALLS = frozenset({"str", "Path", "join", "fspath"})
# ``url = urlparse(os.getenv("DATABASE_URL", "postgres://localhost/app"))``, then
# ``"HOST": url.hostname``: the parsed URL's parts come from the URL's default.
URL_PARSERS = frozenset({"urlparse", "urlsplit"})
# A printf-style field: %s, %d, %(name)s, %05.2f.
PERCENT_FIELD = lazy_compile(r"%(?:\([^)]*\))?[-#0 +]*\d*(?:\.\d+)?[sdrifx]")


def top_level_settings(module: PythonModule) -> dict[str, list[ast.stmt]]:
    """UPPERCASE names assigned at import time (including under if/try), with statements."""
    assigned: dict[str, list[ast.stmt]] = {}
    for node in module.nodes(ast.Assign, ast.AnnAssign, ast.AugAssign):
        assert isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign)
        if module.scope(node).function is not None or module.scope(node).cls is not None:
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            root = target
            while isinstance(root, ast.Subscript | ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and root.id.isupper():
                assigned.setdefault(root.id, []).append(node)
    return assigned


def mutated_in_place(modules: list[PythonModule]) -> list[KeyPath]:
    """Key paths that a module assigns into a setting it imported by name from the group
    (``from project.settings import CHANNEL_LAYERS`` then ``CHANNEL_LAYERS["default"]
    ["CONFIG"] = …``): the imported dict is the base's own object, changed in place."""
    group = {posixpath.basename(m.path)[: -len(".py")] for m in modules}
    group |= {posixpath.basename(posixpath.dirname(m.path)) for m in modules}
    found: list[KeyPath] = []
    for module in modules:
        imported = {
            alias.asname or alias.name
            for node in module.tree.body
            if isinstance(node, ast.ImportFrom) and (node.module or "").rsplit(".", 1)[-1] in group
            for alias in node.names
            if alias.name.isupper()
        }
        found += [p for _, p in _unconditional_paths(module) if len(p) > 1 and p[0] in imported]
    return found


# -- key paths: where in a setting a value sits, and what replaces it -----------------------


def _target_path(target: ast.AST) -> KeyPath | None:
    keys: list[str] = []
    while isinstance(target, ast.Subscript):
        key = string_value(target.slice)
        if key is None:
            return None
        keys.insert(0, key)
        target = target.value
    if isinstance(target, ast.Name) and target.id.isupper():
        return (target.id, *keys)
    return None


def _unconditional_paths(module: PythonModule) -> list[tuple[int, KeyPath]]:
    """(line, key path) of each assignment at the top of the module, outside any block
    (the keys a top-level ``DATABASES["default"].update({...})`` sets included)."""
    found: list[tuple[int, KeyPath]] = []
    for statement in module.tree.body:
        targets: list[ast.expr] = []
        if isinstance(statement, ast.Assign):
            targets = list(statement.targets)
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            targets = [statement.target]
        elif isinstance(statement, ast.Expr) and (update := _dict_update(statement.value)):
            setting, keys = update
            found += [(statement.lineno, (*setting, key)) for key in _literal_keys(keys)]
        for target in targets:
            path = _target_path(target)
            if path is not None:
                found.append((statement.lineno, path))
    return found


def _dict_update(node: ast.AST) -> tuple[KeyPath, ast.Dict] | None:
    """``DATABASES["default"].update({...})``: the setting's path and the dict given."""
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "update"
        and len(node.args) == 1
        and isinstance(node.args[0], ast.Dict)
    ):
        return None
    path = _target_path(node.func.value)
    return (path, node.args[0]) if path is not None else None


def _literal_keys(node: ast.Dict) -> list[str]:
    return [key for k in node.keys if k is not None and (key := string_value(k)) is not None]


def _assigned_values(module: PythonModule) -> Iterator[tuple[ast.expr, KeyPath]]:
    """The value of each settings assignment made at import time, with its target's path
    (and the dict a ``SETTING[...].update({...})`` merges in, under the setting's path)."""
    for node in module.nodes(ast.Assign, ast.AnnAssign, ast.Expr):
        if module.scope(node).function is not None:
            continue
        if isinstance(node, ast.Expr):
            if (update := _dict_update(node.value)) is not None:
                yield update[1], update[0]
            continue
        assert isinstance(node, ast.Assign | ast.AnnAssign)
        if node.value is None:
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            path = _target_path(target)
            if path is not None:
                yield node.value, path


def value_paths(module: PythonModule) -> dict[int, KeyPath]:
    """For each line inside a settings assignment, the key path its value sits under
    (``STORAGES``, ``default``, ``BACKEND``), the innermost dict key that holds it."""
    lines: dict[int, KeyPath] = {}

    def walk(node: ast.AST, path: KeyPath) -> None:
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                name = string_value(key)
                walk(value, (*path, name) if name is not None else path)
            return
        for child in ast.walk(node):
            if hasattr(child, "lineno"):
                lines.setdefault(child.lineno, path)

    for value, path in _assigned_values(module):
        walk(value, path)
    return lines


def replacement_check(
    module: PythonModule,
    children: list[PythonModule],
    mutated: Sequence[KeyPath] = (),
    imported_below: Sequence[tuple[int, PythonModule]] = (),
) -> Callable[..., bool]:
    """``replaced(line, path=None)``: whether the setting value on ``line`` of ``module``
    is replaced before production reads it: by a later top-level assignment of it (or of a
    dict holding it) in the module or in a sibling a later ``from .x import *`` brings in
    (``imported_below``), in every production module that star-imports it, or in place by
    a production module that imports the setting (``mutated``)."""
    own = _unconditional_paths(module) + [
        (line, path)
        for line, sibling in imported_below
        for _, path in _unconditional_paths(sibling)
    ]
    values = value_paths(module)
    by_children = [_unconditional_paths(child) for child in children]

    def covers(assignment: KeyPath, value: KeyPath) -> bool:
        return value[: len(assignment)] == assignment

    def replaced(line: int, setting: str | None = None) -> bool:
        path = (setting,) if setting else values.get(line)
        if not path:
            return False
        if any(later > line and covers(p, path) for later, p in own):
            return True
        if any(covers(p, path) for p in mutated):
            return True
        return bool(by_children) and all(
            any(covers(p, path) for _, p in assignments) for assignments in by_children
        )

    return replaced


def strings_with_paths(module: PythonModule) -> Iterator[tuple[ast.AST, KeyPath]]:
    """Each string constant inside a top-level settings assignment, with its key path
    (a key may be a name bound to a string above: ``{DEFAULT_DB_ALIAS: …}``)."""
    constants = {name: text for name, (text, _) in module_strings(module).items()}

    def walk(node: ast.AST, path: KeyPath) -> Iterator[tuple[ast.AST, KeyPath]]:
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                name = string_value(key)
                if name is None and isinstance(key, ast.Name):
                    name = constants.get(key.id)
                yield from walk(value, (*path, name) if name is not None else path)
            return
        if string_value(node) is not None or isinstance(node, ast.Name):
            yield node, path
            return
        if env_default(node) is not None:
            yield node, path  # os.getenv("X", default): judged by its default
            return
        if isinstance(node, ast.JoinedStr | ast.BinOp):
            yield node, path  # a string built at run time: judged whole (address_text)
            return
        for child in ast.iter_child_nodes(node):
            yield from walk(child, path)

    for value, path in _assigned_values(module):
        yield from walk(value, path)


# -- environment fallbacks: the value production gets when nothing is set ------------------


EnvSchemas = dict[str, dict[str, ast.expr]]  # ``env`` to its variables' defaults
# A schema another module built, by the name it is imported as: (its module's path, it).
ImportedSchemas = dict[str, tuple[str, dict[str, ast.expr]]]


def env_schemas(module: PythonModule) -> EnvSchemas:
    """django-environ schemas a module builds: ``env = environ.Env(DB_HOST=(str, "x"))``."""
    schemas: EnvSchemas = {}
    for statement in module.tree.body:
        if not (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
            and isinstance(statement.value, ast.Call)
            and last_part(dotted(statement.value.func)).endswith("Env")  # Env, FileAwareEnv
        ):
            continue
        defaults: dict[str, ast.expr] = {}
        for keyword_ in statement.value.keywords:
            value = keyword_.value
            if isinstance(value, ast.Tuple) and len(value.elts) == 2:
                value = value.elts[1]  # (cast, default)
            if keyword_.arg is not None:
                defaults[keyword_.arg] = value
        schemas[statement.targets[0].id] = defaults
    return schemas


def imported_env_schemas(
    module: PythonModule, modules: Sequence[PythonModule], built: Mapping[str, EnvSchemas]
) -> ImportedSchemas:
    """The schemas ``module`` imports from another settings module of its group
    (``from .environment import env``, or ``*``), by local name, with the defining path.
    ``built``: each module's own schemas (``env_schemas``), by path."""
    by_name = {posixpath.basename(m.path)[: -len(".py")]: m for m in modules if m is not module}
    found: ImportedSchemas = {}
    for node in module.tree.body:
        if not isinstance(node, ast.ImportFrom):
            continue
        source = by_name.get((node.module or "").rsplit(".", 1)[-1])
        if source is None:
            continue
        schemas = built.get(source.path, {})
        for alias in node.names:
            if alias.name == "*":
                found.update((name, (source.path, s)) for name, s in schemas.items())
            elif alias.name in schemas:
                found[alias.asname or alias.name] = (source.path, schemas[alias.name])
    return found


def apply_env_schema(module: PythonModule, imported: ImportedSchemas | None = None) -> None:
    """django-environ: ``env = environ.Env(DB_HOST=(str, "localhost"))`` and later
    ``env("DB_HOST")`` or ``env.str("DB_HOST")``: the schema's default becomes the call's
    ``default=`` (placed at the call, whose setting decides), and everything below judges
    it as written there. ``imported``: schemas built in another module of the group
    (``imported_env_schemas``), related where their default is written. Idempotent: a call
    that names its own default keeps it."""
    own = env_schemas(module)  # a schema built here shadows one imported by its name
    places = {name: path for name, (path, _) in (imported or {}).items()}
    schemas = {name: schema for name, (_, schema) in (imported or {}).items()}
    schemas.update(own)
    places.update(dict.fromkeys(own, module.path))
    if not schemas:
        return
    read: set[str] = set()
    for node in ast.walk(module.tree):
        if not isinstance(node, ast.Call):
            continue
        function = node.func
        method = function.attr if isinstance(function, ast.Attribute) else ""
        if isinstance(function, ast.Attribute):
            function = function.value  # env.str("X"), env.int("X")
        schema = function.id if isinstance(function, ast.Name) else ""
        defaults = schemas.get(schema, {})
        # env.db() reads DATABASE_URL, env.cache() CACHE_URL: the variable django-environ
        # names for them when the call names none.
        name = string_value(node.args[0]) if node.args else IMPLIED_VARIABLES.get(method)
        if name in defaults:
            read.add(name)
        if name in defaults and not any(k.arg == "default" for k in node.keywords):
            # At the call's place: the setting that reads it decides (and may replace it).
            # Every piece at the call (an f-string's too), so that the line that decides
            # is the call's, as for a plain string.
            default = copy.deepcopy(defaults[name])
            for piece in ast.walk(default):
                ast.copy_location(piece, node)
            node.keywords.append(ast.keyword(arg="default", value=default))
            module.declared_defaults[node.lineno] = (places[schema], defaults[name].lineno)
    # A default is judged at the calls that read it; one for a URL whose setting the
    # module assigns without reading it (``CACHE_URL=(str, "locmemcache://")`` beside a
    # literal ``CACHES``) is read by nothing.
    assigned = {
        t.id
        for s in module.tree.body
        if isinstance(s, ast.Assign)
        for t in s.targets
        if isinstance(t, ast.Name)
    }
    for defaults in schemas.values():
        for name, value in defaults.items():
            if name in read or URL_SETTINGS.get(name) in assigned:
                module.schema_defaults.add(id(value))


# The setting each URL variable configures.
URL_SETTINGS = {"CACHE_URL": "CACHES", "DATABASE_URL": "DATABASES"}
IMPLIED_VARIABLES = {
    "db": "DATABASE_URL",
    "db_url": "DATABASE_URL",
    "cache": "CACHE_URL",
    "cache_url": "CACHE_URL",
    "search_url": "SEARCH_URL",
}


def module_strings(module: PythonModule) -> dict[str, tuple[str, int]]:
    """Top-level names bound to a string, or to an environment lookup's string default,
    with the line that decides it: ``REDIS_HOST = os.getenv("REDIS_HOST", "localhost")``;
    in a top-level ``if`` on an option, the branch taken when nothing is set (``if
    os.getenv("DATABASE_URL"): … else: db = dj_database_url.config(default="sqlite://…")``)."""
    names: dict[str, tuple[str, int]] = {}
    for statement in _statements_run_by_default(module.tree.body):
        if not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
            continue
        target = statement.targets[0]
        if not isinstance(target, ast.Name):
            continue
        text, line = address_text(statement.value, names)
        if (
            (text and text != "x")
            or string_value(statement.value) == ""
            or empty_default(statement.value)
        ):
            # ``REDIS_HOST = os.environ.get("REDIS_HOST", "")``: an empty host, which
            # ``f"redis://{REDIS_HOST}:6379"`` turns into this host's.
            names[target.id] = (text, line)
    return names


def _statements_run_by_default(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """``body`` with each ``if`` on an option replaced by the branch that runs when the
    environment sets nothing; an ``if`` whose outcome is unknown is kept whole (its
    statements are not bindings at the top level)."""
    for statement in body:
        if isinstance(statement, ast.If):
            if off_by_default(statement.test):
                yield from _statements_run_by_default(statement.orelse)
                continue
            if on_by_default(statement.test):
                yield from _statements_run_by_default(statement.body)
                continue
        yield statement


def address_text(node: ast.AST, names: dict[str, tuple[str, int]]) -> tuple[str, int]:
    """The address ``node`` gives when the environment sets nothing, with the line that
    decides it (the default's own line when it comes from a name bound elsewhere):
    f-strings and ``+`` are joined with unknown pieces as ``x``."""
    line = getattr(node, "lineno", 1)
    text = string_value(node)
    if text is not None:
        return text, line
    if isinstance(node, ast.Name) and node.id in names:
        return names[node.id]
    if isinstance(node, ast.Call) and is_required_option(node):
        return "x", line  # start-up stops without it: production sets it
    default = env_default(node)
    if default is not None:
        return address_text(default, names)
    if isinstance(node, ast.FormattedValue):
        return address_text(node.value, names)
    if isinstance(node, ast.IfExp):
        # Either branch may be production's: this host only when both are.
        body, orelse = address_text(node.body, names), address_text(node.orelse, names)
        both = all(next(this_host_addresses(t), None) for t, _ in (body, orelse))
        return body if both else ("x", line)
    if isinstance(node, ast.Call) and node.args and last_part(dotted(node.func)) in URL_PARSERS:
        return address_text(node.args[0], names)
    formatted = _str_format(node, names)
    if formatted is not None:
        return formatted
    template = string_value(node.left) if isinstance(node, ast.BinOp) else None
    if template is not None and isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        # "sqlite:///%s/db.sqlite3" % BASE_DIR: each field filled from the right side.
        values = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
        fills = iter(address_text(value, names)[0] for value in values)
        return PERCENT_FIELD.sub(lambda _: next(fills, "x"), template), line
    parts: list[ast.AST] = []
    separator = ""
    if isinstance(node, ast.JoinedStr):
        parts = list(node.values)
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Div):
        parts, separator = [node.left, node.right], "/" if isinstance(node.op, ast.Div) else ""
    elif isinstance(node, ast.Call) and last_part(dotted(node.func)) in PATH_CALLS:
        parts, separator = list(node.args), "/"  # str(DATA_DIR / "db.sqlite3"), join(...)
    if not parts:
        return "x", line
    pieces = [address_text(part, names) for part in parts]
    joined = separator.join(piece for piece, _ in pieces)
    # The piece that brings this host decides; else the expression's own line.
    for piece, piece_line in pieces:
        if "://" in piece and piece.endswith(("://", ":", "@")):
            # A bare scheme, or one with the start of its credentials (``redis://:`` before
            # ``{PASSWORD}@{HOST}``), is no address (alone it would mean localhost).
            continue
        if next(this_host_addresses(piece), None) is not None:
            return joined, piece_line
    return joined, line


FORMAT_FIELD = lazy_compile(r"\{([^{}]*)\}")


def _str_format(node: ast.AST, names: dict[str, tuple[str, int]]) -> tuple[str, int] | None:
    """``"psql://u@{}:5432/db".format(host)``: the template with each field's address."""
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "format"
    ):
        return None
    template = string_value(node.func.value)
    if template is None:
        return None
    line = node.lineno
    position = 0
    pieces: list[str] = []
    decided = line
    end = 0
    for field in FORMAT_FIELD.finditer(template):
        pieces.append(template[end : field.start()])
        key = field.group(1).split(":", 1)[0].split("!", 1)[0]
        argument: ast.AST | None
        if not key:
            argument = node.args[position] if position < len(node.args) else None
            position += 1
        elif key.isdigit():
            argument = node.args[int(key)] if int(key) < len(node.args) else None
        else:
            argument = keyword(node, key)
        text, text_line = address_text(argument, names) if argument is not None else ("x", line)
        if next(this_host_addresses(text), None) is not None:
            decided = text_line
        pieces.append(text)
        end = field.end()
    pieces.append(template[end:])
    return "".join(pieces), decided
