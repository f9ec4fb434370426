"""docs/checks.md is the catalogue: its index lists every documented id, and every id a
check module can emit has a row there, and the other way round.

The ids are found in the source, not listed here: those every module of
``horizontal/checks`` (found with pkgutil) spells, and for a module that spells none,
those of the ``horizontal`` modules outside the checks it imports, followed to any
depth (``code.py`` reports the audit's categories; a check may report errors its feature
module builds). An id
counts when the source spells it whole, as a string constant (``id="horizontal.W001"``).
"""

from __future__ import annotations

import ast
import pkgutil
import re
from functools import cache
from pathlib import Path

import pytest

import horizontal.checks

ROOT = Path(__file__).resolve().parents[2]
DOCS = (ROOT / "docs" / "checks.md").read_text()
ROW_ID = re.compile(r"^\| `(horizontal\.[EWIC]\d{3})` \|", re.MULTILINE)
MENTIONED_ID = re.compile(r"`(horizontal\.[EWIC]\d{3})`")
CHECK_ID = re.compile(r"horizontal\.[EWIC]\d{3}")
# The start of an f-string that builds an id from parts: f"horizontal.{number}".
BUILT_ID = re.compile(r"horizontal\.([EWIC]\d{0,2})?")
CHECK_MODULES = sorted(
    f"horizontal.checks.{info.name}"
    for info in pkgutil.iter_modules(horizontal.checks.__path__)
    if not info.name.startswith("_")
)


def index_ids() -> list[str]:
    index = DOCS.split("Every id, one line each", 1)[1].split("\n\n", 2)[1]
    return ROW_ID.findall(index)


def section_ids() -> set[str]:
    """Ids the sections document: table rows, and ids named in their prose."""
    sections = DOCS.split("## Configuration errors", 1)[1]
    # Headings name id ranges ("W100-W199"), not ids.
    body = "\n".join(line for line in sections.splitlines() if not line.startswith("#"))
    return set(MENTIONED_ID.findall(body))


