"""Where a settings module reads its environment, and the default it falls back to.

``os.getenv("X", d)``, django-environ's ``env.str("X", d)``, decouple's ``config("X",
default=d)``, django-configurations' ``values.Value(d)``, a project's own ``get_secret("X",
d)``: the default is what production gets when nothing is set. Below both the settings
readers (``settings_values``) and the branch readers (``settings_branches``), which judge
what runs when nothing is set. Parsed source only.
"""

from __future__ import annotations

import ast
import re

from horizontal.audit.patterns import lazy_compile
from horizontal.audit.source import dotted, last_part, string_value

# Methods of an environment or configuration object whose second argument is a default.
ENV_READERS = frozenset(
    {"get", "str", "bool", "int", "float", "list", "tuple", "dict", "json", "url", "path"}
    # The URL readers: django-environ's env.db_url("DATABASE_URL", "sqlite://…") and
    # environs' env.dj_db_url(…) take their default second too.
    | {"db", "db_url", "cache", "cache_url", "search_url", "email_url"}
    | {"dj_db_url", "dj_cache_url", "dj_email_url"}
)


def env_default(node: ast.AST) -> ast.AST | None:
    """The default of ``os.getenv("X", d)``/``env("X", default=d)``/``config(...)``."""
    if not isinstance(node, ast.Call):
        return None
    for keyword_ in node.keywords:
        if keyword_.arg in {"default", "fallback"}:  # environ/decouple; configparser
            return keyword_.value
    # A positional default only where the second argument is one: os.getenv("X", d),
    # os.environ.get("X", d), getattr(settings, "X", d); configparser's get(section,
    # option) takes an option there.
    function = dotted(node.func) or ""
    positional = function.endswith(("getenv", "environ.get")) or function == "getattr"
    if positional and function == "getattr" and len(node.args) >= 3:
        return node.args[2]
    if positional and len(node.args) >= 2 and string_value(node.args[0]) is not None:
        return node.args[1]
    # django-environ's typed readers take the default second: env.bool("X", False),
    # env.str("X", "redis://localhost"); a config mapping's .get("DB_HOST", ""), where the
    # mapping is named like one (config, secrets, settings_yaml).
    receiver, _, method = function.rpartition(".")
    if (
        len(node.args) >= 2
        and ENV_NAME.match(string_value(node.args[0]) or "")
        and receiver
        and ENV_WRAPPER.search(last_part(receiver))
        and method in ENV_READERS
    ):
        return node.args[1]
    # django-configurations: values.Value("localhost", environ_name="DB_HOST") and its
    # kinds (DatabaseURLValue, SecretValue, a project's SecretFileValue) default to the
    # first argument.
    if (
        last_part(function).endswith("Value")
        and node.args
        and (
            function.startswith("values.")
            or any(k.arg in {"environ_name", "environ_prefix", "environ"} for k in node.keywords)
        )
    ):
        return node.args[0]
    # A project's own wrapper: get_secret("DB_HOST", ""), env_or("REDIS_URL", "redis://…").
    if (
        len(node.args) == 2
        and ENV_WRAPPER.search(last_part(function))
        and ENV_NAME.match(string_value(node.args[0]) or "")
    ):
        return node.args[1]
    return None


ENV_WRAPPER = lazy_compile(
    r"(^|_)(env|environ|secret|secrets|config|setting|var)(_|$)|^get_(str|string|int|bool|list)$",
    re.I,
)
ENV_NAME = lazy_compile(r"^[A-Z][A-Z0-9_]*$")


# TESTING, IS_TEST_RUN, RUNNING_TESTS: a flag that is true only under a test run.
TEST_RUN_FLAG = lazy_compile(r"^(IS_)?(RUNNING_)?(UNIT_)?(PY)?TEST(S|ING)?(_MODE|_RUN)?$")


# Commands an image build runs with the settings (``RUN manage.py collectstatic``): a
# branch for them runs in the build, never in a replica that serves.
BUILD_COMMANDS = frozenset({"collectstatic", "compilemessages", "compress"})


