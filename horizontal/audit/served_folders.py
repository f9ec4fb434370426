"""Folders of data on the local disk, and code that serves them from it.

A data folder is a setting that names a directory of files the application makes
(``settings.EXPORT_DIR``), not one shipped in the image. A view or URL pattern that serves
``MEDIA_ROOT``, a data folder or an object's folder from this host's disk answers 404 for
a file another instance wrote.
"""

from __future__ import annotations

import ast
import os
import posixpath
import re
from collections.abc import Iterator, Mapping

from horizontal.audit.findings import Finding, fold_into_first
from horizontal.audit.patterns import lazy_compile
from horizontal.audit.source import (
    PythonModule,
    call_name,
    dotted,
    keyword,
    last_part,
    string_value,
)

__all__ = [
    "find_served_folders",
    "is_data_setting",
    "one_served_folder_per_module",
    "serves_a_shipped_folder",
]

# A setting that names a directory or file of data.
DATA_SETTING = lazy_compile(r"^[A-Z][A-Z0-9_]*_(ROOT|DIR|DIRS|DIRECTORY|FOLDER|PATH)$")
# Shipped with the code (the same in every image), scratch space, or handled elsewhere.
# (``DJANGO_PROJECT_DIR``, ``SRC_DIR``: the code's own folder, shipped in the image.)
NOT_DATA = lazy_compile(
    r"STATIC|TEMPLATE|LOCALE|FIXTURE|^BASE_|^PROJECT_|^APP_|^MEDIA_ROOT$|TEMP|TMP|SCRATCH"
    r"|PROJECT_(DIR|ROOT|PATH)$|^(SRC|SOURCE|CODE)_"
)


def is_data_setting(name: str) -> bool:
    return bool(DATA_SETTING.match(name)) and not NOT_DATA.search(name)


def find_served_folders(module: PythonModule) -> Iterator[Finding]:
    """``serve(…, document_root=settings.MEDIA_ROOT)``, a URL pattern's
    ``{"document_root": settings.MEDIA_ROOT}`` or WhiteNoise's ``add_files(
    settings.MEDIA_ROOT, prefix=…)``: uploads served from this host's disk.
    Django's ``static()`` helper is left alone: it returns nothing unless DEBUG."""
    yield from _served_by_libraries(module)
    if "document_root" not in module.text and ".add_files(" not in module.text:
        return
    for node in ast.walk(module.tree):
        value: ast.AST | None = None
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "add_files"
            and node.args
        ):
            value = node.args[0]  # WhiteNoise's ``application.add_files(root, prefix=…)``
        elif isinstance(node, ast.Dict):
            for key, item in zip(node.keys, node.values, strict=True):
                if string_value(key) == "document_root":
                    value = item
        elif isinstance(node, ast.Call) and "serve" in last_part(call_name(module, node)):
            value = keyword(node, "document_root")
        message = _serving_message(module, value)
        if message is not None:
            line = getattr(node, "lineno", 1)
            yield Finding(module.path, line, "file-write", message, module.line(line))


def one_served_folder_per_module(findings: list[Finding]) -> list[Finding]:
    """One folder served by several URL patterns of a module (``/media/`` and
    ``/media/protected/``) is one cause: one finding at the first pattern, the others
    related. Run on what is left once patterns only DEBUG serves are dropped."""
    groups: dict[tuple[str, str], list[Finding]] = {}
    for finding in findings:
        if finding.category == "file-write" and finding.message.startswith("serves "):
            groups.setdefault((finding.path, finding.message), []).append(finding)
    return fold_into_first(findings, (sorted(g, key=lambda f: f.line) for g in groups.values()))


def _serving_message(module: PythonModule, document_root: ast.AST | None) -> str | None:
    """What serving files from ``document_root`` breaks, or None for a safe root."""
    root = _served_root(module, document_root)
    if root == "MEDIA_ROOT":
        return (
            "serves MEDIA_ROOT from this host's disk: an upload received by another "
            "instance is a 404 here"
        )
    if root is not None:
        return (
            f"serves settings.{root} from this host's disk: files generated there on "
            "another instance are a 404 here"
        )
    folder = _served_folder(module, document_root)
    if folder is not None:
        return (
            f"serves files from {folder} on this host's disk: files written there on "
            "another instance are a 404 here"
        )
    return None


def _served_root(module: PythonModule, value: ast.AST | None) -> str | None:
    """The setting a ``document_root`` names: ``MEDIA_ROOT`` or a data folder
    (``settings.EXPORT_DIR``, joined or not); None for static files or anything else."""
    if value is None:
        return None
    for child in ast.walk(value):
        if isinstance(child, ast.Attribute) and module.is_settings(child.value):
            if child.attr == "MEDIA_ROOT":
                return child.attr
            if is_data_setting(child.attr):
                return child.attr
    return None


# ``snapshot.output_dir``, ``self.export_path``: an object's folder on the local disk.
FOLDER_ATTRIBUTE = lazy_compile(r"(^|_)(dir|path|root|folder|directory)$")


