"""django-import-export's two-step admin import: the file kept between two requests.

An admin with an import mixin (``ImportMixin``, ``ImportExportModelAdmin``, a project's
subclass of them) reads the upload at the preview, keeps it in the temporary storage
(``IMPORT_EXPORT_TMP_STORAGE_CLASS``, by default ``TempFolderStorage``: a folder on this
host) and reads it back by name at the confirm, which the load balancer may send to
another instance. One root cause, decided in settings (``settings_rules``, the
catalogue's ``known.IMPORT_TEMP_FILES``); the admins that import are its related
places. A project whose code has no such admin (export only) is not told when it merely
left the default; the deploy check ``horizontal.W055`` judges the same way.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from horizontal.audit.findings import Finding, Location
from horizontal.audit.known import IMPORT_TEMP_FILES
from horizontal.audit.patterns import lazy_compile

__all__ = [
    "NOT_SET_MESSAGE",
    "SKIPPED_IN_SETTINGS",
    "USES",
    "USES_SHOWN",
    "ImportAdmin",
    "admin_lines",
    "import_admins",
    "two_request_places",
    "uses_import_admins",
    "with_import_admins",
]

DEFAULT = IMPORT_TEMP_FILES[0]
NOT_SET_MESSAGE = f"{DEFAULT.setting} is not set, so {DEFAULT.why}"
USES = "Import"  # a cheap first test; ``uses_import_admins`` is the real one
# A class whose bases name an import mixin or admin: ``ImportMixin``,
# ``ImportExportMixin``, ``ImportExportModelAdmin``, ``ImportExportActionModelAdmin``,
# a project's ``PageImportMixin``; not ``ExportMixin`` alone, which imports nothing, nor
# mixins that merely mention imports (``ImportPermissionMixin``).
# (One level of nested parentheses in the bases: ``class A(make_mixin(), ImportMixin):``.)
CLASS_WITH_BASES = lazy_compile(
    r"^([ \t]*)class\s+\w+\s*\(((?:[^()]|\([^()]*\))*)\)\s*:(.*)$", re.M
)
# ``admin.site.register(Book, ImportExportModelAdmin)``: the library's admin as is.
CLASS_NAME = lazy_compile(r"[ \t]*class\s+(\w+)")
REGISTERED = lazy_compile(
    r"\bregister\(\s*[\w.]+\s*,\s*"
    r"(\w*Import(?:Export)?(?:Action)?(?:Version)?(?:Model)?Admin)\b"
)
IMPORT_BASE = lazy_compile(
    r"\b\w*Import(?:Export)?(?:Action)?(?:Version)?(?:Model)?(?:Mixin|Admin)\b"
)
# Per admin, the import done in one request (django-import-export 4), or a shared
# storage of its own: nothing kept in this host's temp folder between requests.
ONE_REQUEST = lazy_compile(
    r"(?:^|:)\s*(?:skip_import_confirm\s*=\s*True|tmp_storage_class\s*=[^\n]*(?:Cache|Media)Storage)",
    re.M,
)
# In settings: the confirm skipped for every admin (django-import-export 4).
SKIPPED_IN_SETTINGS = lazy_compile(r"^IMPORT_EXPORT_SKIP_ADMIN_CONFIRM\s*=\s*True\b", re.M)
USES_SHOWN = 20  # enough to find the admins; a large project has dozens


# An import base anywhere in a text: a literal prefix, so a file is searched fast.
IMPORT_BASE_ANYWHERE = lazy_compile(
    r"Import(?:Export)?(?:Action)?(?:Version)?(?:Model)?(?:Mixin|Admin)\b"
)


def uses_import_admins(text: str) -> bool:
    """Whether ``text`` may define or register an importing admin (``ImportError`` is no
    sign of one)."""
    return USES in text and IMPORT_BASE_ANYWHERE.search(text) is not None


class ImportAdmin(NamedTuple):
    """An admin class (or registration) with an import base: where, the base it names,
    its own name, and whether it imports in one request (``skip_import_confirm``)."""

    place: Location
    base: str
    name: str
    one_request: bool


def import_admins(name: str, text: str) -> list[ImportAdmin]:
    """The admins module ``name`` defines or registers with an import base, placed at the
    line naming the base (a long base list spans lines)."""
    found = []
    for match in CLASS_WITH_BASES.finditer(text):
        base = IMPORT_BASE.search(match.group(2))
        if base is None:
            continue
        place = _place(name, text, match.start(2) + base.start())
        own = CLASS_NAME.match(text, match.start()).group(1)  # type: ignore[union-attr]
        found.append(ImportAdmin(place, base.group(0), own, _imports_in_one_request(text, match)))
    for registered in REGISTERED.finditer(text):
        found.append(ImportAdmin(_place(name, text, registered.start(1)), "", "", False))
    return found


def two_request_places(admins: list[ImportAdmin]) -> list[Location]:
    """Where the admins that keep an import between two requests are: not those that
    skip the confirm, nor those whose base is a project's admin that does
    (``class BookAdmin(ShopImportAdmin)`` under ``skip_import_confirm = True``)."""
    skipping = {admin.name for admin in admins if admin.one_request}
    while True:  # through the project's own chain of bases
        more = {a.name for a in admins if a.base in skipping and a.name not in skipping}
        if not more:
            break
        skipping |= more
    return sorted(a.place for a in admins if a.name not in skipping and a.base not in skipping)


def admin_lines(name: str, text: str) -> list[Location]:
    """Where module ``name`` defines an admin that imports in two requests."""
    return two_request_places(import_admins(name, text))


def _place(name: str, text: str, offset: int) -> Location:
    number = text.count("\n", 0, offset) + 1
    return Location(name, number, text.splitlines()[number - 1].strip())


def _imports_in_one_request(text: str, match: re.Match[str]) -> bool:
    """The class body (up to the next line indented as the class or less) says so."""
    indent = len(match.group(1))
    body = [match.group(3)]  # ``class A(ImportMixin): skip_import_confirm = True``
    for line in text[match.end() :].splitlines()[1:]:
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        body.append(line)
    return ONE_REQUEST.search("\n".join(body)) is not None


def with_import_admins(
    findings: list[Finding], admins: list[ImportAdmin], code_read: bool, skipped: bool = False
) -> list[Finding]:
    """The temporary storage's finding with the admins that import in two requests
    related (the first ``USES_SHOWN``); none where a settings module skips the confirm
    (``skipped``), and the default left in place is dropped where the project's code was
    read and no admin imports."""
    uses = two_request_places(admins)[:USES_SHOWN]
    out = []
    for finding in findings:
        if finding.category == "settings" and finding.message.startswith(DEFAULT.setting):
            if skipped or (finding.message == NOT_SET_MESSAGE and code_read and not uses):
                continue
            finding = finding._replace(related=(*finding.related, *uses))
        out.append(finding)
    return out