def source_file(module: str) -> Path | None:
    base = ROOT.joinpath(*module.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


@cache
def tree(module: str) -> ast.Module:
    path = source_file(module)
    assert path is not None, module
    return ast.parse(path.read_text(), filename=str(path))


def imported_modules(module: str) -> set[str]:
    """``horizontal`` modules ``module`` imports anywhere (in functions and
    ``TYPE_CHECKING`` blocks too), including submodules named by ``from X import Y``."""
    package = module if source_file(module).name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree(module)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{parent}.{base}" if base else parent
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return {name for name in found if name.startswith("horizontal") and source_file(name)}


def is_check_module(name: str) -> bool:
    return name == "horizontal.checks" or name.startswith("horizontal.checks.")


def reachable(module: str) -> set[str]:
    """``module`` and the modules outside ``horizontal.checks`` it imports, to any depth
    (another check module's ids are that module's own)."""
    seen = {module}
    pending = [module]
    while pending:
        for name in imported_modules(pending.pop()) - seen:
            if not is_check_module(name):
                seen.add(name)
                pending.append(name)
    return seen


def spelt_ids(module: str) -> set[str]:
    return {
        node.value
        for node in ast.walk(tree(module))
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and CHECK_ID.fullmatch(node.value)
    }


def emitted_ids(module: str) -> set[str]:
    """The ids ``module`` spells; a module that spells none reports ids built by the
    modules it imports (``code.py``: the audit's categories)."""
    return spelt_ids(module) or set().union(*(spelt_ids(name) for name in reachable(module)))


def all_emitted_ids() -> set[str]:
    return set().union(*(emitted_ids(module) for module in CHECK_MODULES))


def test_index_lists_each_documented_id_once_in_order() -> None:
    ids = index_ids()
    assert len(ids) == len(set(ids))
    assert ids == sorted(ids, key=lambda i: (i[11] != "E", int(i[-3:])))
    assert set(ids) == section_ids()


@pytest.mark.parametrize("module", CHECK_MODULES)
def test_every_id_a_check_module_emits_is_documented(module: str) -> None:
    emitted = emitted_ids(module)
    assert emitted, f"{module} emits no id this test can see"
    assert emitted <= set(index_ids()), sorted(emitted - set(index_ids()))
    assert emitted <= section_ids(), sorted(emitted - section_ids())


def test_every_documented_id_exists_in_code() -> None:
    documented = set(index_ids())
    assert documented <= all_emitted_ids(), sorted(documented - all_emitted_ids())


@pytest.mark.parametrize("module", CHECK_MODULES)
def test_ids_are_spelt_whole(module: str) -> None:
    """An id built from parts (``f"horizontal.{number}"``) would hide it from this test."""
    built = [
        ast.unparse(node)
        for node in ast.walk(tree(module))
        if isinstance(node, ast.JoinedStr)
        and isinstance(node.values[0], ast.Constant)
        and BUILT_ID.fullmatch(str(node.values[0].value))
    ]
    assert built == []


# -- hints and the catalogue a pip user has --------------------------------------------------

REPOSITORY_PATH = re.compile(r"docs/|\.md\b|#[a-z0-9-]+horizontalw")


def module_constants(module: str) -> dict[str, ast.expr]:
    """Module-level ``NAME = <expr>`` assignments, for hints built from a constant."""
    found: dict[str, ast.expr] = {}
    for node in tree(module).body:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    found[target.id] = node.value
    return found


def hint_texts(module: str) -> list[str]:
    """The literal text of every ``hint=`` a module passes, constants it names included."""
    constants = module_constants(module)
    texts = []
    for node in ast.walk(tree(module)):
        if not isinstance(node, ast.Call):
            continue
        for keyword in node.keywords:
            if keyword.arg != "hint":
                continue
            parts = [keyword.value]
            parts += [
                constants[name.id]
                for name in ast.walk(keyword.value)
                if isinstance(name, ast.Name) and name.id in constants
            ]
            texts += [
                leaf.value
                for part in parts
                for leaf in ast.walk(part)
                if isinstance(leaf, ast.Constant) and isinstance(leaf.value, str)
            ]
    return texts


@pytest.mark.parametrize("module", CHECK_MODULES)
def test_hardening_16_hints_point_at_no_file_a_pip_user_lacks(module: str) -> None:
    """A hint says what to do itself: a pip install has no docs/ (and a project's own
    docs/ is another page altogether); ``manage.py horizontal_explain ID`` has the rest.
    Hints a check reports from its feature module (``jobs.py``: the job validation's)
    count too."""
    texts = [text for name in sorted(reachable(module)) for text in hint_texts(name)]
    assert texts or module == "horizontal.checks.code", f"{module}: no hint found"
    assert [text for text in texts if REPOSITORY_PATH.search(text)] == []


def test_hardening_16_the_shipped_catalogue_is_this_page() -> None:
    from horizontal.catalogue import entries, parse

    assert entries() == parse(DOCS), (
        "horizontal/catalogue.json is not docs/checks.md: regenerate it with "
        "`python -m horizontal.catalogue`"
    )
    assert sorted(entries()) == sorted(index_ids())


def test_hardening_17_the_w032_hint_covers_urls_and_the_environment() -> None:
    from horizontal.checks.databases import W032

    hint = W032("default").hint
    assert "OPTIONS['connect_timeout']" in hint
    assert "?connect_timeout=5" in hint  # dj-database-url puts it in OPTIONS
    assert "PGCONNECT_TIMEOUT" in hint
    assert "read_default_file" in hint  # MySQL's only other way


def environment_reads(source: str) -> set[str]:
    """Names ``source`` reads from ``os.environ`` (``environ[...]``, ``.get``, ``in``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Subscript) and ast.unparse(node.value).endswith("environ"):
            target = node.slice
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and ast.unparse(node.func.value).endswith("environ")
            and node.args
        ):
            target = node.args[0]
        else:
            continue
        if isinstance(target, ast.Constant) and isinstance(target.value, str):
            found.add(target.value)
    return found


def test_hardening_17_every_horizontal_variable_the_ci_examples_set_is_read() -> None:
    section = DOCS.split("## Running it in CI", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```(\w+)\n(.*?)```", section, re.DOTALL)
    set_in_ci = {
        name
        for language, block in blocks
        if language == "yaml"
        for name in re.findall(r"^\s+(HORIZONTAL_\w+):", block, re.MULTILINE)
    }
    assert set_in_ci, "the CI examples set no HORIZONTAL_* variable any more"
    read_by_horizontal = set().union(
        *(environment_reads(path.read_text()) for path in (ROOT / "horizontal").rglob("*.py"))
    )
    read_by_the_example = set().union(
        *(environment_reads(block) for language, block in blocks if language == "python")
    )
    unread = set_in_ci - read_by_horizontal - read_by_the_example
    assert unread == set(), f"set in CI, read by nothing: {sorted(unread)}"
