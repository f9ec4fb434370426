"""Settings of libraries that keep files on this host's disk beyond uploads: django-rosetta
(translators' edits written into the locale files of the instance that served them) and
django-privates (its private folder, served by django-sendfile). Read with the other
settings rules of a production module (settings_modules.py); parsed source only.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from horizontal.audit.findings import Finding, Location
from horizontal.audit.private_media import PRIVATE_MEDIA_MESSAGE
from horizontal.audit.settings_rules import FIXES, _finding, _installed_at
from horizontal.audit.source import PythonModule

__all__ = ["private_media_root", "translations_edited_on_this_host"]

ROSETTA_APP = "rosetta"
ROSETTA_MESSAGE = (
    "rosetta: django-rosetta writes translators' edits into this host's locale files: "
    "the other instances keep serving the old translations"
)
SENDFILE_SETTINGS = ("SENDFILE_ROOT", "SENDFILE_BACKEND")


def translations_edited_on_this_host(
    module: PythonModule, settings: dict[str, list[ast.stmt]]
) -> Iterator[Finding]:
    """django-rosetta installed for production: a translator's save writes the ``.po`` and
    ``.mo`` files of the instance that served it (its ``LOCALE_PATHS`` related)."""
    installed_at = _installed_at(settings, ROSETTA_APP)
    if not installed_at:
        return
    locale = [Location(module.path, s.lineno) for s in settings.get("LOCALE_PATHS", [])]
    yield _finding(module, installed_at, ROSETTA_MESSAGE, FIXES["rosetta"])._replace(
        related=tuple(locale)
    )


def private_media_root(
    module: PythonModule, settings: dict[str, list[ast.stmt]]
) -> Iterator[Finding]:
    """django-privates' folder (``private_media.py``): its files are on this host's disk,
    served from there by django-sendfile's ``SENDFILE_ROOT`` when it is set beside it."""
    statements = settings.get("PRIVATE_MEDIA_ROOT")
    if not statements:
        return
    served = [s.lineno for name in SENDFILE_SETTINGS for s in settings.get(name, [])]
    yield _finding(
        module, statements[-1].lineno, PRIVATE_MEDIA_MESSAGE, FIXES["PRIVATE_MEDIA_ROOT"]
    )._replace(related=tuple(Location(module.path, line) for line in served))
