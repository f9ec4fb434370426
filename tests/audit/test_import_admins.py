"""django-import-export's two-step admin import (import_admins.py): the file the preview
keeps in a temp folder on this host, read back by the confirm on whatever instance
serves it. One finding at the INSTALLED_APPS line, the admins that import related."""

from __future__ import annotations

from pathlib import Path

import pytest

from horizontal.audit.import_admins import admin_lines
from tests.audit.test_outside_measurements import scan

SETTINGS = """\
INSTALLED_APPS = [
    "django.contrib.admin",
    "import_export",
    "shop",
]
CACHES = {"default": {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": "redis://r"}}
STORAGES = {"default": {"BACKEND": "storages.backends.s3.S3Storage"}}
{extra}
"""
MODELS = (
    "from django.db import models\n\n\nclass Book(models.Model):\n    title = models.TextField()\n"
)
IMPORTING_ADMIN = """\
from django.contrib import admin
from import_export.admin import ImportExportModelAdmin

from shop.models import Book


@admin.register(Book)
class BookAdmin(
    admin.ModelAdmin,
    ImportExportModelAdmin,
):
    list_display = ["title"]
"""
EXPORTING_ADMIN = """\
from django.contrib import admin
from import_export.admin import ExportMixin

from shop.models import Book


@admin.register(Book)
class BookAdmin(ExportMixin, admin.ModelAdmin):
    list_display = ["title"]
"""


def _temp_storage(tmp_path: Path, admin: str, extra: str = "") -> list[tuple[str, int, list]]:
    files = {
        "project/settings.py": SETTINGS.replace("{extra}", extra),
        "shop/models.py": MODELS,
        "shop/admin.py": admin,
    }
    return [
        (f.path, f.line, [(r.path, r.line) for r in f.related])
        for f in scan(tmp_path, files)
        if "IMPORT_EXPORT_TMP_STORAGE_CLASS" in f.message
    ]


def test_an_importing_admin_on_the_default_temp_folder_is_found_once(tmp_path: Path) -> None:
    # At the app's line, the base that makes the admin import related (line 10 of a
    # base list that spans lines).
    assert _temp_storage(tmp_path, IMPORTING_ADMIN) == [
        ("project/settings.py", 3, [("shop/admin.py", 10)])
    ]


def test_a_temp_folder_set_explicitly_is_found(tmp_path: Path) -> None:
    extra = 'IMPORT_EXPORT_TMP_STORAGE_CLASS = "import_export.tmp_storages.TempFolderStorage"'
    found = _temp_storage(tmp_path, IMPORTING_ADMIN, extra)
    assert [(path, line) for path, line, _ in found] == [("project/settings.py", 8)]


@pytest.mark.parametrize(
    "extra",
    [
        'IMPORT_EXPORT_TMP_STORAGE_CLASS = "import_export.tmp_storages.CacheStorage"',
        'IMPORT_EXPORT_TMP_STORAGE_CLASS = "import_export.tmp_storages.MediaStorage"',
        "IMPORT_EXPORT_SKIP_ADMIN_CONFIRM = True",
    ],
)
def test_a_shared_temp_storage_or_a_one_request_import_is_silent(
    tmp_path: Path, extra: str
) -> None:
    assert _temp_storage(tmp_path, IMPORTING_ADMIN, extra) == []


def test_an_export_only_project_is_not_told_about_the_default(tmp_path: Path) -> None:
    assert _temp_storage(tmp_path, EXPORTING_ADMIN) == []


def test_admin_lines_skip_one_request_admins_and_names_that_only_mention_imports() -> None:
    listed = '    list_display = ["title"]'
    own_storage = IMPORTING_ADMIN.replace(listed, listed + "\n    skip_import_confirm = True")
    assert admin_lines("shop/admin.py", own_storage) == []
    permission = "class BookView(ImportPermissionMixin, FormView):\n    pass\n"
    field = "class ImportIdentityField(ImportFieldGetURLMixin, IdentityField):\n    pass\n"
    assert admin_lines("shop/views.py", permission + field) == []
    subclass = "class PageImportMixin(ImportMixin):\n    pass\n"
    assert [p.line for p in admin_lines("shop/admin.py", subclass)] == [1]


