"""Class-based settings (django-configurations): settings are the attributes of a
``Configuration`` subclass, and ``DJANGO_CONFIGURATION`` picks the class a process runs.

Production runs its production class (``Production``, ``Prod``, ``Live``) with the bases
this module defines; a development, test, build or demo class is not production's. A
module with no production class (the class is named only in the deployment's
environment) is read as its base configuration, the settings every class inherits. The
settings rules read a module's top level, so the module is given to them with those
classes' bodies in the classes' place (bases first, so the last assignment still wins)
and the other configuration classes left out. Line numbers are the source's own.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from horizontal.audit.patterns import lazy_compile
from horizontal.audit.source import PythonModule, dotted, last_part

__all__ = ["CONFIGURATION_BASES", "production_configuration"]

# django-configurations' ``Configuration``; django-environment-config's ``Environment``.
CONFIGURATION_BASES = frozenset({"Configuration", "Environment"})
PRODUCTION_CLASS = lazy_compile(r"^(production|prod|live)(configuration|config|settings)?$", re.I)
NOT_PRODUCTION_CLASS = lazy_compile(
    r"dev|local|test|ci$|debug|build|demo|docker|staging|sandbox", re.I
)
# A class body's settings: assignments, and the branches and try blocks holding them.
SETTING_STATEMENTS = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.If, ast.Try)


def _configuration_classes(tree: ast.Module) -> dict[str, ast.ClassDef]:
    """Top-level classes that subclass ``Configuration`` (or ``Environment``), directly or
    through each other."""
    found: dict[str, ast.ClassDef] = {}
    classes = [node for node in tree.body if isinstance(node, ast.ClassDef)]
    changed = True
    while changed:
        changed = False
        for node in classes:
            if node.name in found:
                continue
            bases = [last_part(dotted(base) or "") for base in node.bases]
            if any(b in CONFIGURATION_BASES or b in found for b in bases):
                found[node.name] = node
                changed = True
    return found


def _chain(name: str, classes: dict[str, ast.ClassDef]) -> list[str]:
    """``name`` and its bases among ``classes``, bases first (the order Python resolves
    an attribute in, reversed, for a single-inheritance chain)."""
    order: list[str] = []

    def visit(current: str) -> None:
        if current in order:
            return
        for base in classes[current].bases:
            base_name = last_part(dotted(base) or "")
            if base_name in classes:
                visit(base_name)
        order.append(current)

    visit(name)
    return order


def production_configuration(module: PythonModule) -> PythonModule:
    """``module`` as production runs it: its production configuration class's settings
    (with its bases') at the top level. A module with no such class is returned as is."""
    classes = _configuration_classes(module.tree)
    production = [name for name in classes if PRODUCTION_CLASS.match(name)]
    if not production:
        # No production class here (production picks its class by DJANGO_CONFIGURATION
        # elsewhere): what every configuration gets is the base they all derive from.
        production = [
            name
            for name, node in classes.items()
            if CONFIGURATION_BASES & {last_part(dotted(base) or "") for base in node.bases}
            and not NOT_PRODUCTION_CLASS.search(name)
        ][:1]
    if not production:
        return module
    chain = set(_chain(production[-1], classes))
    body: list[ast.stmt] = []
    for statement in module.tree.body:
        if isinstance(statement, ast.ClassDef) and statement.name in classes:
            if statement.name in chain:
                body.extend(_settings_of(statement))
            continue
        body.append(statement)
    tree = ast.Module(body=body, type_ignores=[])
    flattened = PythonModule.of_tree(module.path, module.text, tree, module.hot_lines)
    flattened.decided_at = classes[production[-1]].lineno
    return flattened


def _settings_of(cls: ast.ClassDef) -> Iterator[ast.stmt]:
    """A configuration class's settings: its assignments, and a setting computed by a
    ``@classproperty``/``@property`` (``def CACHES(cls): …``) as an assignment of a value
    the scan cannot know (set, so Django's default is not what production gets)."""
    for statement in cls.body:
        if isinstance(statement, SETTING_STATEMENTS):
            yield statement
        elif (
            isinstance(statement, ast.FunctionDef)
            and statement.name.isupper()
            and any(
                last_part(dotted(d) or "").endswith("property") for d in statement.decorator_list
            )
        ):
            computed = ast.Call(
                func=ast.Name(id=statement.name, ctx=ast.Load()), args=[], keywords=[]
            )
            assignment = ast.Assign(
                targets=[ast.Name(id=statement.name, ctx=ast.Store())], value=computed
            )
            yield ast.fix_missing_locations(ast.copy_location(assignment, statement))
