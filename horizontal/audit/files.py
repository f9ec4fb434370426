"""file-write: files written to the local disk that outlive the request.

The next request may land on another instance, which has a different disk. A temp file
created and removed in one function is fine; a temp file created with ``delete=False``
and left behind is not. ``FileSystemStorage`` and paths under ``MEDIA_ROOT`` put uploads
on one host. Management commands and scripts write where their operator tells them, so
only their ``MEDIA_ROOT`` use is reported.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from horizontal.audit.findings import Finding
from horizontal.audit.patterns import lazy_compile
from horizontal.audit.source import (
    FunctionNode,
    PythonModule,
    call_name,
    dotted,
    keyword,
    last_part,
    string_value,
)

TEMP_FACTORIES = frozenset(
    {
        "mkstemp",
        "mkdtemp",
        "NamedTemporaryFile",
        "TemporaryFile",
        "TemporaryDirectory",
        "SpooledTemporaryFile",
        "gettempdir",
    }
)
CLEANUP_FUNCTIONS = frozenset({"os.remove", "os.unlink", "os.rmdir", "shutil.rmtree"})
CLEANUP_METHODS = frozenset({"unlink", "rmtree", "cleanup"})  # Path, TemporaryDirectory
COPIES = frozenset(
    {"shutil.copy", "shutil.copy2", "shutil.copyfile", "shutil.move", "os.rename", "os.replace"}
)
FRAME_WRITERS = frozenset({"to_csv", "to_excel", "to_parquet", "savefig"})
HARMLESS_TARGETS = ("/dev/", "/proc/", "/sys/")
PID_OR_LOG = lazy_compile(r"((^|_)(pid|log)s?(_?(file|path))?$|\.(pid|log)$)", re.I)
# self.tempdir, self._temp_dir, self.scratch_dir: a scratch directory the object owns.
OWNED_SCRATCH = lazy_compile(r"^_*(te?mp|scratch)[a-z_]*$|dir_?te?mp$", re.IGNORECASE)


# A setting that names a directory or file of data.
DATA_SETTING = lazy_compile(r"^[A-Z][A-Z0-9_]*_(ROOT|DIR|DIRS|DIRECTORY|FOLDER|PATH)$")
# Shipped with the code (the same in every image), scratch space, or handled elsewhere.
NOT_DATA = lazy_compile(
    r"STATIC|TEMPLATE|LOCALE|FIXTURE|^BASE_|^PROJECT_|^APP_|^MEDIA_ROOT$|TEMP|TMP|SCRATCH"
)


def is_data_setting(name: str) -> bool:
    return bool(DATA_SETTING.match(name)) and not NOT_DATA.search(name)


def write_mode(call: ast.Call, position: int) -> bool:
    mode = keyword(call, "mode")
    if mode is None and len(call.args) > position:
        mode = call.args[position]
    text = string_value(mode)
    return text is not None and any(flag in text for flag in "wax+")


def written_path(module: PythonModule, call: ast.Call) -> ast.AST | None:
    """The path expression a call writes to, or None if the call writes no file."""
    name = call_name(module, call) or ""
    func = call.func
    # Path(...).write_bytes(): the receiver is a call, so there is no dotted name.
    method = func.attr if isinstance(func, ast.Attribute) else last_part(name)
    if name in {"open", "io.open", "codecs.open"} and write_mode(call, 1):
        return call.args[0] if call.args else keyword(call, "file")
    if isinstance(func, ast.Attribute):
        if method == "open" and name not in {"open", "io.open", "codecs.open"}:
            is_path_open = not call.args or isinstance(call.args[0], ast.Constant)
            if is_path_open and write_mode(call, 0) and not name.startswith(("tarfile", "os.")):
                return func.value
        if method in {"write_text", "write_bytes"}:
            return func.value
        if method in FRAME_WRITERS and call.args and _looks_like_path(call.args[0]):
            return call.args[0]
    if name in COPIES and len(call.args) > 1:
        return call.args[1]
    if method == "ZipFile" and write_mode(call, 1) and call.args:
        # ZipFile(BytesIO(), "w") builds an archive in memory: only a path is a file.
        return call.args[0] if _looks_like_path(call.args[0]) else None
    return None


def _looks_like_path(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant | ast.JoinedStr | ast.BinOp):
        return True
    return isinstance(node, ast.Call) and last_part(dotted(node.func)) in {"join", "Path"}


def temp_names(module: PythonModule, function: FunctionNode, *, owned: bool = False) -> set[str]:
    """Names in a function that hold a temp file or directory, or a path inside one.

    ``owned``: only those derived from an object's own scratch directory
    (``self.tempdir``), which the object creates and removes (``__exit__``, ``cleanup``).
    """
    names: set[str] = set()
    for node in sorted(ast.walk(function), key=lambda n: getattr(n, "lineno", 0)):
        if isinstance(node, ast.withitem) and node.optional_vars is not None:
            if _mentions_temp(module, node.context_expr, names, owned=owned):
                names |= _bound_names(node.optional_vars)
        elif (
            isinstance(node, ast.Assign | ast.AnnAssign)
            and node.value is not None
            and _mentions_temp(module, node.value, names, owned=owned)
        ):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                names |= _bound_names(target)
    return names


def _bound_names(target: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


def _mentions_temp(
    module: PythonModule, node: ast.AST, names: set[str], *, owned: bool = False
) -> bool:
    for child in ast.walk(node):
        if isinstance(child, ast.Name) and child.id in names:
            return True
        if owned:
            if (
                isinstance(child, ast.Attribute)
                and dotted(child.value) == "self"
                and OWNED_SCRATCH.match(child.attr)
            ):
                return True
        elif isinstance(child, ast.Call) and last_part(call_name(module, child)) in TEMP_FACTORIES:
            return True
    return False


def _caller_cleans_up(module: PythonModule, function: FunctionNode, names: set[str]) -> bool:
    """The function hands its temp path back (``return path``) to a caller in this module
    that removes it in a ``finally:`` block: the file does not outlive the request."""
    returned = any(
        isinstance(node, ast.Return)
        and node.value is not None
        and _mentions_temp(module, node.value, names)
        for node in ast.walk(function)
    )
    if not returned:
        return False
    for caller in module.nodes(ast.FunctionDef, ast.AsyncFunctionDef):
        assert isinstance(caller, ast.FunctionDef | ast.AsyncFunctionDef)
        calls_it = any(
            isinstance(node, ast.Call) and last_part(dotted(node.func)) == function.name
            for node in ast.walk(caller)
        )
        if calls_it and any(
            isinstance(node, ast.Try)
            and node.finalbody
            and any(cleans_up(module, statement) for statement in node.finalbody)
            for node in ast.walk(caller)
        ):
            return True
    return False


def cleans_up(module: PythonModule, function: ast.AST) -> bool:
    """Whether ``function`` (or any statement) removes a temp file or uses a self-deleting one."""
    for node in ast.walk(function):
        if isinstance(node, ast.Call):
            name = call_name(module, node) or ""
            method = node.func.attr if isinstance(node.func, ast.Attribute) else ""
            if name in CLEANUP_FUNCTIONS or method in CLEANUP_METHODS:
                return True
        if isinstance(node, ast.withitem) and isinstance(node.context_expr, ast.Call):
            factory = last_part(call_name(module, node.context_expr))
            delete = keyword(node.context_expr, "delete")
            kept = isinstance(delete, ast.Constant) and delete.value is False
            if factory in TEMP_FACTORIES and not kept:
                return True
    return False


def find_file_writes(module: PythonModule) -> Iterator[Finding]:
    seen: set[int] = set()
    found: list[Finding] = []
    producers = (
        _generated_secrets(module),
        _local_writes(module),
        _local_storage(module),
        _served_media(module),
    )
    for finding in producers:
        for item in finding:
            if item.line not in seen:
                seen.add(item.line)
                found.append(item)
    # Only a module with a finding pays for the walk that finds guarded branches.
    guarded = _guarded_lines(module) if found and _may_guard(module.text) else set()
    yield from (item for item in found if item.line not in guarded)


# A branch taken only when the storage is local (``if isinstance(default_storage,
# FileSystemStorage)``, ``if storage.is_local``) or only under DEBUG is not production's
# path for files: the code already knows.
LOCAL_GUARD = lazy_compile(r"FileSystemStorage|is_local|local_storage|\bDEBUG\b")


def _may_guard(text: str) -> bool:
    return "FileSystemStorage" in text or "is_local" in text or "DEBUG" in text


def _guarded_lines(module: PythonModule) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(module.tree):
        if not isinstance(node, ast.If):
            continue
        test = ast.get_source_segment(module.text, node.test) or ""
        if not LOCAL_GUARD.search(test) or test.lstrip().startswith("not "):
            continue
        first = node.body[0].lineno
        last = max(getattr(n, "end_lineno", None) or n.lineno for n in node.body)
        lines.update(range(first, last + 1))
    return lines


def _served_media(module: PythonModule) -> Iterator[Finding]:
    """``serve(…, document_root=settings.MEDIA_ROOT)`` or a URL pattern's
    ``{"document_root": settings.MEDIA_ROOT}``: uploads served from this host's disk.
    Django's ``static()`` helper is left alone: it returns nothing unless DEBUG."""
    if "document_root" not in module.text or "settings." not in module.text:
        return
    for node in ast.walk(module.tree):
        value: ast.AST | None = None
        if isinstance(node, ast.Dict):
            for key, item in zip(node.keys, node.values, strict=True):
                if string_value(key) == "document_root":
                    value = item
        elif isinstance(node, ast.Call) and last_part(call_name(module, node)) == "serve":
            value = keyword(node, "document_root")
        root = _served_root(value)
        if root == "MEDIA_ROOT":
            line = getattr(node, "lineno", 1)
            yield Finding(
                module.path,
                line,
                "file-write",
                "serves MEDIA_ROOT from this host's disk: an upload received by another "
                "instance is a 404 here",
                module.line(line),
            )
        elif root is not None:
            line = getattr(node, "lineno", 1)
            yield Finding(
                module.path,
                line,
                "file-write",
                f"serves settings.{root} from this host's disk: files generated there on "
                "another instance are a 404 here",
                module.line(line),
            )


