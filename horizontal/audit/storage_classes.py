"""The project's own ``FileSystemStorage`` subclasses, judged once every file is read.

``class ProblemDataStorage(FileSystemStorage)`` keeps what it stores on this host's disk,
but a class nobody builds keeps nothing: its finding is kept only when code builds one
(``data = ProblemDataStorage()``, found by ``STORAGE_BUILT`` as each module is read, or
``fs = MediaAndDataregistryFS()``, found by ``storage_builds`` at the end). Their dotted
paths let a settings module's choice of one be judged too (``storage_subclasses``).
"""

from __future__ import annotations

import ast
import posixpath
import re
from collections.abc import Iterable, Iterator
from collections.abc import Set as AbstractSet

from horizontal.audit.findings import Finding, Location
from horizontal.audit.patterns import lazy_compile
from horizontal.audit.source import PythonModule, class_paths, dotted, last_part

__all__ = [
    "STORAGE_BUILT",
    "is_file_system_storage",
    "storage_builds",
    "storage_class_findings",
    "storage_subclasses",
    "writes_in_their_class",
]


def is_file_system_storage(
    node: ast.ClassDef, local: AbstractSet[str] = frozenset({"FileSystemStorage"})
) -> bool:
    """Whether the class extends ``FileSystemStorage``, or one of ``local``: the module's
    own subclasses of it defined above (``class ProfileImgStorage(OverwriteStorage)``)."""
    return any(
        (getattr(base, "attr", None) or getattr(base, "id", None)) in local for base in node.bases
    )


def _file_system_storages(body: Iterable[ast.stmt]) -> Iterator[ast.ClassDef]:
    """The module's classes that extend ``FileSystemStorage``, directly or through one of
    its own classes defined above, but for one that stores elsewhere (``S3FileStorage``
    whose ``_save`` returns ``self._save_to_s3(…)``)."""
    local = {"FileSystemStorage"}
    for node in body:
        if (
            isinstance(node, ast.ClassDef)
            and is_file_system_storage(node, local)
            and not _saves_elsewhere(node)
        ):
            local.add(node.name)
            yield node


# A class named for the store it writes to (``S3FileStorage``), whatever it extends.
REMOTE_NAME = lazy_compile(r"S3|Aws|AWS|Azure|GCS|Gcs|Google|Cloud|Swift|Minio|Remote")


def _saves_elsewhere(storage: ast.ClassDef) -> bool:
    """A ``FileSystemStorage`` subclass named for a remote store whose ``_save`` writes
    there, never calling ``super()._save`` (one that moves the file into place on this
    disk, as pulpcore's does, is still local)."""
    if not REMOTE_NAME.search(storage.name):
        return False
    for method in storage.body:
        if isinstance(method, ast.FunctionDef) and method.name == "_save":
            return not any(
                isinstance(node, ast.Attribute)
                and node.attr == "_save"
                and isinstance(node.value, ast.Call)
                and dotted(node.value.func) == "super"
                for node in ast.walk(method)
            )
    return False


def storage_subclasses(module: PythonModule, name: str) -> Iterator[str]:
    """``app.storage.MediaStorage`` for each class here that subclasses FileSystemStorage
    (the dotted path settings name it by, from the file's path in the tree), also when
    defined in a module-level branch (``if LOCAL_STORAGE: class Wrapper(…)``) and by its
    package's path (``app.MediaStorage``: a package re-exports its modules' names); and
    each module-level factory of one (``ImageStorage = lambda: OverwritingStorage(…)``)."""
    package = posixpath.join(posixpath.dirname(name), "__init__.py")
    local: set[str] = {"FileSystemStorage"}
    for storage in _file_system_storages(_module_level(module.tree.body)):
        local.add(storage.name)
        yield from class_paths(name, storage.name)
        yield from class_paths(package, storage.name)
    for node in _module_level(module.tree.body):
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Lambda)
            and isinstance(node.value.body, ast.Call)
            and last_part(dotted(node.value.body.func)) in local
        ):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    yield from class_paths(name, target.id)