def test_the_confirm_skipped_in_settings_reads_its_value(tmp_path: Path) -> None:
    # As the deploy check reads it: True skips the temp folder, False does not.
    temp = 'IMPORT_EXPORT_TMP_STORAGE_CLASS = "import_export.tmp_storages.TempFolderStorage"'
    skipped = "IMPORT_EXPORT_SKIP_ADMIN_CONFIRM = True"
    assert _temp_storage(tmp_path / "a", IMPORTING_ADMIN, f"{temp}\n{skipped}") == []
    kept = "IMPORT_EXPORT_SKIP_ADMIN_CONFIRM = False"
    assert len(_temp_storage(tmp_path / "b", IMPORTING_ADMIN, kept)) == 1


def test_the_app_named_through_a_list_or_its_app_config(tmp_path: Path) -> None:
    split = SETTINGS.replace(
        'INSTALLED_APPS = [\n    "django.contrib.admin",\n    "import_export",\n    "shop",\n]',
        'THIRD_PARTY = ["import_export.apps.ImportExportConfig"]\n'
        'INSTALLED_APPS = ["django.contrib.admin", "shop"] + THIRD_PARTY',
    )
    files = {"project/settings.py": split.replace("{extra}", ""), "shop/models.py": MODELS}
    files["shop/admin.py"] = IMPORTING_ADMIN
    found = [f for f in scan(tmp_path, files) if "IMPORT_EXPORT_TMP" in f.message]
    assert [(f.path, f.line) for f in found] == [("project/settings.py", 1)]


def test_admins_registered_as_is_or_with_calls_in_their_bases() -> None:
    registered = "admin.site.register(Book, ImportExportModelAdmin)\n"
    assert [p.line for p in admin_lines("shop/admin.py", registered)] == [1]
    called = "class A(make_mixin(), ImportMixin):\n    pass\n"
    assert [p.line for p in admin_lines("shop/admin.py", called)] == [1]
    one_line = "class A(ImportMixin, admin.ModelAdmin): skip_import_confirm = True\n"
    assert admin_lines("shop/admin.py", one_line) == []
    # A storage of its own keeps the import off this host only when it is shared.
    own = "class A(ImportMixin):\n    tmp_storage_class = {storage}\n"
    assert admin_lines("shop/admin.py", own.format(storage="CacheStorage")) == []
    assert len(admin_lines("shop/admin.py", own.format(storage="TempFolderStorage"))) == 1


def test_an_admin_inheriting_the_skip_from_a_project_base_is_one_request(tmp_path: Path) -> None:
    base = (
        "from import_export.admin import ImportExportModelAdmin\n\n\n"
        "class ShopImportAdmin(ImportExportModelAdmin):\n    skip_import_confirm = True\n"
    )
    books = (
        "from django.contrib import admin\n\nfrom shop.bases import ShopImportAdmin\n\n\n"
        "class BookAdmin(ShopImportAdmin):\n    pass\n"
    )
    files = {
        "project/settings.py": SETTINGS.replace("{extra}", ""),
        "shop/models.py": MODELS,
        "shop/bases.py": base,
        "shop/admin.py": books,
    }
    found = [f for f in scan(tmp_path, files) if "IMPORT_EXPORT_TMP" in f.message]
    assert found == []
    # Its twin: the base keeps the confirm, so the admin built on it imports in two steps.
    files["shop/bases.py"] = base.replace("skip_import_confirm = True", "pass")
    found = [f for f in scan(tmp_path / "twin", files) if "IMPORT_EXPORT_TMP" in f.message]
    assert [r.path for r in found[0].related] == ["shop/admin.py", "shop/bases.py"]