def _served_folder(module: PythonModule, value: ast.AST | None) -> str | None:
    """A ``document_root`` that is an object's folder (``snapshot.output_dir``), not the
    static files' (those are in every image)."""
    name = dotted(value) if isinstance(value, ast.Attribute) else None
    if name is None or "static" in name.lower() or name.startswith("settings."):
        return None
    if isinstance(value, ast.Attribute) and module.is_settings(value.value):
        return None
    return name if FOLDER_ATTRIBUTE.search(last_part(name)) else None


# Libraries that serve files from this host's disk: django-sendfile's ``sendfile(request,
# path)`` hands the web server a local path; django-private-storage's URLs serve
# ``PRIVATE_STORAGE_ROOT`` through its default ``PrivateFileSystemStorage``.
SENDFILE_MODULES = ("django_sendfile", "sendfile")
PRIVATE_STORAGE_URLS = "private_storage.urls"
SENDFILE_SERVED = (
    "serves a file by its path on this host's disk (django-sendfile): a file another "
    "instance wrote is a 404 here"
)
PRIVATE_STORAGE_SERVED = (
    "django-private-storage serves PRIVATE_STORAGE_ROOT from this host's disk: a file "
    "another instance received is a 404 here"
)


def _served_by_libraries(module: PythonModule) -> Iterator[Finding]:
    if "sendfile" not in module.text and PRIVATE_STORAGE_URLS not in module.text:
        return
    for node in ast.walk(module.tree):
        if not isinstance(node, ast.Call):
            continue
        name = call_name(module, node) or ""
        message = None
        if last_part(name) == "sendfile" and name.split(".", 1)[0] in SENDFILE_MODULES:
            message = SENDFILE_SERVED
        elif last_part(name) == "include" and node.args:
            target = node.args[0]
            included = string_value(target) or dotted(target) or ""
            if included == PRIVATE_STORAGE_URLS:
                message = PRIVATE_STORAGE_SERVED
        if message is not None:
            yield Finding(module.path, node.lineno, "file-write", message, module.line(node.lineno))


# ``settings.ROOT_PATH + "/heliosbooth"``, ``os.path.join(settings.BASE_DIR, "app/media")``:
# a folder named in the line, joined to the setting.
JOINED_FOLDER = lazy_compile(r"""(?:\+\s*|,\s*)["']/?((?:[\w.-]+/)*[\w.-]+)/?["']""")
# Files a folder for uploads is committed with to exist in a checkout.
PLACEHOLDERS = frozenset({".gitkeep", ".keep", ".gitignore", "README", "README.md", "README.txt"})


# A folder a build fills, in the code's tree (``os.path.join(BASE_DIR,
# "../../web/dist/libs/editor")``, ``BASE_DIR / "frontend/build"``): made when the image
# is built, the same files in every image. A relative path with a ``dist`` folder, or
# ending in ``build``; not an absolute one (``/srv/app/dist/reports``, data) nor one
# inside ``build/`` (``build/reports``, which the app may fill).
BUILD_OUTPUT = lazy_compile(
    r"""["'](?![/~])(?:[^"'\n]*/)?dist(?:/[^"'\n]*)?["']"""  # …/dist/…, dist
    r"""|["'](?![/~])[^"'\n]*/build/?["']"""  # frontend/build
    r"""|["']build/?["']\s*\)\s*$"""  # os.path.join(BASE_DIR, "frontend", "build")
)


def serves_a_shipped_folder(
    finding: Finding, line: str, base: str, texts: Mapping[str, list[str]] | None = None
) -> bool:
    """A served data folder whose subfolder, named in the line, is in the source tree
    with files in it (``/heliosbooth``: the booth's JavaScript), beside the serving module
    or above it, or whose setting names a build's output folder (``EDITOR_ROOT =
    os.path.join(BASE_DIR, "../web/dist/editor")``, in ``texts``): every image has the
    same files, as with static files."""
    if not finding.message.startswith("serves settings."):
        return False
    if texts is not None and _names_a_build_output(finding.message.split()[1][9:], texts):
        return True
    folders = JOINED_FOLDER.findall(line)
    if not folders:
        return False
    here = posixpath.dirname(finding.path)
    roots = [here]
    while here:
        here = posixpath.dirname(here)
        roots.append(here)
    return any(_has_files(os.path.join(base, root, folder)) for root in roots for folder in folders)


def _names_a_build_output(setting: str, texts: Mapping[str, list[str]]) -> bool:
    """Whether every top-level assignment of ``setting`` names a build's output folder
    (one that names another folder, in any settings module, may be production's)."""
    assignment = re.compile(rf"{re.escape(setting)}\s*=")
    assigned = [
        line
        for lines in texts.values()
        for line in lines
        if line.startswith(setting) and assignment.match(line)
    ]
    return bool(assigned) and all(BUILD_OUTPUT.search(line) for line in assigned)


def _has_files(folder: str) -> bool:
    # Stops at the first real file: a folder of uploads may hold many.
    return any(any(n not in PLACEHOLDERS for n in names) for _, _, names in os.walk(folder))
