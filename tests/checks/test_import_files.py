"""horizontal.W055: django-import-export's pending import kept in this host's temp folder."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from django.test import override_settings

from horizontal.checks import import_files
from tests.checks.baseline import (
    assert_follows_the_contract,
    assert_registered_deploy_only,
    deploy_messages,
    with_app,
)

APP = with_app("import_export")
TEMP_FOLDER = "import_export.tmp_storages.TempFolderStorage"
IMPORTING = (
    "from import_export.admin import ImportExportModelAdmin\n\n\n"
    "class BookAdmin(ImportExportModelAdmin):\n    pass\n"
)
EXPORTING = (
    "from import_export.admin import ExportMixin\n\n\nclass BookAdmin(ExportMixin):\n    pass\n"
)


def ids(**changes: object) -> list[str]:
    return [m.id for m in deploy_messages([import_files], **changes) if m.id]


def test_a_temp_folder_set_explicitly_is_w055() -> None:
    assert ids(INSTALLED_APPS=APP, IMPORT_EXPORT_TMP_STORAGE_CLASS=TEMP_FOLDER) == [
        "horizontal.W055"
    ]


@pytest.mark.parametrize(
    "changes",
    [
        {"IMPORT_EXPORT_TMP_STORAGE_CLASS": "import_export.tmp_storages.CacheStorage"},
        {"IMPORT_EXPORT_TMP_STORAGE_CLASS": "import_export.tmp_storages.MediaStorage"},
        {"IMPORT_EXPORT_TMP_STORAGE_CLASS": TEMP_FOLDER, "IMPORT_EXPORT_SKIP_ADMIN_CONFIRM": True},
    ],
)
def test_a_shared_storage_or_a_one_request_import_is_silent(changes: dict[str, Any]) -> None:
    assert ids(INSTALLED_APPS=APP, **changes) == []


def test_without_the_app_nothing_is_said() -> None:
    assert ids(IMPORT_EXPORT_TMP_STORAGE_CLASS=TEMP_FOLDER) == []


def _default_left(monkeypatch: pytest.MonkeyPatch, tmp_path: Any, admin: str) -> list[str]:
    """The check on the library's own default (override_settings cannot unset a
    setting), over one app of the project holding ``admin``."""
    app = tmp_path / "shop"
    app.mkdir()
    (app / "admin.py").write_text(admin)
    monkeypatch.setattr(import_files, "is_overridden", lambda name: False)
    fake = SimpleNamespace(name="shop", path=str(app))
    with override_settings(INSTALLED_APPS=APP):
        return [m.id for m in import_files.check_import_temp_storage(app_configs=[fake])]


def test_the_default_under_an_importing_admin_is_w055(monkeypatch, tmp_path) -> None:
    assert _default_left(monkeypatch, tmp_path, IMPORTING) == ["horizontal.W055"]


def test_the_default_in_an_export_only_project_is_silent(monkeypatch, tmp_path) -> None:
    assert _default_left(monkeypatch, tmp_path, EXPORTING) == []


def test_the_warning_follows_the_contract() -> None:
    assert_follows_the_contract(import_files.W055)
    assert_registered_deploy_only(import_files)


def test_an_admin_inheriting_the_skip_from_another_module_is_silent(monkeypatch, tmp_path) -> None:
    app = tmp_path / "shop"
    app.mkdir()
    (app / "bases.py").write_text(
        "from import_export.admin import ImportExportModelAdmin\n\n\n"
        "class ShopImportAdmin(ImportExportModelAdmin):\n    skip_import_confirm = True\n"
    )
    (app / "admin.py").write_text(
        "from shop.bases import ShopImportAdmin\n\n\nclass BookAdmin(ShopImportAdmin):\n    pass\n"
    )
    monkeypatch.setattr(import_files, "is_overridden", lambda name: False)
    fake = SimpleNamespace(name="shop", path=str(app))
    with override_settings(INSTALLED_APPS=APP):
        assert import_files.check_import_temp_storage(app_configs=[fake]) == []
