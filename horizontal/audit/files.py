"""file-write: files written to the local disk that outlive the request.

The next request may land on another instance, which has a different disk. A temp file
created and removed in one function is fine; a temp file created with ``delete=False``
and left behind is not. ``FileSystemStorage`` and paths under ``MEDIA_ROOT`` put uploads
on one host (``local_storage.py``). Management commands and scripts write where their
operator tells them, so only their ``MEDIA_ROOT`` use is reported.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from horizontal.audit.file_calls import read_through_update_mode, written_path
from horizontal.audit.findings import Finding, Location
from horizontal.audit.folder_names import place_named, where_the_folder_is_named
from horizontal.audit.in_process_locks import opens_a_lock_file
from horizontal.audit.local_storage import MEDIA_ROOT_BY_PATH, STORAGE_PATH, find_local_storage
from horizontal.audit.own_writes import (
    called_name,
    is_harmless_target,
    materializes_configuration,
    refreshes_a_remote_copy,
    relative_literal,
    runs_a_profiler,
    touched_files,
)
from horizontal.audit.patterns import lazy_compile
from horizontal.audit.rebuilt_files import rebuilt_when_missing
from horizontal.audit.served_folders import find_served_folders
from horizontal.audit.source import (
    FunctionNode,
    PythonModule,
    calls_to,
    dotted,
    last_part,
    string_value,
)
from horizontal.audit.staged_files import copied_from_storage, staged_for_storage
from horizontal.audit.start_messages import SECRET_FILE_FIX
from horizontal.audit.suppress import is_suppressed
from horizontal.audit.temp_handoff import escapes, handed_on_temp_files
from horizontal.audit.temp_paths import (
    NO_SCRATCH,
    TEMP_LEFT_BEHIND,
    Scratch,
    caller_cleans_up,
    callers_pass_temp,
    class_scratch,
    cleans_up,
    mentions_temp,
    removed_in_place,
    temp_names,
    writes_where_told,
)

LOCAL_WRITE = (
    "writes a file to the local disk: other instances cannot read it, and it is gone when "
    "this one is replaced"
)


def find_file_writes(module: PythonModule) -> Iterator[Finding]:
    seen: set[int] = set()
    found: list[Finding] = []
    writers: dict[int, str] = {}  # line of a plain write -> the function that makes it
    producers = (
        _generated_secrets(module),
        _local_writes(module, writers),
        handed_on_temp_files(module),
        find_local_storage(module),
        find_served_folders(module),
    )
    for finding in producers:
        for item in finding:
            if item.line not in seen:
                seen.add(item.line)
                found.append(item)
    # Only a module with a finding pays for the walk that finds guarded branches.
    guarded = _guarded_lines(module) if found and _may_guard(module.text) else set()
    if found and ("locals()" in module.text or "globals()" in module.text):
        guarded |= _never_run_lines(module)
    kept = [item for item in found if item.line not in guarded]
    if guarded and any(item.line in writers for item in kept):
        kept = [
            item
            for item in kept
            if item.line not in writers or not _reached_only_under_guard(module, item, guarded)
        ]
    yield from _one_per_module(kept, writers, module.lines)


def _reached_only_under_guard(module: PythonModule, finding: Finding, guarded: set[int]) -> bool:
    """The write's function is called only from guarded branches (``if settings.DEBUG:
    return cls._load_debug_key()``), directly or through up to two more functions."""
    enclosing = [
        f
        for f in module.nodes(ast.FunctionDef, ast.AsyncFunctionDef)
        if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
        and f.lineno <= finding.line <= (f.end_lineno or f.lineno)
    ]
    if not enclosing:
        return False
    innermost = max(enclosing, key=lambda f: f.lineno)
    return _called_only_under_guard(module, innermost, guarded, 0)


def _called_only_under_guard(
    module: PythonModule, function: FunctionNode, guarded: set[int], depth: int
) -> bool:
    called = False
    for caller, call in calls_to(module, function.name):
        if caller is function:
            return False
        if call.lineno not in guarded and not (
            depth < 2 and _called_only_under_guard(module, caller, guarded, depth + 1)
        ):
            return False
        called = True
    return called


def _one_per_module(
    findings: list[Finding], writers: dict[int, str], lines: list[str]
) -> Iterator[Finding]:
    """The plain writes of one module are one finding, and so are its paths under
    ``MEDIA_ROOT`` and its ``storage.path()`` calls: the module keeps its files on this
    disk, and one change (going through a storage) fixes them all. The first place is the
    finding, the others its related locations (the writing functions named in the
    message); a suppressed place stays on its own (the scan counts it as suppressed)."""
    writes: list[Finding] = []
    media: list[Finding] = []
    paths: list[Finding] = []
    for finding in findings:
        if is_suppressed(finding, lines):
            yield finding
        elif finding.line in writers and finding.message == LOCAL_WRITE:
            writes.append(finding)
        elif finding.message == MEDIA_ROOT_BY_PATH:
            media.append(finding)
        elif finding.message == STORAGE_PATH:
            paths.append(finding)
        else:
            yield finding
    if paths:  # storage.path() of one module: one change (storage.open) fixes them all
        yield _grouped(paths, STORAGE_PATH + (f" ({len(paths)} places)" if paths[1:] else ""))
    if writes and media:  # one module keeping its files on this disk, both ways
        where = (
            f" ({len(writes)} write{'s' if writes[1:] else ''} in "
            f"{_functions(writes, writers)}, and {len(media)} path"
            f"{'s' if media[1:] else ''} under MEDIA_ROOT)"
        )
        yield _grouped(writes + media, LOCAL_WRITE + where)
    elif writes:
        where = f" ({len(writes)} writes in {_functions(writes, writers)})"
        yield _grouped(writes, LOCAL_WRITE + where if len(writes) > 1 else LOCAL_WRITE)
    elif media:
        yield _grouped(media, MEDIA_ROOT_BY_PATH + (f" ({len(media)} places)" if media[1:] else ""))


def _grouped(group: list[Finding], message: str) -> Finding:
    first, *rest = sorted(group)
    if not rest:
        return first
    places = [Location(f.path, f.line, f.source) for f in rest]
    # Each place's own related places (where its folder is named) once, after them.
    own = [r for f in (first, *rest) for r in f.related]
    return first._replace(message=message, related=tuple(dict.fromkeys([*places, *own])))


def _functions(group: list[Finding], writers: dict[int, str]) -> str:
    """``export()``, ``export() and archive()``, ``a(), b(), c() and 2 more``."""
    names = list(
        dict.fromkeys(
            f"{key.partition('@')[0]}()" if key else "the module's top level"
            for key in (writers[f.line] for f in sorted(group))
        )
    )
    if len(names) == 1:
        return names[0]
    if len(names) <= 3:
        return f"{', '.join(names[:-1])} and {names[-1]}"
    return f"{', '.join(names[:3])} and {len(names) - 3} more"


# A branch taken only when the storage is local (``if isinstance(default_storage,
# FileSystemStorage)``, ``if storage.is_local``) or only under DEBUG is not production's
# path for files: the code already knows.
LOCAL_GUARD = lazy_compile(r"FileSystemStorage|is_local|local[_-]storage|\bDEBUG\b")


def _may_guard(text: str) -> bool:
    return (
        "FileSystemStorage" in text
        or "is_local" in text
        or "DEBUG" in text
        or "local-storage" in text
        or "local_storage" in text
    )


def _guarded_lines(module: PythonModule) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(module.tree):
        if not isinstance(node, ast.If):
            continue
        test = module.segment(node.test)
        if not LOCAL_GUARD.search(test) or test.lstrip().startswith("not "):
            continue
        first = node.body[0].lineno
        last = max(getattr(n, "end_lineno", None) or n.lineno for n in node.body)
        lines.update(range(first, last + 1))
    return lines


def _never_run_lines(module: PythonModule) -> set[int]:
    """The body of ``if "SECRET_KEY" not in locals():`` under a ``SECRET_KEY = …`` that
    always binds the name: the fallback never runs (a key file it would write included)."""
    # Imported here: check --deploy's code scan does not load the settings readers.
    from horizontal.audit.settings_branches import guards_of_bound_names

    outcomes = guards_of_bound_names(module.tree)
    lines: set[int] = set()
    for statement in module.tree.body:
        outcome = outcomes.get(id(statement))
        if outcome is None or not isinstance(statement, ast.If):
            continue
        dead = statement.body if outcome is False else statement.orelse
        for part in dead:
            lines.update(range(part.lineno, (part.end_lineno or part.lineno) + 1))
    return lines


SECRET_NAME = lazy_compile(r"secret|key|token", re.IGNORECASE)


def _secret_into_file(module: PythonModule, call: ast.Call, scope: ast.AST) -> bool:
    """``scope`` (a function, or a top-level statement of a settings module) makes a
    random value and writes it to a file, and the path, the function's name or any name
    in it says a secret (``secret_key.txt``, ``settings.SECRET_FILE``, ``secret = …``)."""
    from horizontal.audit.known import RANDOM_VALUE_CALLS

    target = written_path(module, call)
    if target is None:
        return False
    named = bool(
        SECRET_NAME.search(module.segment(target)) or SECRET_NAME.search(getattr(scope, "name", ""))
    )
    if not named:
        # (not the ``secrets`` module a random value is drawn from: ``secrets.token_hex``)
        named = any(
            "secret" in (getattr(node, "id", None) or string_value(node) or "").lower()
            for node in ast.walk(scope)
            if getattr(node, "id", None) != "secrets"
        )
    if not named or _renders_a_document(module, scope):
        return False
    return any(
        isinstance(node, ast.Call) and called_name(module, node) in RANDOM_VALUE_CALLS
        for node in ast.walk(scope)
    )


# Rendering a configuration document: a template engine, placeholders replaced by hand, a
# serialiser (``json.dumps(environment)``, ``yaml.dump``).
DOCUMENT_CALLS = frozenset(
    {"render", "render_to_string", "substitute", "safe_substitute", "dumps", "dump"}
)


def _renders_a_document(module: PythonModule, scope: ast.AST) -> bool:
    """An installer that renders a whole configuration with a fresh key in it
    (``body.replace("{{ secret_key }}", key)``, ``render_to_string("settings.py.tpl",
    …)``, ``json.dumps(environment)``) makes the configuration its operator ships, and
    every instance then reads that one file; a key written alone, or as its one line, is
    a key each box that runs the code makes for itself."""
    for node in ast.walk(scope):
        if not isinstance(node, ast.Call):
            continue
        if called_name(module, node) in DOCUMENT_CALLS:
            return True
        is_replace = isinstance(node.func, ast.Attribute) and node.func.attr == "replace"
        if is_replace and node.args and "{{" in (string_value(node.args[0]) or ""):
            return True
    return False


def _top_level_statement(module: PythonModule, line: int) -> ast.stmt | None:
    for statement in module.tree.body:
        if statement.lineno <= line <= (statement.end_lineno or statement.lineno):
            return statement
    return None


SECRET_INTO_FILE = (
    "a secret key is generated into a file on this host: each instance that runs this has "
    "its own key (sessions, signatures and tokens do not verify across instances)"
)
GENERATED_SETTING = "SECRET_KEY is generated"


def secret_with_its_file(findings: list[Finding]) -> list[Finding]:
    """One root cause, one finding: a settings module that writes its key file and reads
    ``SECRET_KEY`` from it, or calls a helper that does (the helper is a related location
    of the setting's finding), is found twice (the setting, W109; the write, W103). The
    setting's finding keeps the write as a related location."""
    anchors = [
        f for f in findings if f.category == "settings" and f.message.startswith(GENERATED_SETTING)
    ]
    owner = {path: id(a) for a in anchors for path in (a.path, *(r.path for r in a.related))}
    folded = [f for f in findings if f.message == SECRET_INTO_FILE and f.path in owner]
    if not folded:
        return findings
    merged = {
        id(anchor): anchor._replace(
            related=(
                *anchor.related,
                *(
                    Location(f.path, f.line, f.source)
                    for f in folded
                    if owner[f.path] == id(anchor)
                ),
            )
        )
        for anchor in anchors
    }
    absorbed = {id(f) for f in folded}
    return [merged.get(id(f), f) for f in findings if id(f) not in absorbed]


def _file_write(module: PythonModule, line: int, message: str, fix_text: str = "") -> Finding:
    return Finding(module.path, line, "file-write", message, module.line(line), fix_text=fix_text)


def _generated_secrets(module: PythonModule) -> Iterator[Finding]:
    """A command (``manage.py generate_secret_key``, run at first boot) or any code that
    writes a fresh random key into a local file: every instance that runs it has its own."""
    for call in module.nodes(ast.Call):
        assert isinstance(call, ast.Call)
        scope: ast.AST | None = module.scope(call).function
        if scope is None:  # settings that create their key file at import time
            scope = _top_level_statement(module, call.lineno)
        if scope is not None and _secret_into_file(module, call, scope):
            yield _file_write(
                module,
                call.lineno,
                SECRET_INTO_FILE,
                fix_text=SECRET_FILE_FIX,
            )


def _local_writes(module: PythonModule, writers: dict[int, str]) -> Iterator[Finding]:
    """Writes to the local disk; ``writers`` gets each plain write's function
    (``name@line``, or "" at module level)."""
    if module.is_script:
        return
    temps: dict[int, set[str]] = {}
    owned_temps: dict[int, set[str]] = {}
    scratches: dict[int, Scratch] = {}
    touched = touched_files(module)
    for call in module.nodes(ast.Call):
        assert isinstance(call, ast.Call)
        if id(call) in touched:
            continue
        scope = module.scope(call)
        function = scope.function
        target = written_path(module, call) or _saved_to_temp(module, call, function, temps)
        if target is None or is_harmless_target(target, function):
            continue
        if function is None and scope.cls is None and relative_literal(target):
            continue  # ``with open("schema.csv", "w")`` at the top: a script run in its folder
        if function is not None:
            scratch = scratches.get(id(scope.cls)) if scope.cls is not None else NO_SCRATCH
            if scratch is None:
                scratch = scratches[id(scope.cls)] = class_scratch(module, scope.cls)
            owned = owned_temps.setdefault(
                id(function), temp_names(module, function, owned=True, scratch=scratch)
            )
            if mentions_temp(module, target, owned, owned=True, scratch=scratch):
                continue  # the object's own scratch directory, removed with the object
            if callers_pass_temp(module, function, target):
                continue  # a helper writing into the temp directory its callers made
            names = temps.setdefault(id(function), temp_names(module, function))
            if mentions_temp(module, target, names):
                if cleans_up(module, function) or caller_cleans_up(module, function, names):
                    continue
                if escapes(module, function, names):
                    yield _file_write(module, call.lineno, TEMP_LEFT_BEHIND)
                continue  # left behind, but read only here: this host's own litter
        if removed_in_place(module, function, call, target):
            continue
        if opens_a_lock_file(module, function or module.tree, call):
            continue  # the flock() on its handle is the finding
        if _scratch_dump(module, target):
            continue  # ``open("/tmp/clusters.txt", "w")`` that nothing here reads: a dump
        if function is not None and refreshes_a_remote_copy(module, function):
            continue
        if materializes_configuration(module, target, function or module.tree):
            continue
        if scope.cls is not None and _file_mail_outbox(module, scope.cls):
            continue  # Django's file e-mail backend, extended: a developer's outbox
        if function is not None and "rofil" in module.text and runs_a_profiler(function):
            continue  # the profile of this process's request: its own report
        if function is not None and _told_where(module, function, target):
            continue  # the caller chooses the place: judged where the path is built
        if read_through_update_mode(module, call, function):
            continue
        if function is not None and rebuilt_when_missing(function, call, target):
            continue  # a per-host cache: every instance rebuilds what it lacks
        if function is not None and (
            staged_for_storage(function, call, target) or copied_from_storage(function)
        ):
            continue  # a copy on its way into or out of a storage, which keeps the file
        # A destination given by keyword (``output=settings.X / name``) is the line that
        # says where the file goes, in a call spread over several lines.
        by_keyword = any(k.value is target for k in call.keywords)
        line = getattr(target, "lineno", call.lineno) if by_keyword else call.lineno
        named = where_the_folder_is_named(module, function, target)
        if function is not None and not place_named(module, function, call.lineno, target, named):
            continue  # a record or a parameter says where: judged where that is decided
        writers.setdefault(line, _function_name(function))
        yield _file_write(module, line, LOCAL_WRITE)._replace(related=named)


def _file_mail_outbox(module: PythonModule, cls: ast.ClassDef) -> bool:
    """A subclass of Django's file-based e-mail backend (``filebased.EmailBackend``),
    which Django documents as not meant for production: mail kept for a developer."""
    return "mail.backends.filebased" in module.text and any(
        last_part(dotted(base)).endswith("EmailBackend") for base in cls.bases
    )


def _told_where(module: PythonModule, function: FunctionNode, target: ast.AST) -> bool:
    """``writes_where_told`` for the function, or for the one it is nested in (a generator
    a factory returns, writing into the factory's ``directory`` argument)."""
    if writes_where_told(module, function, target):
        return True
    outer = module.scope(function).function
    return outer is not None and writes_where_told(module, outer, target)


def _scratch_dump(module: PythonModule, target: ast.AST) -> bool:
    """A literal path under ``/tmp`` named once in the module: this host's scratch space,
    written for a person to look at (a debug dump), read by no code here."""
    path = string_value(target)
    return path is not None and path.startswith("/tmp/") and module.text.count(path) == 1


def _function_name(function: FunctionNode | None) -> str:
    return f"{function.name}@{function.lineno}" if function is not None else ""


def _saved_to_temp(
    module: PythonModule,
    call: ast.Call,
    function: FunctionNode | None,
    temps: dict[int, set[str]],
) -> ast.AST | None:
    """``pdf.save(path)`` where ``path`` is in a temp dir made here: a file write.

    Any other ``.save(...)`` is a model, form or image saved somewhere we cannot see.
    """
    is_save = isinstance(call.func, ast.Attribute) and call.func.attr == "save"
    if not is_save or function is None or not call.args:
        return None
    names = temps.setdefault(id(function), temp_names(module, function))
    return call.args[0] if mentions_temp(module, call.args[0], names) else None