def _module_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements a module runs at import, branches included (not function bodies)."""
    for statement in body:
        yield statement
        if isinstance(statement, ast.If | ast.Try):
            for part in (
                statement.body,
                statement.orelse,
                *(h.body for h in getattr(statement, "handlers", [])),
                getattr(statement, "finalbody", []),
            ):
                yield from _module_level(part)


# ``DataStorage()`` built in code, not ``class DataStorage(FileSystemStorage)`` defined.
STORAGE_BUILT = lazy_compile(r"(?<!class )\b(\w*Storage)\(")


def storage_builds(storage: str, texts: Iterable[tuple[str, str]]) -> list[Location]:
    """``fs = MediaAndDataregistryFS()``: where a storage class named otherwise than
    ``…Storage`` (which ``STORAGE_BUILT`` finds as each module is read) is built, in
    ``texts`` ((path, text) of the modules requests run)."""
    if storage.endswith("Storage"):
        return []
    built = re.compile(rf"(?<!class )\b{re.escape(storage)}\(")
    return [
        Location(path, text.count("\n", 0, match.start()) + 1)
        for path, text in texts
        for match in built.finditer(text)
    ]


# Static files are in every image: a storage for them is the same on every host.
STATIC_STORAGE = lazy_compile(r"static|manifest|pipeline", re.I)


def storage_class_findings(module: PythonModule) -> Iterator[tuple[str, Finding]]:
    """``class ProblemDataStorage(FileSystemStorage)`` defined in project code: where the
    uploads it holds are decided, reported once code builds one (``Scan.finish``)."""
    for node in _file_system_storages(module.tree.body):
        if (
            not STATIC_STORAGE.search(node.name)
            # PipelineMixin, ManifestFilesMixin: a storage for the static files it builds.
            and not any(STATIC_STORAGE.search(dotted(b) or "") for b in node.bases)
        ):
            yield (
                node.name,
                Finding(
                    module.path,
                    node.lineno,
                    "file-write",
                    f"{node.name} is a FileSystemStorage: the files it keeps are on this host's "
                    "disk, and other instances serve 404 for them",
                    module.line(node.lineno),
                    fix_text=f"Base {node.name} on the shared storage (storages' S3Storage, or "
                    'storages["default"]) instead of FileSystemStorage.',
                ),
            )


# How a storage class's finding starts, after its name (``storage_class_findings``).
CLASS_FINDING = " is a FileSystemStorage: the files it keeps"


def writes_in_their_class(
    findings: list[Finding], python_texts: Iterable[tuple[str, str]]
) -> list[Finding]:
    """File writes inside a reported storage class's own methods (``os.rename(self.path(a),
    self.path(b))`` in its ``rename()``) are how it keeps its files: one cause with the
    class, related to its finding."""
    classes = [f for f in findings if f.category == "file-write" and CLASS_FINDING in f.message]
    if not classes:
        return findings
    texts = dict(python_texts)
    spans: dict[int, tuple[str, int, int]] = {}
    for finding in classes:
        try:
            tree = ast.parse(texts.get(finding.path, ""))
        except (SyntaxError, ValueError):
            continue
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and node.lineno == finding.line:
                spans[id(finding)] = (finding.path, node.lineno, node.end_lineno or node.lineno)
    inside: dict[int, list[Location]] = {}
    absorbed: set[int] = set()
    for finding in findings:
        if finding.category != "file-write" or id(finding) in spans:
            continue
        places = [Location(finding.path, finding.line, finding.source), *finding.related]
        for owner, (path, first, last) in spans.items():
            # Every place of the finding in the class: a module's writes reported as one
            # finding may be partly outside it, and then stay the module's.
            if all(p.path == path and first < p.line <= last for p in places):
                inside.setdefault(owner, []).extend(places)
                absorbed.add(id(finding))
                break
    return [
        f._replace(related=(*f.related, *inside[id(f)])) if id(f) in inside else f
        for f in findings
        if id(f) not in absorbed
    ]