def is_test_or_build_run(test: ast.AST) -> bool:
    """``"test" in sys.argv``, ``"pytest" in sys.modules``, ``sys.argv[1] == "test"``,
    ``"collectstatic" in sys.argv``: true only under a test run or an image build step."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return False
    if isinstance(test.ops[0], ast.Eq):
        return (
            isinstance(test.left, ast.Subscript)
            and dotted(test.left.value) == "sys.argv"
            and _names_a_test_or_build(string_value(test.comparators[0]))
        )
    return (
        isinstance(test.ops[0], ast.In)
        and _names_a_test_or_build(string_value(test.left))
        and dotted(test.comparators[0]) in {"sys.argv", "sys.modules"}
    )


def _names_a_test_or_build(word: str | None) -> bool:
    return word is not None and ("test" in word or word in BUILD_COMMANDS)


def is_test_or_build_expression(value: ast.AST) -> bool:
    """``UNDER_TEST = (len(sys.argv) > 1 and sys.argv[1] == "test") or "pytest" in
    sys.modules``: a flag true only under a test run (or a build step), whatever it is
    named."""
    if isinstance(value, ast.BoolOp):
        parts = [is_test_or_build_expression(v) for v in value.values]
        return any(parts) if isinstance(value.op, ast.And) else all(parts)
    return is_test_or_build_run(value)


def is_required_option(call: ast.Call) -> bool:
    """``required=True``, or ``required=not TESTING`` (true outside a test run)."""
    for option in call.keywords:
        if option.arg not in {"required", "environ_required"}:  # environs; configurations
            continue
        value = option.value
        if isinstance(value, ast.Constant) and value.value is True:
            return True
        if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not):
            return isinstance(value.operand, ast.Name) and bool(
                TEST_RUN_FLAG.match(value.operand.id)
            )
    return False


def empty_default(node: ast.AST) -> bool:
    """The environment default is empty, through nested lookups too
    (``os.getenv("DB_HOST", config.get("database", "host", fallback=""))``)."""
    default = env_default(node)
    for _ in range(3):
        if isinstance(default, ast.Constant):
            return default.value == ""
        if default is None:
            return False
        default = env_default(default)
    return False


# Functions that read an option's text as a Python or JSON value, or as a yes/no.
TEXT_PARSERS = frozenset({"literal_eval", "strtobool", "loads"})

# What a boolean option's parser reads as false.
FALSE_WORDS = frozenset({"", "false", "f", "0", "no", "n", "off", "none"})
TRUE_WORDS = frozenset({"true", "t", "1", "yes", "y", "on"})


def parsed_as_bool(call: ast.Call) -> bool:
    """``env.bool("X", …)``, ``config("X", default="false", parser=bool)``, ``cast=bool``."""
    function = last_part(dotted(call.func))
    return function.endswith("bool") or any(
        keyword.arg in {"parser", "cast", "type"} and last_part(dotted(keyword.value)) == "bool"
        for keyword in call.keywords
    )


def reads_as_true(default: ast.AST | None) -> bool:
    """Whether an option's default is what a boolean parser reads as true."""
    if isinstance(default, ast.Constant) and default.value is True:
        return True
    return isinstance(default, ast.Constant) and str(default.value).strip().lower() in TRUE_WORDS


def reads_as_false(default: ast.AST | None) -> bool:
    """Whether an option's default text is what a boolean parser reads as false."""
    return isinstance(default, ast.Constant) and str(default.value).strip().lower() in FALSE_WORDS


# The last part of a call that reads the environment: os.getenv, os.environ.get, env(),
# env.str(), config() (python-decouple).
ENVIRONMENT_CALLS = ("getenv", "environ.get", "env", "config")


def environment_variable(node: ast.AST) -> str | None:
    """The variable an environment lookup reads: ``os.environ["HOSTNAME"]``,
    ``os.getenv("HOSTNAME", "")``, ``env.str("POD_NAME")``; None for anything else."""
    if isinstance(node, ast.Subscript) and dotted(node.value) == "os.environ":
        return string_value(node.slice)
    if isinstance(node, ast.Call) and node.args:
        function = dotted(node.func) or ""
        # ``env.str("POD_NAME")``, ``ENV.str(…)``: django-environ's reader by any name case.
        lowered = function.lower()
        if lowered == "env" or lowered.startswith("env.") or function.endswith(ENVIRONMENT_CALLS):
            return string_value(node.args[0])
    return None
