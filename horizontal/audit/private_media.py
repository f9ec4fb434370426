"""django-privates: private files on this host's disk, decided by ``PRIVATE_MEDIA_ROOT``.

``PrivateMediaFileField`` and ``PrivateMediaFileSystemStorage`` keep their files in a
``FileSystemStorage`` under ``PRIVATE_MEDIA_ROOT``, whatever ``STORAGES`` says: a
certificate or report saved on one instance is missing on the others (and from the
``SENDFILE_ROOT`` that serves them). One root cause, decided where production assigns
that folder; the fields and storages the code builds are its related places. The
settings rule is ``settings_library_files.private_media_root``; a project whose code uses none of
django-privates' classes is not told (the runner lists the setting as unused).
"""

from __future__ import annotations

from horizontal.audit.findings import Finding, Location
from horizontal.audit.patterns import lazy_compile

__all__ = ["PRIVATE_MEDIA_MESSAGE", "USES", "use_lines", "with_private_media_uses"]

PRIVATE_MEDIA_MESSAGE = (
    "PRIVATE_MEDIA_ROOT: django-privates keeps private files in a FileSystemStorage on "
    "this host's disk: other instances cannot open or serve them"
)
USES = "PrivateMedia"  # PrivateMediaFileField, PrivateMediaFileSystemStorage
BUILT = lazy_compile(r"\bPrivateMedia\w*\(")
USES_SHOWN = 20  # related places enough to find the fields; a large project has hundreds


def use_lines(name: str, text: str) -> list[Location]:
    """Where a module builds django-privates' fields or storage."""
    return [
        Location(name, number, line.strip())
        for number, line in enumerate(text.splitlines(), 1)
        if USES in line and BUILT.search(line)
    ]


def with_private_media_uses(findings: list[Finding], uses: list[Location]) -> list[Finding]:
    """The ``PRIVATE_MEDIA_ROOT`` finding with the places the code builds django-privates'
    fields and storages (``uses``) related, and the local-storage findings on them folded
    in."""
    anchor = next((f for f in findings if f.message == PRIVATE_MEDIA_MESSAGE), None)
    if anchor is None:
        return findings
    folded = [f for f in findings if f.category == "file-write" and USES in f.source]
    places = [Location(f.path, f.line, f.source) for f in folded]
    seen = {(p.path, p.line) for p in places}
    places += [u for u in uses if (u.path, u.line) not in seen]
    merged = anchor._replace(related=(*anchor.related, *places))
    absorbed = {id(f) for f in folded}
    return [merged if f is anchor else f for f in findings if id(f) not in absorbed]
