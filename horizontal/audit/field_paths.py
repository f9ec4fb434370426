"""Uploaded files read by their local path: ``document.file.path``.

A ``FieldFile`` has a ``.path`` only on ``FileSystemStorage``; S3 and every other remote
storage raise ``NotImplementedError``. Code that reads ``instance.<field>.path`` (to open
it, hand it to a converter, a subprocess or a task) needs the upload on this disk, and
switching ``STORAGES`` does not fix it: the code must ``open()`` the field instead.

The field names come from the models, the uses from any module, so each module reports
both and the run pairs them (``Scan.finish``), as ``datadirs`` does for data folders.
Only text is read (a regex over lines): a ``.path`` use does not make a module worth
parsing, and the field declaration is one line.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import NamedTuple

from horizontal.audit.findings import Finding, Location
from horizontal.audit.patterns import find_all, lazy_compile

# ``file = models.FileField(...)``, ``photo = ThumbnailerImageField(...)`` in a class body.
FILE_FIELD = lazy_compile(r"^\s+(\w+)\s*(?::[^=]+)?=\s*(?:[\w.]+\.)?\w*(?:FileField|ImageField)\(")
# A form's or serializer's file field holds the request's upload (``document =
# forms.FileField()``); it usually mirrors a model's field of the same name, which a
# library may declare (``ImportTask.csv_file``). Where the project's models declare that
# name as a relation instead (``document = models.OneToOneField("web.File")``, whose
# ``path`` column names an S3 key), ``x.document.path`` is no local path.
FORM_MODULE = lazy_compile(r"(^|/)(\w+_)?(forms|serializers|widgets|filters)(_\w+)?(\.py$|/)")
FORM_FIELD = lazy_compile(r"=\s*(forms|serializers|drf_fields|fields)\.\w+\(")
# What precedes ``ForeignKey(`` on its line in a class body: ``    document = models.``.
RELATION_TARGET = lazy_compile(r"^\s+(\w+)\s*(?::[^=]+)?=\s*(?:[\w.]+\.)?$")
RELATION_CALLS = ("ForeignKey(", "OneToOneField(")
# ``<something>.<name>.path`` not followed by more attribute access or a call (``.path.join``);
# ``<name>.file.name``, the open file's name, is the same local path on FileSystemStorage.
PATH_USE = lazy_compile(r"\.(\w+)(\.path|\.file\.name)\b(?![\w.(])")
PATH_MARKERS = (".path", ".file.name")
# Names that are never model fields' files: ``os.path``, ``request.path``, ``self.path``.
NOT_FIELDS = frozenset({"os", "request", "self", "url", "parsed", "urlparse", "sys"})


# A path named in a message: a logging call, a raised error, or a call's continuation line
# that starts with the message string (``"not found: %s", doc.file.path``).
# ``mimetypes.guess_type(doc.file.path)``, ``os.path.splitext(f.path)``: the path's name,
# not the file; it holds on any storage that has names.
NAME_ONLY = lazy_compile(r"\b(guess_type|splitext|basename)\(\s*[\w.]*$")
IN_MESSAGE = lazy_compile(
    r"\b(log|logger|logging|LOG|LOGGER|_logger|_log)\.(debug|info|warning|warn|error|exception|"
    r"critical)\(|\braise\s+\w+\(|^\s*(\"[^\"]*%[sr][^\"]*\"|'[^']*%[sr][^']*')\s*,"
)


class PathUse(NamedTuple):
    field: str
    path: str
    line: int
    source: str
    attribute: str = ".path"  # or ".file.name"


# A field's own storage (``storage=private_storage``); a field named ``log_file_storage``
# has none.
STORAGE_ARGUMENT = lazy_compile(r"\bstorage\s*=")
# ``storage=AWSMediaStorage()``: a field that names a remote storage of its own has no
# local path whatever STORAGES says (``.path`` on it is a dead or failing branch).
REMOTE_STORAGE = lazy_compile(
    r"\bstorage\s*=\s*[\w.]*(S3|AWS|Aws|GoogleCloud|GCS|Gcs|Azure|Cloud)\w*"
)


def upload_field_lines(name: str, text: str) -> list[Location]:
    """Where a models module declares a file or image field on the default storage (no
    ``storage=`` of its own): the places uploads are stored, related to the setting that
    keeps them on this disk."""
    if ("FileField" not in text and "ImageField" not in text) or FORM_MODULE.search(name):
        return []
    lines = text.splitlines()
    return [
        Location(name, index + 1, line.strip())
        for index, line in enumerate(lines)
        if FILE_FIELD.match(line)
        and not FORM_FIELD.search(line)
        and not STORAGE_ARGUMENT.search(_declaration(lines, index).partition("(")[2])
    ]


class FieldNames:
    """The file fields' names the project declares, and its relations' names."""

    def __init__(self) -> None:
        self.files: set[str] = set()  # in models
        self.forms: set[str] = set()  # in forms and serializers
        self.relations: set[str] = set()

    def note(self, name: str, text: str) -> None:
        for call in RELATION_CALLS:
            for position in find_all(text, call):
                line = text[text.rfind("\n", 0, position) + 1 : position]
                if match := RELATION_TARGET.match(line):
                    self.relations.add(match.group(1))
        if "FileField" in text or "ImageField" in text:
            form = bool(FORM_MODULE.search(name))
            for field, in_form in file_fields(text):
                (self.forms if form or in_form else self.files).add(field)

    def uploads(self) -> set[str]:
        return self.files | (self.forms - self.relations)


def file_fields(text: str) -> Iterator[tuple[str, bool]]:
    """The file and image fields a module declares, each with whether it is a form's, but
    for those declared with a remote storage of their own."""
    lines = text.splitlines()
    for index, line in enumerate(lines):
        match = FILE_FIELD.match(line)
        if match is None:
            continue
        # The declaration's arguments, up to its closing parenthesis (a few lines).
        declaration = _declaration(lines, index)
        if not REMOTE_STORAGE.search(declaration):
            yield match.group(1), bool(FORM_FIELD.search(line))


def _declaration(lines: list[str], start: int, most: int = 15) -> str:
    depth = 0
    taken: list[str] = []
    for line in lines[start : start + most]:
        code = line.split("#", 1)[0]
        taken.append(code)
        depth += code.count("(") - code.count(")")
        if depth <= 0:
            break
    return "\n".join(taken)


def path_uses(path: str, text: str) -> list[PathUse]:
    """Each ``x.<name>.path`` (or ``x.<name>.file.name``) of the module, outside comments."""
    if not any(marker in text for marker in PATH_MARKERS):
        return []
    uses: list[PathUse] = []
    for number, line in enumerate(text.splitlines(), start=1):
        code = line.split("#", 1)[0]
        if not any(marker in code for marker in PATH_MARKERS) or IN_MESSAGE.search(code):
            continue
        for match in PATH_USE.finditer(code):
            if NAME_ONLY.search(code, 0, match.start()):
                continue  # only the name is looked at (its type, its extension)
            if match.group(1) not in NOT_FIELDS:
                uses.append(PathUse(match.group(1), path, number, line.strip(), match.group(2)))
    return uses


# How an upload read by its local path is reported (local_storage.py relates such reads
# to the storage setting that keeps uploads local).
UPLOAD_PATH_READ = "reads the upload "


def local_path_reads(uses: Iterable[PathUse], fields: set[str]) -> Iterator[Finding]:
    """One finding per module that reads declared file fields' ``.path``: its first use,
    the others related (one module that needs uploads on this disk is one root cause,
    fixed by opening them through the storage)."""
    by_module: dict[str, list[PathUse]] = {}
    for use in uses:
        if use.field in fields:
            by_module.setdefault(use.path, []).append(use)
    for found in by_module.values():
        first, *others = found
        names = ", ".join(dict.fromkeys(f"{u.field}{u.attribute}" for u in found))
        yield Finding(
            first.path,
            first.line,
            "file-write",
            f"{UPLOAD_PATH_READ}{names} on the local disk: only FileSystemStorage has paths, "
            "so the file must be on this host",
            first.source,
            related=tuple(Location(u.path, u.line, u.source) for u in others),
            fix_text=f"Open the upload through its storage ({first.field}.open() or "
            "default_storage.open(name)); copy it to a temp file in the same function "
            "when a tool needs a path.",
        )
