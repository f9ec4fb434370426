"""file-write, the storage side: uploads kept by ``FileSystemStorage`` or under ``MEDIA_ROOT``.

A ``FileSystemStorage`` built in code for uploaded content, ``storage.path()`` (which only
local storage has) and paths built from ``settings.MEDIA_ROOT`` tie files to one host's
disk. Not reported: the storage class itself (choosing it in settings is the finding), a
storage opened only to read files shipped in the image, ``MEDIA_ROOT`` handed to a
storage's own method, and a path built only to measure its length. ``files.py`` runs
this with the other file-write rules.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence

from horizontal.audit.field_paths import UPLOAD_PATH_READ
from horizontal.audit.findings import Finding, Location, distinct_places
from horizontal.audit.patterns import find_all, lazy_compile
from horizontal.audit.served_folders import SENDFILE_SERVED
from horizontal.audit.source import (
    FunctionNode,
    PythonModule,
    call_name,
    dotted,
    keyword,
    last_part,
)
from horizontal.audit.staged_files import copied_from_storage
from horizontal.audit.storage_classes import CLASS_FINDING
from horizontal.audit.temp_paths import TEMP_HELPER
from horizontal.audit.web_servers import MEDIA_FROM_DISK

__all__ = [
    "MEDIA_ROOT_BY_PATH",
    "STORAGE_PATH",
    "find_local_storage",
    "storage_with_its_consequences",
    "storage_with_its_setting",
]

# (Not ``mkdir()`` or ``exists()``: the media folder made or checked, no upload in it.)
PATH_METHODS = frozenset(
    {"joinpath", "glob", "rglob", "iterdir", "open", "read_bytes", "read_text", "walk"}
    | {"write_bytes", "write_text", "unlink"}
)
PATH_BUILDERS = frozenset(
    {"join", "Path", "PurePath", "walk", "listdir", "scandir", "glob", "iglob", "open", "exists"}
)


def _builds_local_path(module: PythonModule, media_root: ast.expr) -> bool:
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
        if isinstance(node, ast.Attribute) and node.value is media_root:
            # A Path setting used as one: ``settings.MEDIA_ROOT.joinpath(name)``, ``.glob(…)``.
            return node.attr in PATH_METHODS
        if isinstance(node, ast.Call) and media_root in node.args:
            name = node.func.attr if isinstance(node.func, ast.Attribute) else dotted(node.func)
            return last_part(name) in PATH_BUILDERS or (name or "").startswith("shutil")
    return False


def _handed_to_a_storage(module: PythonModule, media_root: ast.expr) -> bool:
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


def _only_measured(function: FunctionNode, media_root: ast.expr) -> bool:
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
    if location is None or "MEDIA" in module.segment(location):
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
        for position in find_all(module.text, f"{name}."):
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


def _in_storage_class(module: PythonModule, node: ast.AST) -> bool:
    """Inside a class that is a storage (``class MediaStorage(FileSystemStorage)``)."""
    cls = module.scope(node).cls
    return cls is not None and any((dotted(base) or "").endswith("Storage") for base in cls.bases)


def find_local_storage(module: PythonModule) -> Iterator[Finding]:
    for call in module.nodes(ast.Call):
        assert isinstance(call, ast.Call)
        name = call_name(module, call) or ""
        # FileSystemStorage or a subclass named for it (ThumbnailFileSystemStorage).
        local = last_part(name).endswith("FileSystemStorage")
        if local and not _read_only_storage(module, call):
            yield _file_write(
                module,
                call.lineno,
                "FileSystemStorage keeps uploads on this host's disk: other instances "
                "serve 404 for them",
            )
        elif _local_storage_path(name):
            yield _file_write(
                module,
                call.lineno,
                STORAGE_PATH,
            )
    if module.is_script:
        # A command's MEDIA_ROOT paths are its operator's (a cleanup, an import, test
        # data); a command filling a folder that requests read is judged at the read
        # (datadirs.py).
        return
    for node in _media_roots(module):
        if module.scope(node).function is None or not _builds_local_path(module, node):
            continue
        if _in_storage_class(module, node):
            continue  # the storage backend itself: choosing it in settings is the finding
        if _handed_to_a_storage(module, node):
            continue  # default_storage.exists(join(MEDIA_ROOT, name)): the storage decides
        if _scratch_of_a_storage(module, node):
            continue
        if _resolves_page_resources(module, node):
            continue  # xhtml2pdf's link_callback: where a rendered page's images are
        yield _file_write(module, node.lineno, MEDIA_ROOT_BY_PATH)


def _media_roots(module: PythonModule) -> Iterator[ast.expr]:
    """``settings.MEDIA_ROOT``, and ``MEDIA_ROOT`` where the module imports it from a
    settings module (``from mysite.settings import MEDIA_ROOT``)."""
    for node in module.nodes(ast.Attribute):
        assert isinstance(node, ast.Attribute)
        if node.attr == "MEDIA_ROOT" and dotted(node.value) == "settings":
            yield node
    if not _imports_media_root(module):
        return
    for node in module.nodes(ast.Name):
        assert isinstance(node, ast.Name)
        if node.id == "MEDIA_ROOT" and isinstance(node.ctx, ast.Load):
            yield node


def _imports_media_root(module: PythonModule) -> bool:
    if "import" not in module.text or "MEDIA_ROOT" not in module.text:
        return False
    return any(
        isinstance(node, ast.ImportFrom)
        # ``mysite.settings``, ``config.settings.production``; not ``reports.app_settings``,
        # an app's own constants.
        and "settings" in (node.module or "").split(".")
        and any(alias.name == "MEDIA_ROOT" and alias.asname is None for alias in node.names)
        for node in module.tree.body
    )


def _resolves_page_resources(module: PythonModule, node: ast.AST) -> bool:
    """``def link_callback(uri, rel)``, the PDF renderer's hook (xhtml2pdf) that maps a
    page's ``MEDIA_URL``/``STATIC_URL`` links to files: it follows where the files are,
    and decides nothing about it (measured: six such hooks in the corpus, none labelled)."""
    function = module.scope(node).function
    if function is None:
        return False
    arguments = {a.arg for a in (*function.args.posonlyargs, *function.args.args)}
    body = "\n".join(module.lines[function.lineno - 1 : function.end_lineno])
    return "uri" in arguments and "MEDIA_URL" in body and "STATIC" in body


def _scratch_of_a_storage(module: PythonModule, node: ast.AST) -> bool:
    """A working copy of a file the storage keeps (``local.write(stored.read())``), or a
    helper named for the temp folder it makes there (``get_tmp_local_path()``)."""
    function = module.scope(node).function
    return function is not None and (
        copied_from_storage(function) or bool(TEMP_HELPER.search(function.name))
    )


MEDIA_ROOT_BY_PATH = "reads or writes files under MEDIA_ROOT directly: uploads on one host's disk"
STORAGE_PATH = "storage.path() only exists for local storage: the file is on one host"


def _file_write(module: PythonModule, line: int, message: str) -> Finding:
    return Finding(module.path, line, "file-write", message, module.line(line))


# The findings above for a storage class, or a FileSystemStorage built in code.
STORAGE_CLASS_MESSAGES = (
    CLASS_FINDING.strip(),
    "FileSystemStorage keeps uploads",
)
# The setting's value names the storage (``DEFAULT_FILE_STORAGE = "app.storage.Images"``).
DOTTED_VALUE = lazy_compile(r"[\"']([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+)[\"']")


def storage_with_its_setting(findings: list[Finding]) -> list[Finding]:
    """A project's ``FileSystemStorage`` (its class, or a factory's ``FileSystemStorage(…)``)
    that a settings module chooses for uploads is the setting's root cause: one finding,
    at the setting (where production's choice is made), the module's storage places
    related."""
    settings = [
        f for f in findings if f.category == "settings" and f.message.startswith("STORAGES[")
    ]
    if not settings:
        return findings
    merged: dict[int, Finding] = {}
    absorbed: set[int] = set()
    for setting in settings:
        for value in DOTTED_VALUE.findall(setting.source):
            module = value.rsplit(".", 1)[0].replace(".", "/")
            places = [
                f
                for f in findings
                if f.category == "file-write"
                and any(m in f.message for m in STORAGE_CLASS_MESSAGES)
                and (f.path.endswith(f"{module}.py") or f.path.endswith(f"{module}/__init__.py"))
                and id(f) not in absorbed
            ]
            if places:
                absorbed.update(id(f) for f in places)
                current = merged.get(id(setting), setting)
                merged[id(setting)] = current._replace(
                    related=(
                        *current.related,
                        *(Location(f.path, f.line, f.source) for f in places),
                    )
                )
    return [merged.get(id(f), f) for f in findings if id(f) not in absorbed]


# What only works while uploads are on this disk: reads of an upload by its local path
# (field_paths.py), ``storage.path()``, django-sendfile serving a path, and files read or
# written under MEDIA_ROOT by path (``os.path.join(settings.MEDIA_ROOT, …)``).
LOCAL_PATH_USES = (UPLOAD_PATH_READ, STORAGE_PATH, SENDFILE_SERVED, MEDIA_ROOT_BY_PATH)
# The settings findings that say the project's uploads are on this host's disk.
# Said of a project with no MEDIA_ROOT (settings_rules.py): true only where something
# stores uploads.
NOTHING_SET = "MEDIA_ROOT is not set and no STORAGES"
LOCAL_UPLOADS_SETTINGS = (
    "STORAGES['default']",
    "MEDIA_ROOT with no STORAGES",
    "STORAGES is Django's default",
    NOTHING_SET,
)
BUILT_CLASS = lazy_compile(r"\b(\w+)\(")
# ``storage = FileSystemStorage()`` with no location: it keeps files in MEDIA_ROOT, where
# the setting already keeps them; one cause with it.
DEFAULT_LOCATION_STORAGE = lazy_compile(r"\bFileSystemStorage\(\s*\)")


def _local_uploads(findings: list[Finding]) -> list[Finding]:
    return [
        f
        for f in findings
        if f.category == "settings" and f.message.startswith(LOCAL_UPLOADS_SETTINGS)
    ]


def storage_with_its_consequences(
    findings: list[Finding], upload_fields: Sequence[Location] = ()
) -> list[Finding]:
    """One root cause, one finding: where production keeps uploads on this disk (a
    settings finding), the code that reads uploads by their local path is the same
    problem, fixed with it (``storage.open(name)`` instead of ``.path`` once the storage
    is shared), and a ``FileSystemStorage()`` built with no location (MEDIA_ROOT), are
    the same problem: those findings become related locations of the setting's, as do the
    model fields that store uploads on the default storage (``upload_fields``). And a
    project's own ``FileSystemStorage`` subclass built in code (``fs =
    JanewayFileSystemStorage()``, reported by its name) is related to the class's finding.

    Where no setting keeps uploads local (the storage comes from the environment, or is
    remote), the path reads stand alone: they are what breaks when it is shared.
    """
    findings = _built_into_their_class(findings)
    local = _local_uploads(findings)
    nothing_set = [f for f in local if f.message.startswith(NOTHING_SET)]
    if nothing_set and (not upload_fields or len(nothing_set) < len(local)):
        # No model stores uploads, or another module's setting keeps them local: the
        # missing MEDIA_ROOT is no problem of its own.
        findings = [f for f in findings if not f.message.startswith(NOTHING_SET)]
        local = [f for f in local if not f.message.startswith(NOTHING_SET)]
    anchor = local[0] if local else None
    if anchor is None:
        return findings
    folded = [
        f
        for f in findings
        if f.category == "file-write"
        and (f.message.startswith(LOCAL_PATH_USES) or DEFAULT_LOCATION_STORAGE.search(f.source))
    ]
    # The proxy's ``location /media/ { alias … }`` (nginx, Caddy) serves the folder that
    # setting fills: moved to the shared storage, the uploads' URLs are the storage's and
    # the block serves nothing. One cause, fixed at the setting. (uWSGI's static-map is
    # the app server serving uploads itself: reported on its own, as the views that
    # serve MEDIA_ROOT are.)
    served = [f for f in findings if f.message == MEDIA_FROM_DISK]
    if not folded and not served:
        if not upload_fields:
            return findings
        fields = anchor._replace(related=(*anchor.related, *upload_fields))
        return [fields if f is anchor else f for f in findings]
    code = [Location(f.path, f.line, f.source) for f in folded]
    code += [place for f in folded for place in f.related]
    # Two uses on one line (``default_storage.path(self.script.path)``) are one place.
    code = distinct_places(code)
    served_places = [
        place for f in served for place in (Location(f.path, f.line, f.source), *f.related)
    ]
    notes = [_code_places(len(code))] if code else []
    fix = anchor.fix or ""
    if code:
        fix += (
            " Then open uploads through the storage (storage.open(name), .url) where the "
            "related places use their local path."
        )
    if served:
        notes.append("and the web server that serves them from this folder")
        fix += " The web server's media block then serves nothing: remove it."
    merged = anchor._replace(
        message=f"{anchor.message} ({', '.join(notes)})",
        related=(*anchor.related, *code, *served_places, *upload_fields),
        fix_text=fix,
    )
    absorbed = {id(f) for f in (*folded, *served)}
    return [merged if f is anchor else f for f in findings if id(f) not in absorbed]


def _code_places(count: int) -> str:
    noun = "place in code that uses" if count == 1 else "places in code that use"
    return f"and {count} {noun} uploads by their local path"


def _built_into_their_class(findings: list[Finding]) -> list[Finding]:
    """``JanewayFileSystemStorage()`` built in code, where the project defines
    ``class JanewayFileSystemStorage(FileSystemStorage)``: related to the class's finding."""
    classes = {
        f.message.split(" ", 1)[0]: f
        for f in findings
        if f.category == "file-write" and STORAGE_CLASS_MESSAGES[0] in f.message
    }
    if not classes:
        return findings
    built: dict[int, list[Finding]] = {}
    absorbed: set[int] = set()
    for finding in findings:
        if not finding.message.startswith(STORAGE_CLASS_MESSAGES[1]):
            continue
        owner = next(
            (classes[name] for name in BUILT_CLASS.findall(finding.source) if name in classes),
            None,
        )
        if owner is not None:
            built.setdefault(id(owner), []).append(finding)
            absorbed.add(id(finding))
    if not built:
        return findings
    merged = {
        id(owner): owner._replace(
            related=(
                *owner.related,
                *(Location(f.path, f.line, f.source) for f in built.get(id(owner), [])),
            )
        )
        for owner in classes.values()
    }
    return [merged.get(id(f), f) for f in findings if id(f) not in absorbed]
