"""Deploy warning ``horizontal.W055``: django-import-export's pending import kept on one host.

The admin import is two requests. The preview stores the uploaded file in the temporary
storage, ``IMPORT_EXPORT_TMP_STORAGE_CLASS``, by default ``TempFolderStorage``: a file in
this host's temp folder. The confirm reads it back by name, and the load balancer may
send it to another instance, which has no such file. The storage is the catalogue's
(``horizontal.audit.known``), matched by class. Leaving the default warns only where the
project's code has an admin that imports (``horizontal.audit.import_admins``, as the
audit judges it): an export-only project keeps nothing between requests.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.apps import AppConfig, apps
from django.conf import settings
from django.core import checks
from django.core.checks import CheckMessage

from horizontal.audit import known
from horizontal.checks._base import TAG, register
from horizontal.checks._classes import is_a, is_overridden

__all__ = ["W055", "check_import_temp_storage", "project_imports_in_two_requests"]

TEMP_FOLDERS = known.paths(known.IMPORT_TEMP_FILES)
SETTING = known.IMPORT_TEMP_FILES[0].setting
# django-import-export 4: the import runs in the request that uploads the file.
ONE_REQUEST = "IMPORT_EXPORT_SKIP_ADMIN_CONFIRM"

W055 = checks.Warning(
    "django-import-export keeps pending imports in this host's temp folder.",
    hint="IMPORT_EXPORT_TMP_STORAGE_CLASS = 'import_export.tmp_storages.CacheStorage' (on "
    "the shared cache) or '…MediaStorage' (on S3), or IMPORT_EXPORT_SKIP_ADMIN_CONFIRM = True.",
    obj=SETTING,
    id="horizontal.W055",
)


@register(TAG, deploy=True)
def check_import_temp_storage(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    if not apps.is_installed(known.IMPORT_EXPORT_APP) or getattr(settings, ONE_REQUEST, False):
        return []
    if is_overridden(SETTING):
        return [W055] if is_a(getattr(settings, SETTING), TEMP_FOLDERS) else []
    # The default left in place: a warning where an admin imports (or no code to read).
    return [W055] if project_imports_in_two_requests(app_configs) is not False else []


def project_imports_in_two_requests(app_configs: Iterable[AppConfig] | None) -> bool | None:
    """Whether the project's own code defines an admin that imports through the
    temporary storage; None when there is no project code to read."""
    from horizontal.checks.code import project_app_paths

    paths = project_app_paths(app_configs)
    if not paths:
        return None
    from horizontal.audit.import_admins import (
        import_admins,
        two_request_places,
        uses_import_admins,
    )
    from horizontal.audit.tree import iter_files, read_text

    admins = []
    for root in paths:
        for path in iter_files(root):
            if path.suffix != ".py":
                continue
            text = read_text(path)
            if text and uses_import_admins(text):
                admins += import_admins(path.as_posix(), text)
    # An admin that inherits the skip from a project's base in another module is judged
    # with every module read.
    return bool(two_request_places(admins))
