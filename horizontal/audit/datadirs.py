"""Data folders: a directory named by a setting (``settings.DOCS_BUILD_ROOT``,
``settings.DATA_DIR``) that one piece of code writes into and request code reads from.

The writer is often a management command or a task (run on one host), the reader a view
or helper on every instance: only the host that built the files can serve them. One
module cannot see both halves, so each module reports what it writes and reads, and the
run pairs them (``Scan.finish``). ``MEDIA_ROOT`` has its own rules in ``files.py``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import NamedTuple

from horizontal.audit.file_calls import written_path
from horizontal.audit.findings import Finding, Location
from horizontal.audit.served_folders import is_data_setting
from horizontal.audit.source import FunctionNode, PythonModule, call_name, dotted, last_part

# Calls that create files or directories under a path they are given.
MAKERS = frozenset(
    {
        "mkdir",
        "makedirs",
        "copytree",
        "copy",
        "copy2",
        "copyfile",
        "move",
        "extractall",
        "run",
        "check_call",
        "check_output",
        "Popen",
        "save",
        "write",
        "dump",
    }
)


class Use(NamedTuple):
    setting: str
    path: str
    line: int
    source: str


def data_folder_uses(module: PythonModule) -> tuple[list[Use], list[Use]]:
    """(writes, reads) of data folders in this module's functions.

    A command or script writes into ``X`` when one of its functions creates files or
    directories (``mkdir``, a write, a copy, a subprocess, an archive extracted) at a
    path built from ``settings.X``; other code, when it does so in a way ``files.py``
    does not report itself (``mkdir``, an image's ``save()``, a subprocess). A reported
    write is the finding already; a command's are not reported, nor a library's save. Request code
    reads ``X`` when a function of a module that is not a command or script names
    ``settings.X`` and creates nothing there: its path building line is the read.
    """
    writes: list[Use] = []
    reads: list[Use] = []
    if "settings." not in module.text:
        return writes, reads
    # ``directory_media = settings.SHAPEFILE_DIR`` at the top: the functions use the name.
    aliases = _module_aliases(module)
    for function in module.nodes(ast.FunctionDef, ast.AsyncFunctionDef):
        assert isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
        scope = module.scope(function)
        if scope.function is not None:
            continue  # nested functions are walked with their parent
        if scope.cls is not None and _static_files_finder(scope.cls):
            continue  # runs in collectstatic: a build step, once per image
        first = min((d.lineno for d in function.decorator_list), default=function.lineno)
        body = module.lines[first - 1 : function.end_lineno]
        if not any("settings." in line or any(a in line for a in aliases) for line in body):
            continue  # a walk of the function's tree would find nothing
        named = _named_lines(function, aliases)
        if not named:
            continue
        filled = _filled_settings(module, function, aliases=aliases)
        if module.is_script:
            writes.extend(Use(s, module.path, line, "") for s, line in named if s in filled)
        elif filled:
            unreported = _filled_settings(module, function, aliases=aliases, unreported_only=True)
            writes.extend(Use(s, module.path, line, "") for s, line in named if s in unreported)
        else:
            reads.extend(Use(s, module.path, line, module.line(line)) for s, line in named)
    return writes, reads


def _static_files_finder(cls: ast.ClassDef) -> bool:
    """``class ComponentsFinder(FileSystemFinder)``: staticfiles finders run at build time."""
    return any(
        str(getattr(base, "attr", None) or getattr(base, "id", "")).endswith("Finder")
        for base in cls.bases
    )


def _module_aliases(module: PythonModule) -> dict[str, set[str]]:
    """Top-level names bound to a path built from a data setting, to those settings."""
    aliases: dict[str, set[str]] = {}
    for statement in module.tree.body:
        if not isinstance(statement, ast.Assign):
            continue
        # (A cheap test of the statement's lines before the walk of its tree.)
        text = "".join(module.lines[statement.lineno - 1 : statement.end_lineno])
        if "settings." in text or any(name in text for name in aliases):
            sources = _settings_in(statement.value, aliases)
            for target in statement.targets if sources else ():
                if isinstance(target, ast.Name):
                    aliases[target.id] = sources
    return aliases


def _named_lines(
    function: FunctionNode, aliases: dict[str, set[str]] | None = None
) -> list[tuple[str, int]]:
    found: list[tuple[str, int]] = []
    for child in ast.walk(function):
        if isinstance(child, ast.Name) and aliases and child.id in aliases:
            found += [(setting, child.lineno) for setting in sorted(aliases[child.id])]
        if not isinstance(child, ast.Attribute) or dotted(child.value) != "settings":
            continue
        if is_data_setting(child.attr):
            found.append((child.attr, child.lineno))
    return found


def _filled_settings(
    module: PythonModule,
    function: FunctionNode,
    *,
    aliases: dict[str, set[str]] | None = None,
    unreported_only: bool = False,
) -> set[str]:
    """Data settings under which ``function`` creates files: a maker call whose receiver
    or arguments mention ``settings.X`` or a name built from it (here or at the top)."""
    derived: dict[str, set[str]] = dict(aliases or {})  # name -> the settings it is built from
    for node in sorted(ast.walk(function), key=lambda n: getattr(n, "lineno", 0)):
        if isinstance(node, ast.Assign):
            sources = _settings_in(node.value, derived)
            if sources:
                for target in node.targets:
                    for bound in ast.walk(target):
                        if isinstance(bound, ast.Name):
                            derived.setdefault(bound.id, set()).update(sources)
    filled: set[str] = set()
    for child in ast.walk(function):
        if not isinstance(child, ast.Call):
            continue
        method = child.func.attr if isinstance(child.func, ast.Attribute) else None
        name = last_part(call_name(module, child)) or (method or "")
        written = written_path(module, child) is not None
        if (name not in MAKERS and not written) or (unreported_only and written):
            continue
        if name in SUBPROCESS_CALLS and _runs_a_reader(function, child):
            continue
        parts: list[ast.AST] = [*child.args, *(k.value for k in child.keywords)]
        if isinstance(child.func, ast.Attribute):
            parts.append(child.func.value)
        for part in parts:
            filled |= _settings_in(part, derived)
    return filled


# A subprocess creates files where its command says; these programs only read.
SUBPROCESS_CALLS = frozenset({"run", "check_call", "check_output", "Popen"})
READ_ONLY_PROGRAMS = frozenset(
    {"tail", "head", "cat", "ls", "du", "wc", "grep", "file", "stat", "ffprobe", "identify"}
)


def _runs_a_reader(function: FunctionNode, call: ast.Call) -> bool:
    """``subprocess.check_output(["tail", "-n", "10", log])``, the command given inline
    or bound to a name above the call."""
    command = call.args[0] if call.args else None
    if isinstance(command, ast.Name):
        bound = [
            node.value
            for node in ast.walk(function)
            if isinstance(node, ast.Assign)
            and node.lineno < call.lineno
            and any(isinstance(t, ast.Name) and t.id == command.id for t in node.targets)
        ]
        command = max(bound, key=lambda value: value.lineno) if bound else None
    if not isinstance(command, ast.List | ast.Tuple) or not command.elts:
        return False
    program = command.elts[0]
    return isinstance(program, ast.Constant) and program.value in READ_ONLY_PROGRAMS


def _settings_in(node: ast.AST, derived: dict[str, set[str]]) -> set[str]:
    found: set[str] = set()
    for child in ast.walk(node):
        if isinstance(child, ast.Attribute) and dotted(child.value) == "settings":
            if is_data_setting(child.attr):
                found.add(child.attr)
        elif isinstance(child, ast.Name) and child.id in derived:
            found |= derived[child.id]
    return found


def media_folders(module: PythonModule) -> set[str]:
    """Settings a settings module defines under ``MEDIA_ROOT`` (``ORIGINALS_DIR =
    MEDIA_ROOT / "originals"``): uploads, one root cause with the storage that holds
    them, reported where ``STORAGES``/``MEDIA_ROOT`` is decided."""
    found: set[str] = set()
    for statement in module.tree.body:
        if isinstance(statement, ast.Assign) and any(
            isinstance(node, ast.Name) and node.id == "MEDIA_ROOT"
            for node in ast.walk(statement.value)
        ):
            found.update(t.id for t in statement.targets if isinstance(t, ast.Name))
    return found


class DataFolder(NamedTuple):
    """One data folder that a command fills and request code reads: one root cause."""

    setting: str
    writer: Use
    reads: list[Use]  # the first is where it is reported; those in other modules first


def unread_folders(
    writes: list[Use],
    reads: list[Use],
    media: set[str] = frozenset(),  # type: ignore[assignment]
) -> Iterator[DataFolder]:
    """Each data folder that one module fills and another module reads, with every read
    of it (the writer's own module's included, once another module reads it too)."""
    written: dict[str, Use] = {}
    for use in writes:
        if use.setting not in media:
            written.setdefault(use.setting, use)
    by_setting: dict[str, list[Use]] = {}
    for read in reads:
        if read.setting in written:
            by_setting.setdefault(read.setting, []).append(read)
    for setting, found in by_setting.items():
        writer = written[setting]
        elsewhere = [r for r in found if r.path != writer.path]
        if elsewhere:
            yield DataFolder(
                setting, writer, elsewhere + [r for r in found if r.path == writer.path]
            )


def folder_finding(folder: DataFolder, defined: list[Location]) -> Finding:
    """One data folder's finding, at its first read: the writer and the other reads
    related, and the settings lines that name the folder (``defined``)."""
    read, *other_reads = folder.reads
    writer = folder.writer
    related = (
        Location(writer.path, writer.line),
        *(Location(r.path, r.line) for r in other_reads),
        *defined,
    )
    return Finding(
        read.path,
        read.line,
        "file-write",
        f"reads settings.{folder.setting}, which {writer.path}:{writer.line} fills on the "
        "local disk: only the host that built the files has them",
        read.source,
        related=related,
        fix_text="Build the files into default_storage (S3Storage) and read them from "
        "there, or build them into the image at release time.",
    )
