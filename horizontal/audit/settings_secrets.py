"""The W109 rules for values generated at start-up: a ``SECRET_KEY``, a salt or a signing
or encryption key that each instance makes for itself (a random call, a helper that
makes one, a key file the settings write on first boot).

``random_value_line`` is the one test, shared with the deploy check W050
(``settings_imported``), so the audit and the check give the same verdict.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator

from horizontal.audit.findings import Finding, Location
from horizontal.audit.key_files import key_file_written_here, reads_random_device
from horizontal.audit.known import SECRET_KEY_FRESH_CALLS
from horizontal.audit.patterns import lazy_compile
from horizontal.audit.settings_rules import FIXES, _finding
from horizontal.audit.source import (
    FunctionNode,
    PythonModule,
    call_name,
    dotted,
    last_part,
    string_value,
)

__all__ = [
    "HelperModules",
    "find_config_secret_keys",
    "generated_secret_key",
    "generated_shared_secret",
    "is_shared_secret_setting",
    "random_value_line",
]


# The parsed source of a project module by its dotted name, or None (settings_modules.py
# reads the scanned tree; settings_imported.py the modules the settings imported).
HelperModules = Callable[[str], PythonModule | None]


def random_value_line(
    module: PythonModule,
    statement: ast.AST,
    calls: frozenset[str] = SECRET_KEY_FRESH_CALLS,
    depth: int = 0,
    helpers: HelperModules | None = None,
    through: list[Location] | None = None,
    *,
    follow_classes: bool = False,
) -> int | None:
    """The line of the first call in ``statement`` that makes a fresh random value,
    following calls to the module's own functions (``SECRET_KEY = _load_or_create()``)
    two levels deep; for such a call, the line of the call in ``statement``.

    ``helpers`` gives the parsed source of a module by its dotted name: then a call to a
    function the module imports (``secret_key.generate_or_read_from_file(path)``) is
    followed too, and ``through`` gets that function's location. ``follow_classes``:
    a class attribute read (``SECRET_KEY = Secrets.SECRET_KEY``) is followed into the
    class (for W050; the audit reports the class's field itself, ``find_config_secret_keys``).
    """
    factories = _factory_parameters(statement, calls)
    for node in ast.walk(statement):
        if not isinstance(node, ast.Call):
            continue
        name = call_name(module, node)
        if name is None and isinstance(node.func, ast.Attribute):
            name = node.func.attr  # random.SystemRandom().choice: the receiver is a call
        if last_part(name) in calls or reads_random_device(node):
            return node.lineno
        if isinstance(node.func, ast.Name) and node.func.id in factories:
            return node.lineno  # ``default_factory()`` whose default is a generator
        if depth >= 2:
            continue
        if isinstance(node.func, ast.Name):
            for function in module.functions.get(node.func.id, []):
                if module.scope(function).function is None and random_value_line(
                    module, function, calls, depth + 1, helpers, through
                ):
                    return node.lineno
        helper = _imported_function(module, name, helpers) if helpers and name else None
        if helper is not None and random_value_line(*helper, calls, depth + 1, helpers, through):
            if through is not None:
                through.append(Location(helper[0].path, helper[1].lineno))
            return node.lineno
    if depth == 0:
        line = _env_setdefault_line(module, statement, calls)
        if line is None and follow_classes:
            line = _class_attribute_line(module, statement, calls, helpers, through)
        if line is not None:
            return line
    if depth == 0 and helpers is not None:
        line = _imported_value_line(module, statement, calls, helpers, through)
        if line is not None:
            return line
    return key_file_written_here(module, statement, calls) if depth == 0 else None


def _factory_parameters(statement: ast.AST, calls: frozenset[str]) -> set[str]:
    """A function's parameters whose default is a generator itself, called in its body:
    ``def secret(name, default_factory=get_random_secret_key): … default_factory()``."""
    if not isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
        return set()
    arguments = statement.args
    positional = [*arguments.posonlyargs, *arguments.args]
    pairs = [
        *zip(
            positional[len(positional) - len(arguments.defaults) :],
            arguments.defaults,
            strict=True,
        ),
        *(
            (a, d)
            for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True)
            if d is not None
        ),
    ]
    return {arg.arg for arg, default in pairs if last_part(dotted(default) or "") in calls}


def _class_attribute_line(
    module: PythonModule,
    statement: ast.AST,
    calls: frozenset[str],
    helpers: HelperModules | None,
    through: list[Location] | None,
) -> int | None:
    """``SECRET_KEY = Secrets.SECRET_KEY`` where the module's class ``Secrets`` makes it
    (``SECRET_KEY = os.environ.get(…) or get_random_secret_key()`` in its body)."""
    value = getattr(statement, "value", None)
    if not (isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name)):
        return None
    for cls in module.tree.body:
        if not (isinstance(cls, ast.ClassDef) and cls.name == value.value.id):
            continue
        for node in cls.body:
            targets = node.targets if isinstance(node, ast.Assign) else []
            if any(isinstance(t, ast.Name) and t.id == value.attr for t in targets):
                line = random_value_line(module, node, calls, 1, helpers, through)
                if line is not None:
                    if through is not None:
                        through.append(Location(module.path, line))
                    return getattr(statement, "lineno", None)
    return None


def _env_setdefault_line(
    module: PythonModule, statement: ast.AST, calls: frozenset[str]
) -> int | None:
    """``SECRET_KEY = os.environ["DJANGO_SECRET_KEY"]`` after a module-level
    ``os.environ.setdefault("DJANGO_SECRET_KEY", get_random_secret_key())``: the
    generated default is what every instance that does not set it reads."""
    from horizontal.audit.env_lookups import environment_variable

    value = getattr(statement, "value", None)
    variable = environment_variable(value) if value is not None else None
    if variable is None:
        return None
    for node in module.tree.body:
        call = node.value if isinstance(node, ast.Expr) else None
        if (
            isinstance(call, ast.Call)
            and (dotted(call.func) or "").endswith("environ.setdefault")
            and len(call.args) == 2
            and string_value(call.args[0]) == variable
            and node.lineno < getattr(statement, "lineno", 0)
        ):
            line = random_value_line(module, call.args[1], calls, 1)
            if line is not None:
                return line
    return None


def _imported_value_line(
    module: PythonModule,
    statement: ast.AST,
    calls: frozenset[str],
    helpers: HelperModules,
    through: list[Location] | None,
) -> int | None:
    """``SECRET_KEY = config.SECRET_KEY`` where the project's ``config`` module makes it
    (``if not SECRET_KEY: SECRET_KEY = get_random_secret_key()``): the statement's line,
    with the line that makes it in ``through``."""
    value = getattr(statement, "value", None)
    if not isinstance(value, ast.Attribute) or not isinstance(value.value, ast.Name):
        return None
    owner = module.imports.get(value.value.id)
    if owner is None and value.value.id in module.relative_imports:
        owner = module.absolute_import(value.value.id)  # ``from . import config``
    source = helpers(owner) if owner else None
    if source is None:
        return None
    for node in ast.walk(source.tree):
        if not isinstance(node, ast.Assign) or source.scope(node).function is not None:
            continue
        if not any(isinstance(t, ast.Name) and t.id == value.attr for t in node.targets):
            continue
        line = random_value_line(source, node, calls, 1, helpers, through)
        if line is not None:
            if through is not None:
                through.append(Location(source.path, line))
            return getattr(statement, "lineno", None)
    return None


def _imported_function(
    module: PythonModule, name: str, helpers: HelperModules
) -> tuple[PythonModule, FunctionNode] | None:
    """The module-level function a qualified call name (``horizon.utils.secret_key.
    generate_or_read_from_file``) names in another module ``helpers`` can read."""
    owner, _, function_name = module.absolute_import(name).rpartition(".")
    if not owner:
        return None  # the module's own function: followed by name
    source = helpers(owner)
    if source is None:
        return None
    for function in source.functions.get(function_name, []):
        if source.scope(function).function is None and source.scope(function).cls is None:
            return source, function
    return None


def generated_secret_key(
    module: PythonModule, statement: ast.stmt, helpers: HelperModules | None = None
) -> Iterator[Finding]:
    """A ``SECRET_KEY`` made fresh at start-up, in the settings module or by a helper it
    calls (``helpers``); the helper's function is a related location."""
    return _generated_at_start_up(
        module,
        statement,
        helpers,
        "SECRET_KEY is generated at start-up: each instance signs sessions, CSRF and "
        "reset tokens with a different key",
        FIXES["SECRET_KEY"],
    )


def _generated_at_start_up(
    module: PythonModule,
    statement: ast.stmt,
    helpers: HelperModules | None,
    message: str,
    fix: str,
) -> Iterator[Finding]:
    through: list[Location] = []
    line = random_value_line(module, statement, helpers=helpers, through=through)
    if line is not None:
        related = (*through, *_where_the_fallback_is_decided(module, statement))
        yield _finding(module, line, message, fix)._replace(related=related)


def _where_the_fallback_is_decided(module: PythonModule, statement: ast.stmt) -> Iterator[Location]:
    """The top-level ``if`` a generated value sits in (``if "SECRET_KEY" not in
    locals():``), and the binding of a random source it draws from (``system_random =
    random.SystemRandom()``): the lines that make the fallback what production gets."""
    start = statement.lineno
    receivers = {
        node.func.value.id
        for node in ast.walk(statement)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
    }
    for branch in module.tree.body:
        if isinstance(branch, ast.If) and branch.lineno < start <= (branch.end_lineno or 0):
            yield Location(module.path, branch.lineno)
            for node in ast.walk(branch):
                if (
                    isinstance(node, ast.Assign)
                    and node.lineno < start
                    and any(isinstance(t, ast.Name) and t.id in receivers for t in node.targets)
                ):
                    yield Location(module.path, node.lineno)


# Settings other than SECRET_KEY that every instance must share to agree: salts, signing
# and encryption keys (``HASHID_FIELD_SALT``, ``JWT_SIGNING_KEY``, ``FIELD_ENCRYPTION_KEY``).
SHARED_SECRET_SETTING = lazy_compile(
    r"(^|_)(SALT|SECRET|SIGNING_KEY|ENCRYPTION_KEY|FERNET_KEYS?|HMAC_KEY)(_|$)"
)
# Names of a secret's place, not the secret: ``SECRET_FILE``, ``SALT_PATH``.
SECRET_PLACE = lazy_compile(r"_(FILE|PATH|DIR|NAME|URL|BACKEND|CLASS)$")


def is_shared_secret_setting(name: str) -> bool:
    return (
        name != "SECRET_KEY"
        and bool(SHARED_SECRET_SETTING.search(name))
        and not SECRET_PLACE.search(name)
    )


def generated_shared_secret(
    module: PythonModule, name: str, statement: ast.stmt, helpers: HelperModules | None = None
) -> Iterator[Finding]:
    """A salt or a signing or encryption key made fresh at start-up, as ``SECRET_KEY``:
    what one instance salts, signs or encrypts with it, no other instance matches."""
    return _generated_at_start_up(
        module,
        statement,
        helpers,
        f"{name} is generated at start-up: each instance makes its own, and what one "
        "salts, signs or encrypts with it the others do not match",
        f"Read {name} from the environment or a secret store, the same on every "
        "instance, and fail at start-up when it is missing.",
    )


def find_config_secret_keys(module: PythonModule) -> Iterator[Finding]:
    """A configuration class whose ``SECRET_KEY`` field defaults to a fresh random value
    (``SECRET_KEY: str = Field(default_factory=lambda: get_random_string(50))`` in a
    pydantic settings model, a dataclass field): each instance that does not set it makes
    its own. Top-level assignments in settings modules are judged with the settings."""
    for node in module.nodes(ast.AnnAssign, ast.Assign):
        assert isinstance(node, ast.AnnAssign | ast.Assign)
        scope = module.scope(node)
        if scope.cls is None or scope.function is not None or node.value is None:
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        if not any(isinstance(t, ast.Name) and t.id == "SECRET_KEY" for t in targets):
            continue
        line = random_value_line(module, node.value)
        if line is not None:
            yield _finding(
                module,
                line,
                f"SECRET_KEY of {scope.cls.name} defaults to a value generated at start-up: "
                "each instance that does not set it signs with its own key",
                FIXES["SECRET_KEY"],
            )
