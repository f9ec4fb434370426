"""file-write: files written to the local disk that outlive the request.

The next request may land on another instance, which has a different disk. A temp file
created and removed in one function is fine; a temp file created with ``delete=False``
and left behind is not. ``FileSystemStorage`` and paths under ``MEDIA_ROOT`` put uploads
on one host. Management commands and scripts write where their operator tells them, so
only their ``MEDIA_ROOT`` use is reported.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from horizontal.audit.findings import Finding
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
CLEANUPS = frozenset({"remove", "unlink", "rmtree", "cleanup", "close"})
COPIES = frozenset(
    {"shutil.copy", "shutil.copy2", "shutil.copyfile", "shutil.move", "os.rename", "os.replace"}
)
FRAME_WRITERS = frozenset({"to_csv", "to_excel", "to_parquet", "savefig"})
HARMLESS_TARGETS = ("/dev/", "/proc/", "/sys/")


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


def temp_names(module: PythonModule, function: FunctionNode) -> set[str]:
    """Names in a function that hold a temp file or directory, or a path inside one."""
    names: set[str] = set()
    for node in sorted(ast.walk(function), key=lambda n: getattr(n, "lineno", 0)):
        if isinstance(node, ast.withitem) and node.optional_vars is not None:
            if _mentions_temp(module, node.context_expr, names):
                names |= _bound_names(node.optional_vars)
        elif isinstance(node, ast.Assign) and _mentions_temp(module, node.value, names):
            for target in node.targets:
                names |= _bound_names(target)
    return names


def _bound_names(target: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


def _mentions_temp(module: PythonModule, node: ast.AST, names: set[str]) -> bool:
    for child in ast.walk(node):
        if isinstance(child, ast.Name) and child.id in names:
            return True
        if isinstance(child, ast.Call) and last_part(call_name(module, child)) in TEMP_FACTORIES:
            return True
    return False


def cleans_up(module: PythonModule, function: FunctionNode) -> bool:
    for node in ast.walk(function):
        if isinstance(node, ast.Call) and last_part(call_name(module, node)) in CLEANUPS:
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
    for finding in _local_writes(module), _local_storage(module):
        for item in finding:
            if item.line not in seen:
                seen.add(item.line)
                yield item


def _local_writes(module: PythonModule) -> Iterator[Finding]:
    if module.is_script:
        return
    temps: dict[int, set[str]] = {}
    for call in module.nodes(ast.Call):
        assert isinstance(call, ast.Call)
        target = written_path(module, call)
        if target is None or _harmless(target):
            continue
        function = module.scope(call).function
        if function is not None:
            names = temps.setdefault(id(function), temp_names(module, function))
            if _mentions_temp(module, target, names):
                if cleans_up(module, function):
                    continue
                message = (
                    "temp file is written and left behind: a later request on another "
                    "instance cannot read it"
                )
                yield Finding(
                    module.path, call.lineno, "file-write", message, module.line(call.lineno)
                )
                continue
        yield Finding(
            module.path,
            call.lineno,
            "file-write",
            "writes a file to the local disk: other instances cannot read it, and it is "
            "gone when this one is replaced",
            module.line(call.lineno),
        )


def _harmless(target: ast.AST) -> bool:
    text = string_value(target) or ""
    name = dotted(target) or ""
    return text.startswith(HARMLESS_TARGETS) or name in {"os.devnull", "sys.stdout", "sys.stderr"}


def _local_storage(module: PythonModule) -> Iterator[Finding]:
    for call in module.nodes(ast.Call):
        assert isinstance(call, ast.Call)
        name = call_name(module, call) or ""
        if last_part(name) == "FileSystemStorage":
            yield Finding(
                module.path,
                call.lineno,
                "file-write",
                "FileSystemStorage keeps uploads on this host's disk: other instances "
                "serve 404 for them",
                module.line(call.lineno),
            )
        elif last_part(name) == "path" and last_part(name.rsplit(".", 1)[0]).endswith("storage"):
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
        if dotted(node.value) != "settings":
            continue
        yield Finding(
            module.path,
            node.lineno,
            "file-write",
            "reads or writes files under MEDIA_ROOT directly: uploads on one host's disk",
            module.line(node.lineno),
        )