def _served_root(value: ast.AST | None) -> str | None:
    """The setting a ``document_root`` names: ``MEDIA_ROOT`` or a data folder
    (``settings.EXPORT_DIR``, joined or not); None for static files or anything else."""
    if value is None:
        return None
    for child in ast.walk(value):
        if isinstance(child, ast.Attribute) and dotted(child.value) == "settings":
            if child.attr == "MEDIA_ROOT":
                return child.attr
            if is_data_setting(child.attr):
                return child.attr
    return None


def _removed_here(
    module: PythonModule, function: FunctionNode | None, call: ast.Call, target: ast.AST
) -> bool:
    """The write sits in a ``try:`` whose ``finally:`` removes the written name
    (``probe.unlink()``, ``os.remove(probe)``): a probe file, gone before the function
    returns whatever happens."""
    if function is None or not isinstance(target, ast.Name):
        return False
    for node in ast.walk(function):
        if not isinstance(node, ast.Try) or not node.finalbody:
            continue
        first, last = node.body[0].lineno, node.body[-1].end_lineno or node.body[-1].lineno
        if first <= call.lineno <= last and any(
            _removes(module, statement, target.id) for statement in node.finalbody
        ):
            return True
    return False


def _removes(module: PythonModule, statement: ast.stmt, name: str) -> bool:
    for node in ast.walk(statement):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        method = func.attr if isinstance(func, ast.Attribute) else ""
        receiver = func.value if isinstance(func, ast.Attribute) else None
        if method in CLEANUP_METHODS and isinstance(receiver, ast.Name) and receiver.id == name:
            return True
        if (call_name(module, node) or "") in CLEANUP_FUNCTIONS and node.args:
            first = node.args[0]
            if isinstance(first, ast.Name) and first.id == name:
                return True
    return False


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
        SECRET_NAME.search(ast.get_source_segment(module.text, target) or "")
        or SECRET_NAME.search(getattr(scope, "name", ""))
    )
    if not named:
        named = any(
            "secret" in (getattr(node, "id", None) or string_value(node) or "").lower()
            for node in ast.walk(scope)
        )
    if not named:
        return False
    return any(
        isinstance(node, ast.Call) and _called(module, node) in RANDOM_VALUE_CALLS
        for node in ast.walk(scope)
    )


