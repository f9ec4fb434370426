"""``horizontal.W101``–``W108``: the audit as a deploy check over the project's own apps."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

from django.apps import apps
from django.test import override_settings

from horizontal.checks.code import (
    check_code,
    installed_roots,
    is_project_app,
    is_project_path,
    project_app_paths,
    project_package_paths,
    scanned_categories,
)
from tests.support.processes import ROOT, child_env

CORPUS = Path(__file__).parents[1] / "audit" / "corpus"


def fake_app(name: str, path: Path) -> SimpleNamespace:
    return SimpleNamespace(name=name, path=str(path))


def test_testproject_has_no_code_findings():
    assert check_code() == []


def test_findings_become_warnings_with_the_category_id_and_a_hint():
    warnings = check_code(app_configs=[fake_app("shop", CORPUS / "project" / "shop")])
    by_id = {w.id for w in warnings}
    # W101 (module-state) is opt-in: only `audit --extend-category module-state` reports it.
    assert by_id == {
        "horizontal.W102",
        "horizontal.W103",
        "horizontal.W104",
        "horizontal.W105",
        "horizontal.W106",
    }
    hits = [w for w in warnings if w.id == "horizontal.W103"]
    assert any("corpus/project/shop/" in str(w.obj) for w in hits)
    assert all(w.hint for w in warnings)


def test_a_silenced_id_is_not_scanned_for():
    shop = [fake_app("shop", CORPUS / "project" / "shop")]
    with override_settings(SILENCED_SYSTEM_CHECKS=["horizontal.W103", "horizontal.W106"]):
        ids = {w.id for w in check_code(app_configs=shop)}
        assert "file-write" not in scanned_categories()
    assert ids == {"horizontal.W102", "horizontal.W104", "horizontal.W105"}


CODE_IDS = [f"horizontal.W{n}" for n in range(101, 112)]


def test_every_code_id_silenced_skips_the_scan_and_its_import():
    shop = [fake_app("shop", CORPUS / "project" / "shop")]
    with override_settings(SILENCED_SYSTEM_CHECKS=CODE_IDS):
        assert scanned_categories() == []
        assert check_code(app_configs=shop) == []
    # In a fresh process: the scanner's modules are never loaded.
    script = (
        "import django, sys; django.setup()\n"
        "from django.test import override_settings\n"
        "from horizontal.checks.code import check_code\n"
        f"with override_settings(SILENCED_SYSTEM_CHECKS={CODE_IDS!r}):\n"
        "    assert check_code() == []\n"
        "print(sorted(m for m in sys.modules if m.startswith('horizontal.audit.')))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=child_env(),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "horizontal.audit.runner" not in loaded, loaded


def test_settings_are_left_to_the_w0xx_checks():
    warnings = check_code(app_configs=[fake_app("project", CORPUS / "project")])
    assert "horizontal.W109" not in {w.id for w in warnings}
    assert "horizontal.W108" in {w.id for w in warnings}  # gunicorn.conf.py's migrate


def test_installed_packages_and_horizontal_itself_are_never_scanned():
    roots = installed_roots()
    admin = apps.get_app_config("admin")
    assert not is_project_app(admin, roots)
    assert not is_project_app(apps.get_app_config("horizontal"), roots)
    assert is_project_app(apps.get_app_config("billing"), roots)
    fake_site = fake_app("x", Path(sys.prefix) / "lib" / "site-packages" / "x")
    assert not is_project_app(fake_site, roots)


def test_nested_app_paths_are_scanned_once():
    outer = fake_app("project", CORPUS / "project")
    inner = fake_app("shop", CORPUS / "project" / "shop")
    assert project_app_paths([outer, inner]) == [(CORPUS / "project").resolve()]


def test_registered_as_a_deploy_check_only():
    from django.core.checks.registry import registry

    assert check_code in registry.get_checks(include_deployment_checks=True)
    assert check_code not in registry.get_checks(include_deployment_checks=False)


UPLOAD_VIEW = """\
import os

from django.conf import settings


