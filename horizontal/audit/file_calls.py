"""Which calls write a file, and to what path: ``open(path, "w")`` and its kinds,
``Path.write_text``, ``shutil.copy``/``move``, data frames' ``to_csv``, a ``ZipFile``
opened for writing; and an update mode (``"r+"``) that nothing writes through, which
is a read. ``files.py`` judges whether the file outlives the request; ``datadirs.py``
reads what a command writes.
"""

from __future__ import annotations

import ast
import re

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

__all__ = ["mode_given", "read_through_update_mode", "write_mode", "written_path"]

COPIES = frozenset(
    {"shutil.copy", "shutil.copy2", "shutil.copyfile", "shutil.move", "os.rename", "os.replace"}
)
FRAME_WRITERS = frozenset({"to_csv", "to_excel", "to_parquet", "savefig"})
# Renderers that write their output to the path they are given (WeasyPrint).
RENDERERS = frozenset({"write_pdf", "write_png"})
# A library call's destination given by keyword: ``render_pdf(html, output=path)``.
OUTPUT_KEYWORDS = frozenset(
    {"output", "output_path", "output_file", "outfile", "out_path", "destination", "dest_path"}
)

OPEN_MODE = lazy_compile(r"^[rwxabtU+]{1,4}$")


def mode_given(call: ast.Call, position: int) -> str | None:
    """The mode an ``open``-like call is given, by keyword or at ``position``; None when
    it is given none (or one the source does not tell)."""
    mode = keyword(call, "mode")
    if mode is None and len(call.args) > position:
        mode = call.args[position]
    return string_value(mode)


def write_mode(call: ast.Call, position: int) -> bool:
    text = mode_given(call, position)
    # A mode, not a path in a mode's place (Image.open("static/mask.png") reads it).
    return text is not None and bool(OPEN_MODE.match(text)) and any(f in text for f in "wax+")


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
                return None if _field_file(module, func.value) else func.value
        if method in {"write_text", "write_bytes"}:
            return func.value
        if method in FRAME_WRITERS and call.args and _looks_like_path(call.args[0]):
            return call.args[0]
    if name in COPIES and len(call.args) > 1:
        return call.args[1]
    if method in RENDERERS and call.args and _looks_like_path(call.args[0]):
        return call.args[0]  # HTML(string=…).write_pdf(path): WeasyPrint renders to a file
    output = next((k.value for k in call.keywords if k.arg in OUTPUT_KEYWORDS), None)
    if output is not None and _names_a_folder(output):
        return output  # render_pdf(html, output=settings.INVOICES_PATH / name)
    if method == "save" and isinstance(func, ast.Attribute) and _saved_to_a_file(call):
        return call.args[0]  # Image.save("{}/{}.png".format(settings.QR_DIR, n)): a file
    if method == "ZipFile" and write_mode(call, 1) and call.args:
        # ZipFile(BytesIO(), "w") builds an archive in memory: only a path is a file.
        return call.args[0] if _looks_like_path(call.args[0]) else None
    return None


# What a model's FieldFile answers and a path does not: ``doc.file.delete(save=False)``.
FIELD_FILE_API = (".delete(save=", ".url", ".save(")


def _field_file(module: PythonModule, receiver: ast.AST) -> bool:
    """``doc.ffile.open("wb")`` where the module also deletes, saves or links ``doc.ffile``
    as a file field's value: the write goes to the field's storage, not to a path."""
    name = dotted(receiver)
    if not name or "." not in name:
        return False
    return any(f"{name}{api}" in module.text for api in FIELD_FILE_API)


def _names_a_folder(node: ast.AST) -> bool:
    """A path built under a folder (``settings.X_PATH / name``, ``os.path.join(ROOT, n)``),
    not a bare name: an ``output=`` keyword also names formats and argparse targets."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        return True
    return isinstance(node, ast.Call) and last_part(dotted(node.func)) == "join"


# A file's name by its extension: what an image or a workbook is saved as.
FILE_EXTENSION = lazy_compile(r"\.(png|jpe?g|gif|webp|bmp|tiff?|pdf|xlsx|svg)$", re.I)


def _saved_to_a_file(call: ast.Call) -> bool:
    """``obj.save(path)`` given one path (PIL's, qrcode's, openpyxl's), named with a file's
    extension or built under a folder: not a model's ``save()`` nor a storage's
    ``save(name, content)``, nor a save into a buffer or a response."""
    if not call.args or len(call.args) > 2 or any(k.arg is None for k in call.keywords):
        return False
    if len(call.args) == 2 and string_value(call.args[1]) is None:
        return False  # storage.save(name, content): the storage decides where
    path = call.args[0]
    if _names_a_folder(path):
        return True
    pieces = [n.value for n in ast.walk(path) if isinstance(n, ast.Constant)]
    return any(isinstance(p, str) and FILE_EXTENSION.search(p) for p in pieces)


def _looks_like_path(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant | ast.JoinedStr | ast.BinOp):
        return True
    return isinstance(node, ast.Call) and last_part(dotted(node.func)) in {"join", "Path"}


HANDLE_WRITES = frozenset({"write", "writelines", "truncate"})
FILE_DUMPS = frozenset({"json.dump", "pickle.dump", "yaml.dump", "yaml.safe_dump", "toml.dump"})


def read_through_update_mode(
    module: PythonModule, call: ast.Call, function: FunctionNode | None
) -> bool:
    """``with open(path, "r+") as data: json.load(data)``: an update mode ("r+", "rb+")
    whose handle nothing writes through is a read of the file."""
    name = call_name(module, call) or ""
    mode = mode_given(call, 1)
    if mode is None or not mode.startswith("r") or "+" not in mode or function is None:
        return False
    if last_part(name) not in {"open"}:
        return False
    handles = _handle_names(function, call)
    if not handles:
        return False  # the handle goes somewhere we cannot follow
    for node in ast.walk(function):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if (
            isinstance(func, ast.Attribute)
            and func.attr in HANDLE_WRITES
            and isinstance(func.value, ast.Name)
            and func.value.id in handles
        ):
            return False
        if (call_name(module, node) or "") in FILE_DUMPS and any(
            isinstance(arg, ast.Name) and arg.id in handles for arg in node.args[1:]
        ):
            return False
    return True


def _handle_names(function: FunctionNode, call: ast.Call) -> set[str]:
    """The names ``call``'s file object is bound to: ``with open(…) as f``, ``f = open(…)``."""
    names: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.With | ast.AsyncWith):
            for item in node.items:
                if item.context_expr is call and isinstance(item.optional_vars, ast.Name):
                    names.add(item.optional_vars.id)
        elif isinstance(node, ast.Assign) and node.value is call:
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names