def _top_level_statement(module: PythonModule, line: int) -> ast.stmt | None:
    for statement in module.tree.body:
        if statement.lineno <= line <= (statement.end_lineno or statement.lineno):
            return statement
    return None


def _called(module: PythonModule, call: ast.Call) -> str:
    """The last name of what ``call`` calls (``SystemRandom().choice``: ``choice``)."""
    return last_part(call_name(module, call) or getattr(call.func, "attr", ""))


def _generated_secrets(module: PythonModule) -> Iterator[Finding]:
    """A command (``manage.py generate_secret_key``, run at first boot) or any code that
    writes a fresh random key into a local file: every instance that runs it has its own."""
    for call in module.nodes(ast.Call):
        assert isinstance(call, ast.Call)
        scope: ast.AST | None = module.scope(call).function
        if scope is None:  # settings that create their key file at import time
            scope = _top_level_statement(module, call.lineno)
        if scope is not None and _secret_into_file(module, call, scope):
            yield Finding(
                module.path,
                call.lineno,
                "file-write",
                "a secret key is generated into a file on this host: each instance that "
                "runs this has its own key (sessions, signatures and tokens do not verify "
                "across instances)",
                module.line(call.lineno),
                fix_text="Generate the key once, store it in the environment or a secret "
                "store every instance reads, and fail at start-up when it is missing.",
            )


