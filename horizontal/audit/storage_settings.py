"""Local storages that settings name: which alias or setting a storage string chooses
(uploads' ``STORAGES['default']``, or ``STORAGES['backups']``, ``DBBACKUP_STORAGE``), and
one finding for one settings module's local storages. ``settings_rules`` names the
finding; ``settings_modules`` folds a module's findings.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from horizontal.audit.findings import Finding, Location
from horizontal.audit.source import PythonModule, string_value
from horizontal.audit.suppress import is_suppressed

__all__ = ["OTHER_STORAGE_WHY", "one_local_storage", "other_storage", "storage_key_paths"]

OTHER_STORAGE_WHY = (
    "files saved through it go to this host's disk: other instances cannot read them"
)


def other_storage(
    node: ast.AST, paths: dict[int, tuple[str, ...]], uploads_names: set[str]
) -> str | None:
    """The name of a local storage chosen for another alias than uploads'
    (``STORAGES['backups']``) or by another storage setting (``DBBACKUP_STORAGE``,
    ``PRIVATE_FILE_STORAGE``); None for the uploads' storage (``STORAGES['default']``,
    ``DEFAULT_FILE_STORAGE``, also inside a setting that wraps it, or a name either is
    built from: ``FILE_STORAGE = env(…)`` … ``"BACKEND": FILE_STORAGE``) and for a string
    in no storage setting."""
    path = paths.get(id(node))
    if not path or _for_uploads(path):
        return None
    alias = _storages_alias(path)
    if alias:
        return f"STORAGES[{alias!r}]"
    if path[0].endswith("_STORAGE") and path[0] not in uploads_names:
        return path[0]
    return None


def storage_key_paths(module: PythonModule) -> tuple[dict[int, tuple[str, ...]], set[str]]:
    """For each node of a top-level assignment (``X = …``, ``STORAGES["backups"] = …``),
    the key path it sits under (``STORAGES``, ``backups``, ``BACKEND``): a string's own,
    not its line's (a one-line ``STORAGES`` holds several aliases); and the names the
    uploads' storage is built from."""
    paths: dict[int, tuple[str, ...]] = {}

    def walk(node: ast.AST, path: tuple[str, ...]) -> None:
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                name = string_value(key) if key is not None else None
                walk(value, (*path, name) if name is not None else path)
            return
        for child in ast.walk(node):
            paths.setdefault(id(child), path)

    for statement in module.tree.body:
        value = getattr(statement, "value", None)
        targets = getattr(statement, "targets", None) or [getattr(statement, "target", None)]
        if value is None or not isinstance(statement, ast.Assign | ast.AnnAssign):
            continue
        for target in targets:
            if isinstance(target, ast.Name):
                walk(value, (target.id,))
            elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                key = string_value(target.slice)
                walk(value, (target.value.id, key) if key is not None else (target.value.id,))
    uploads_names = {
        child.id
        for statement in module.tree.body
        for child in ast.walk(statement)
        if isinstance(child, ast.Name) and _for_uploads(paths.get(id(child)))
    }
    return paths, uploads_names


def _for_uploads(path: tuple[str, ...] | None) -> bool:
    """Under ``DEFAULT_FILE_STORAGE``, or ``STORAGES`` with no alias or ``"default"``."""
    if not path:
        return False
    return "DEFAULT_FILE_STORAGE" in path or _storages_alias(path) in ("", "default")


def _storages_alias(path: tuple[str, ...]) -> str | None:
    """The alias a key path under ``STORAGES`` names (``""`` for none); None elsewhere."""
    if "STORAGES" not in path:
        return None
    return "".join(path[path.index("STORAGES") + 1 :][:1])


def one_local_storage(found: list[Finding], modules: Iterable[PythonModule]) -> list[Finding]:
    """A module's local storages of other aliases or settings (``STORAGES['backups']``,
    ``DBBACKUP_STORAGE``) are one cause with its local upload storage, or with each other
    where uploads' is not local: one finding, the others' lines related. A suppressed
    finding keeps none of them (they would vanish with it) and is kept none of."""
    lines = {module.path: module.lines for module in modules}
    kept = [f for f in found if not is_suppressed(f, lines.get(f.path, []))]
    merged: dict[int, Finding] = {}
    dropped: set[int] = set()
    for path in dict.fromkeys(f.path for f in kept if OTHER_STORAGE_WHY in f.message):
        others = sorted(
            (f for f in kept if f.path == path and OTHER_STORAGE_WHY in f.message),
            key=lambda f: f.line,
        )
        keeper = next(
            (f for f in kept if f.path == path and f.message.startswith("STORAGES['default']:")),
            others[0],
        )
        rest = [f for f in others if f is not keeper]
        if rest:
            current = merged.get(id(keeper), keeper)
            merged[id(keeper)] = current._replace(
                related=(*current.related, *(Location(f.path, f.line) for f in rest))
            )
            dropped.update(id(f) for f in rest)
    return [merged.get(id(f), f) for f in found if id(f) not in dropped]