def upload(request):
    with open(os.path.join(settings.MEDIA_ROOT, request.FILES["f"].name), "wb") as out:
        out.write(request.FILES["f"].read())
"""


def test_the_project_package_is_scanned_though_it_is_no_app(tmp_path, monkeypatch):
    # ``startproject``'s package holds settings, URLs and often views and middleware.
    package = tmp_path / "site_root" / "newsite"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "views.py").write_text(UPLOAD_VIEW)
    monkeypatch.syspath_prepend(str(tmp_path / "site_root"))
    with override_settings(ROOT_URLCONF="newsite.urls"):
        assert package.resolve() in project_package_paths(installed_roots())
        found = [w for w in check_code() if w.obj.endswith("newsite/views.py:7")]
    assert [w.id for w in found] == ["horizontal.W103"]
    # Asked for named apps only, the package is not added.
    assert check_code(app_configs=[apps.get_app_config("billing")]) == []


def test_a_test_package_holding_the_settings_is_not_the_project_package():
    # The suite's own settings live in ``tests``, a folder the audit skips in a tree too.
    with override_settings(ROOT_URLCONF="tests.urls"):
        assert all(path.name != "tests" for path in project_package_paths(installed_roots()))


def test_a_prefix_holding_the_project_is_no_installed_root(tmp_path, monkeypatch):
    # ``python -m venv .`` in the checkout, or Debian's /usr around WORKDIR /usr/src/app.
    settings_file = tmp_path / "mysite" / "settings.py"
    settings_file.parent.mkdir()
    settings_file.write_text("")
    module = SimpleNamespace(__file__=str(settings_file))
    monkeypatch.setitem(sys.modules, "venv_mysite_settings", module)
    monkeypatch.setattr(sys, "prefix", str(tmp_path))
    with override_settings(SETTINGS_MODULE="venv_mysite_settings"):
        roots = installed_roots()
    assert tmp_path.resolve() not in roots
    assert is_project_path((tmp_path / "mysite" / "shop").resolve(), roots)
    site = tmp_path / "lib" / "python3.11" / "site-packages" / "shop"
    assert not is_project_path(site.resolve(), roots)
    # A prefix elsewhere is still where installed code lives.
    assert Path(sys.base_prefix).resolve() in roots or Path(sys.base_prefix).resolve() == tmp_path


def test_a_project_package_named_for_django_is_the_projects(tmp_path, monkeypatch):
    # ``startproject django_project .``, as tutorials name it: not Django itself.
    package = tmp_path / "site_root" / "django_project"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path / "site_root"))
    with override_settings(ROOT_URLCONF="django_project.urls"):
        assert package.resolve() in project_package_paths(installed_roots())


def test_a_pip_install_target_on_the_path_is_installed_code(tmp_path, monkeypatch):
    # ``pip install --target /deps`` then PYTHONPATH=/deps, an image's usual way: djhuey's
    # tasks there counted as the project's own, and W041 warned of tasks nobody wrote.
    deps = tmp_path / "deps"
    (deps / "huey").mkdir(parents=True)
    (deps / "huey-2.5.0.dist-info").mkdir()
    monkeypatch.syspath_prepend(str(deps))
    roots = installed_roots()
    assert not is_project_path((deps / "huey").resolve(), roots)
    # Its twin: a folder of the project's own on the path, with no distribution in it.
    source = tmp_path / "src"
    (source / "shop").mkdir(parents=True)
    monkeypatch.syspath_prepend(str(source))
    assert is_project_path((source / "shop").resolve(), installed_roots())


def test_a_path_object_on_sys_path_is_read_as_its_folder(tmp_path, monkeypatch):
    # Settings that do ``sys.path.insert(0, BASE_DIR / "apps")`` put a Path there: the
    # check crashed with a TypeError (found by a review).
    deps = tmp_path / "deps"
    (deps / "huey-2.5.0.dist-info").mkdir(parents=True)
    monkeypatch.setattr(sys, "path", [deps, 42, *sys.path])
    assert deps.resolve() in installed_roots()