def _local_writes(module: PythonModule) -> Iterator[Finding]:
    if module.is_script:
        return
    temps: dict[int, set[str]] = {}
    owned_temps: dict[int, set[str]] = {}
    for call in module.nodes(ast.Call):
        assert isinstance(call, ast.Call)
        function = module.scope(call).function
        target = written_path(module, call) or _saved_to_temp(module, call, function, temps)
        if target is None or _harmless(target):
            continue
        if function is not None:
            owned = owned_temps.setdefault(id(function), temp_names(module, function, owned=True))
            if _mentions_temp(module, target, owned, owned=True):
                continue  # the object's own scratch directory, removed with the object
            names = temps.setdefault(id(function), temp_names(module, function))
            if _mentions_temp(module, target, names):
                if cleans_up(module, function) or _caller_cleans_up(module, function, names):
                    continue
                message = (
                    "temp file is written and left behind: a later request on another "
                    "instance cannot read it"
                )
                yield Finding(
                    module.path, call.lineno, "file-write", message, module.line(call.lineno)
                )
                continue
        if _removed_here(module, function, call, target):
            continue
        yield Finding(
            module.path,
            call.lineno,
            "file-write",
            "writes a file to the local disk: other instances cannot read it, and it is "
            "gone when this one is replaced",
            module.line(call.lineno),
        )


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
    return call.args[0] if _mentions_temp(module, call.args[0], names) else None


def _harmless(target: ast.AST) -> bool:
    text = string_value(target) or ""
    name = dotted(target) or ""
    if text.startswith(HARMLESS_TARGETS) or name in {"os.devnull", "sys.stdout", "sys.stderr"}:
        return True
    # A pid file or a log this process appends to: this host's own, read by no request.
    return bool(PID_OR_LOG.search(text) or PID_OR_LOG.search(last_part(name)))


PATH_BUILDERS = frozenset(
    {"join", "Path", "PurePath", "walk", "listdir", "scandir", "glob", "iglob", "open", "exists"}
)


def _builds_local_path(module: PythonModule, media_root: ast.Attribute) -> bool:
    """Is ``settings.MEDIA_ROOT`` used as a place on disk (joined, walked, opened, bound to a
    name), rather than reported (``os.statvfs``) or handed to a checker?"""
    function = module.scope(media_root).function
    if function is None or _only_measured(function, media_root):
        return False
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and node.value is media_root:
            return True
        if isinstance(node, ast.BinOp) and media_root in (node.left, node.right):
            return True
        if isinstance(node, ast.Call) and media_root in node.args:
            name = node.func.attr if isinstance(node.func, ast.Attribute) else dotted(node.func)
            return last_part(name) in PATH_BUILDERS or (name or "").startswith("shutil")
    return False


def _handed_to_a_storage(module: PythonModule, media_root: ast.Attribute) -> bool:
    """``settings.MEDIA_ROOT`` inside the arguments of a storage's method
    (``default_storage.exists(...)``, ``self.file.storage.open(...)``): no disk access here;
    where the files live is the storage's choice, judged in settings."""
    function = module.scope(media_root).function
    if function is None:
        return False
    for node in ast.walk(function):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        receiver = dotted(node.func.value) or ""
        if "storage" not in last_part(receiver).lower():
            continue
        if any(child is media_root for arg in node.args for child in ast.walk(arg)):
            return True
    return False


