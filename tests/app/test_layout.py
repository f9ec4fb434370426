"""The import graph of ``horizontal/``: no cycle, and the lower rooms import nothing above them.

Read from the source (``ast``), so it covers imports inside functions too: a lazy import
still makes the two modules depend on each other. Imports under ``if TYPE_CHECKING:``
are left out; they never run. Importing a module of another package also runs that
package's ``__init__``, so the edge goes to both.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "horizontal"

# The rooms at the bottom of the house, and the only other rooms each may import.
LOWER_ROOMS: dict[str, frozenset[str]] = {
    "horizontal.conf": frozenset(),
    "horizontal.exceptions": frozenset(),
    "horizontal.audit": frozenset(),
    "horizontal.db": frozenset({"horizontal.conf", "horizontal.exceptions"}),
    # The key columns ask db/ for their vendor's byte-exact collation.
    "horizontal.models": frozenset({"horizontal.db"}),
}
# Rooms that only the app's entry points may import: checks register themselves in
# ``apps.ready()``; nothing imports a management command.
TOP_ROOMS = {
    "horizontal.checks": frozenset({"horizontal.apps"}),
    "horizontal.management": frozenset(),
}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                yield from _import_nodes(ast.Module(body=[child], type_ignores=[]))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        else:
            yield from _import_nodes(node)


def imports_of(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The ``horizontal`` modules that ``name`` imports, each as specific as it can be."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in _import_nodes(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            base = node.module or ""
            if node.level:
                anchor = name.split(".")
                anchor = anchor if is_package else anchor[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            # ``from pkg import sub`` imports the submodule when there is one.
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                for alias in node.names
            ]
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target.startswith("horizontal") and target != name:
                found.add(target)
                found.update(_packages_entered(name, target))
    return found


def _packages_entered(name: str, target: str) -> Iterator[str]:
    """The packages whose ``__init__`` importing ``target`` runs, outside ``name``'s own.

    Importing ``horizontal.checks.jobs`` first runs ``horizontal/checks/__init__.py``:
    an edge to that room's face. Within one's own package the face is already loading.
    """
    parts = target.split(".")
    for end in range(2, len(parts)):
        package = ".".join(parts[:end])
        if not (name == package or name.startswith(package + ".")):
            yield package


def import_graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports_of(name, path, known) for name, path in known.items()}


def _room(name: str, rooms: dict[str, frozenset[str]]) -> str | None:
    return next((room for room in rooms if name == room or name.startswith(room + ".")), None)


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_reader_sees_lazy_imports_and_skips_type_checking_ones(tmp_path: Path) -> None:
    source = tmp_path / "horizontal_probe.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from horizontal.jobs.run import Run\n"
        "def f():\n    from horizontal.db import dialect_for\n"
        "from . import conf\n"
    )
    known = {"horizontal.db": source, "horizontal.conf": source, "horizontal.jobs.run": source}
    assert imports_of("horizontal.leases", source, known) == {"horizontal.db", "horizontal.conf"}


def test_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]


def test_no_import_cycle_in_horizontal() -> None:
    assert cycles(import_graph()) == []


def test_lower_rooms_import_nothing_above_them() -> None:
    wrong = []
    for name, targets in import_graph().items():
        room = _room(name, LOWER_ROOMS)
        if room is None:
            continue
        for target in targets:
            target_room = _room(target, LOWER_ROOMS) or target
            if target_room != room and target_room not in LOWER_ROOMS[room]:
                wrong.append(f"{name} imports {target}")
    assert wrong == []


def test_features_never_import_checks_or_commands() -> None:
    wrong = []
    for name, targets in import_graph().items():
        for target in targets:
            room = _room(target, TOP_ROOMS)
            if room is None or name.startswith(room) or name in TOP_ROOMS[room]:
                continue
            wrong.append(f"{name} imports {target}")
    assert wrong == []