def _only_measured(function: FunctionNode, media_root: ast.Attribute) -> bool:
    """``full = str(Path(settings.MEDIA_ROOT) / name)`` whose every use is ``len(full)``:
    a path built to check a length limit, never opened."""
    for node in ast.walk(function):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        target = node.targets[0]
        if not isinstance(target, ast.Name) or not any(
            child is media_root for child in ast.walk(node.value)
        ):
            continue
        measured = {
            id(call.args[0])
            for call in ast.walk(function)
            if isinstance(call, ast.Call) and dotted(call.func) == "len" and call.args
        }
        uses = [
            name
            for name in ast.walk(function)
            if isinstance(name, ast.Name)
            and name.id == target.id
            and isinstance(name.ctx, ast.Load)
        ]
        return bool(uses) and all(id(use) in measured for use in uses)
    return False


def _local_storage_path(name: str) -> bool:
    """``default_storage.path()``: only local storage has paths (static files are in
    every image, so ``staticfiles_storage.path()`` is fine)."""
    receiver = last_part(name.rsplit(".", 1)[0]) if "." in name else ""
    return last_part(name) == "path" and receiver.endswith("storage") and "static" not in receiver


def _read_only_storage(module: PythonModule, call: ast.Call) -> bool:
    """``fixtures = FileSystemStorage(BASE_DIR / "fixtures")``: a storage over files shipped
    in the image, opened to read them. It has a location that is not MEDIA_ROOT and the
    function never saves, deletes or opens for writing through the local name it is bound
    to, nor hands it to a field as its ``storage`` (looked for in the whole module)."""
    location = call.args[0] if call.args else keyword(call, "location")
    if location is None or "MEDIA" in (ast.get_source_segment(module.text, location) or ""):
        return False
    if module.scope(call).function is None:
        return False  # a module-level storage: other modules may save through it
    bound = [
        node
        for node in module.nodes(ast.Assign)
        if isinstance(node, ast.Assign) and node.value is call
    ]
    # Only a local name: an attribute (self.storage) may be saved through elsewhere.
    names = {t.id for node in bound for t in node.targets if isinstance(t, ast.Name)}
    if not names:
        return False
    for name in names:
        for position in _find_all(module.text, f"{name}."):
            after = module.text[position + len(name) : position + len(name) + 8]
            if after.startswith((".save(", ".delete(")):
                return False
            if after.startswith(".open(") and WRITE_IN_OPEN.match(
                module.text, position + len(name) + 6
            ):
                return False
        if f"storage={name}" in module.text:
            return False
    return bool(names)


WRITE_IN_OPEN = lazy_compile(r"[^)\n]*[\"'][rbt]*[wax+]")


def _find_all(text: str, needle: str) -> Iterator[int]:
    position = text.find(needle)
    while position != -1:
        yield position
        position = text.find(needle, position + 1)


def _in_storage_class(module: PythonModule, node: ast.AST) -> bool:
    """Inside a class that is a storage (``class MediaStorage(FileSystemStorage)``)."""
    cls = module.scope(node).cls
    return cls is not None and any((dotted(base) or "").endswith("Storage") for base in cls.bases)


def _local_storage(module: PythonModule) -> Iterator[Finding]:
    for call in module.nodes(ast.Call):
        assert isinstance(call, ast.Call)
        name = call_name(module, call) or ""
        # FileSystemStorage or a subclass named for it (ThumbnailFileSystemStorage).
        local = last_part(name).endswith("FileSystemStorage")
        if local and not _read_only_storage(module, call):
            yield Finding(
                module.path,
                call.lineno,
                "file-write",
                "FileSystemStorage keeps uploads on this host's disk: other instances "
                "serve 404 for them",
                module.line(call.lineno),
            )
        elif _local_storage_path(name):
            yield Finding(
                module.path,
                call.lineno,
                "file-write",
                "storage.path() only exists for local storage: the file is on one host",
                module.line(call.lineno),
            )
    for node in module.nodes(ast.Attribute):
        assert isinstance(node, ast.Attribute)
        if node.attr != "MEDIA_ROOT" or module.scope(node).function is None:
            continue
        if dotted(node.value) != "settings" or not _builds_local_path(module, node):
            continue
        if _in_storage_class(module, node):
            continue  # the storage backend itself: choosing it in settings is the finding
        if _handed_to_a_storage(module, node):
            continue  # default_storage.exists(join(MEDIA_ROOT, name)): the storage decides
        yield Finding(
            module.path,
            node.lineno,
            "file-write",
            "reads or writes files under MEDIA_ROOT directly: uploads on one host's disk",
            module.line(node.lineno),
        )
