"""Deploy checks horizontal.W060 to W065: one rule each, matched by class."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from botocore.config import Config
from django.conf import settings
from django.core.checks import run_checks
from django.core.files.storage import FileSystemStorage
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.test import override_settings

from horizontal.checks import storage as checks
from horizontal.storage.s3_options import RESOLVABLE_BACKENDS
from tests.checks.test_project import PRODUCTION
from tests.storage.conftest import isolated_aws  # noqa: F401  (autouse, for this module only)
from tests.support.processes import manage

STATIC = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}
OURS = "horizontal.storage.S3Storage"
UPSTREAM = "storages.backends.s3.S3Storage"


def storages_with(default: dict[str, Any], **others: dict[str, Any]) -> dict[str, Any]:
    return {"default": default, "staticfiles": STATIC, **others}


def s3(backend: str = OURS, **options: Any) -> dict[str, Any]:
    return {
        "BACKEND": backend,
        "OPTIONS": {"bucket_name": "media", "region_name": "eu-west-1", **options},
    }


def storage_ids() -> list[str]:
    messages = run_checks(include_deployment_checks=True, tags=["files"])
    return sorted(m.id for m in messages if m.id and m.id.startswith("horizontal.W06"))


class MyLocalStorage(FileSystemStorage):
    """A project's own subclass: still local files."""


@pytest.mark.parametrize(
    "backend",
    [
        "django.core.files.storage.FileSystemStorage",
        "django.core.files.storage.InMemoryStorage",
        "tests.checks.test_storage.MyLocalStorage",
    ],
)
def test_w060_local_default_storage(backend: str) -> None:
    with override_settings(STORAGES=storages_with({"BACKEND": backend})):
        messages = checks.check_local_storage()
    assert [m.id for m in messages] == ["horizontal.W060"]
    assert "STORAGES['default']" in messages[0].msg


def test_w060_ignores_staticfiles_on_local_files() -> None:
    with override_settings(STORAGES=storages_with(s3())):
        assert checks.check_local_storage() == []


def test_w060_names_every_local_alias() -> None:
    local = {"BACKEND": "django.core.files.storage.FileSystemStorage"}
    with override_settings(STORAGES=storages_with(s3(), exports=local)):
        messages = checks.check_local_storage()
    assert [m.msg.split("]")[0] for m in messages] == ["STORAGES['exports'"]


def test_w061_upstream_s3_overwrites_by_default() -> None:
    with override_settings(STORAGES=storages_with(s3(UPSTREAM))):
        assert [m.id for m in checks.check_s3_overwrite()] == ["horizontal.W061"]


def test_w061_also_for_ours_when_asked_to_overwrite() -> None:
    with override_settings(STORAGES=storages_with(s3(file_overwrite=True))):
        assert [m.id for m in checks.check_s3_overwrite()] == ["horizontal.W061"]


def test_w061_follows_the_global_aws_setting() -> None:
    with override_settings(STORAGES=storages_with(s3()), AWS_S3_FILE_OVERWRITE=True):
        assert [m.id for m in checks.check_s3_overwrite()] == ["horizontal.W061"]


def test_w062_endpoint_without_region(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("AWS_REGION", "AWS_DEFAULT_REGION"):  # botocore would read them
        monkeypatch.delenv(name, raising=False)
    options = {"bucket_name": "media", "endpoint_url": "http://minio:9000"}
    with override_settings(STORAGES=storages_with({"BACKEND": OURS, "OPTIONS": options})):
        messages = checks.check_s3_endpoint_region()
    assert [m.id for m in messages] == ["horizontal.W062"]
    assert "http://minio:9000" in messages[0].msg


@pytest.mark.parametrize("variable", ["AWS_DEFAULT_REGION", "AWS_REGION"])
def test_w062_botocores_region_variables_count_for_django_storages(
    monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    # django-storages leaves region_name unset; botocore then reads the environment.
    monkeypatch.delenv("AWS_REGION", raising=False)
    monkeypatch.delenv("AWS_DEFAULT_REGION", raising=False)
    monkeypatch.setenv(variable, "eu-west-1")
    options = {"bucket_name": "media", "endpoint_url": "https://minio.internal:9000"}
    backend = "storages.backends.s3.S3Storage"
    with override_settings(STORAGES=storages_with({"BACKEND": backend, "OPTIONS": options})):
        assert checks.check_s3_endpoint_region() == []


def test_w062_region_from_the_environment_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_REGION", "eu-west-1")
    options = {"bucket_name": "media", "endpoint_url": "http://minio:9000"}
    with override_settings(STORAGES=storages_with({"BACKEND": OURS, "OPTIONS": options})):
        assert checks.check_s3_endpoint_region() == []


@pytest.mark.parametrize(
    "options",
    [
        {"default_acl": "public-read"},
        {"object_parameters": {"ACL": "public-read-write"}},
        {"default_acl": "authenticated-read"},
    ],
)
def test_w063_public_acls(options: dict[str, Any]) -> None:
    with override_settings(STORAGES=storages_with(s3(**options))):
        messages = checks.check_s3_public_acl()
    assert [m.id for m in messages] == ["horizontal.W063"]


def test_w063_private_acl_and_public_static_files_are_fine() -> None:
    static = s3(UPSTREAM, default_acl="public-read", file_overwrite=True)
    with override_settings(STORAGES={"default": s3(default_acl="private"), "staticfiles": static}):
        assert checks.check_s3_public_acl() == []
        assert checks.check_s3_overwrite() == []


def test_w064_check_then_write() -> None:
    upstream = s3(UPSTREAM, file_overwrite=False)
    with override_settings(STORAGES=storages_with(upstream)):
        assert [m.id for m in checks.check_s3_check_then_write()] == ["horizontal.W064"]
    with override_settings(STORAGES=storages_with(s3(conditional_writes=False))):
        assert [m.id for m in checks.check_s3_check_then_write()] == ["horizontal.W064"]


def test_w064_is_silent_when_w061_already_fires() -> None:
    with override_settings(STORAGES=storages_with(s3(UPSTREAM))):
        assert checks.check_s3_check_then_write() == []


def test_w065_upstream_has_unbounded_timeouts() -> None:
    with override_settings(STORAGES=storages_with(s3(UPSTREAM, file_overwrite=False))):
        messages = checks.check_s3_timeouts()
    assert [m.id for m in messages] == ["horizontal.W065"]
    # botocore defaults: 5 legacy attempts x (60 + 1 + 60) s + backoff
    assert "up to 620 s" in messages[0].msg


def test_w065_bounded_client_config_is_fine() -> None:
    bounded = Config(connect_timeout=2, read_timeout=5, retries={"total_max_attempts": 3})
    upstream = s3(UPSTREAM, file_overwrite=False, client_config=bounded)
    with override_settings(STORAGES=storages_with(upstream)):
        assert checks.check_s3_timeouts() == []


def test_safe_s3_configuration_is_silent() -> None:
    with override_settings(STORAGES=storages_with(s3())):
        assert storage_ids() == []


def test_checks_are_deploy_only_and_registered() -> None:
    local = {"BACKEND": "django.core.files.storage.FileSystemStorage"}
    with override_settings(STORAGES=storages_with(local)):
        assert "horizontal.W060" not in [m.id for m in run_checks(tags=["files"])]
        assert storage_ids() == ["horizontal.W060"]
        with pytest.raises(SystemCheckError, match=r"horizontal\.W060"):
            call_command("check", "--deploy", "--tag", "files", "--fail-level", "WARNING")


def test_an_unimportable_backend_is_left_to_django() -> None:
    with override_settings(STORAGES=storages_with({"BACKEND": "no.such.Storage"})):
        assert storage_ids() == []


def imported_by_check_deploy(backend: str) -> tuple[set[str], str]:
    """Modules a real ``manage.py check --deploy`` imports with ``backend`` as the
    default storage (``-X importtime`` lists each one), and its output."""
    env = {
        **PRODUCTION,
        "DJANGO_SETTINGS_MODULE": "tests.checks.s3_backend_settings",
        "TEST_S3_BACKEND": backend,
        "PYTHONPROFILEIMPORTTIME": "1",
    }
    done = manage("check", "--deploy", env=env)
    imported = {
        line.rpartition("|")[2].strip()
        for line in done.stderr.splitlines()
        if line.startswith("import time:")
    }
    return imported, done.stdout + done.stderr


@pytest.mark.multiprocess
@pytest.mark.parametrize("backend", sorted(RESOLVABLE_BACKENDS))
def test_check_deploy_reads_a_known_s3_backend_without_boto3(backend: str) -> None:
    imported, output = imported_by_check_deploy(backend)
    assert "horizontal.checks.storage" in imported
    assert {"boto3", "botocore", "storages.backends.s3"} & imported == set()
    # The checks did read the options: upstream's overwrite by default (W061).
    if RESOLVABLE_BACKENDS[backend] == "upstream":
        assert "horizontal.W061" in output


@pytest.mark.multiprocess
def test_check_deploy_builds_any_other_s3_backend() -> None:
    # Not a known class path (a project's subclass would be the same): built, as before.
    imported, output = imported_by_check_deploy("storages.backends.s3.S3StaticStorage")
    assert {"boto3", "botocore"} <= imported
    assert "horizontal.W061" in output


# -- W066: an object store on this host ---------------------------------------------------


@pytest.mark.parametrize("backend", [OURS, UPSTREAM])
@pytest.mark.parametrize(
    "endpoint", ["http://localhost:9000", "http://127.0.0.1:9000", "http://[::1]:9000"]
)
def test_an_s3_endpoint_on_this_host_is_w066(backend: str, endpoint: str) -> None:
    with override_settings(STORAGES=storages_with(s3(backend, endpoint_url=endpoint))):
        messages = checks.check_s3_endpoint_on_this_host()
    assert [m.id for m in messages] == ["horizontal.W066"]
    assert endpoint in messages[0].msg


@pytest.mark.parametrize("backend", [OURS, UPSTREAM])
def test_a_shared_s3_endpoint_or_aws_itself_is_silent(backend: str) -> None:
    for options in ({"endpoint_url": "https://minio.internal:9000"}, {}):
        with override_settings(STORAGES=storages_with(s3(backend, **options))):
            assert checks.check_s3_endpoint_on_this_host() == []


def test_an_endpoint_botocore_reads_from_the_environment_counts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # No endpoint_url in settings: botocore takes AWS_ENDPOINT_URL_S3 (or AWS_ENDPOINT_URL).
    for name in ("AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ENDPOINT_URL_S3", "http://127.0.0.1:9000")
    storage = {"BACKEND": UPSTREAM, "OPTIONS": {"bucket_name": "media"}}
    with override_settings(STORAGES=storages_with(storage)):
        assert [m.id for m in checks.check_s3_endpoint_region()] == ["horizontal.W062"]
        assert [m.id for m in checks.check_s3_endpoint_on_this_host()] == ["horizontal.W066"]


# -- I060: the implicit default where the project stores no files ---------------------------

NO_FILES = "def add(a, b):\n    return a + b\n"
UPLOADS = (
    "from django.db import models\n\n\nclass Invoice(models.Model):\n"
    "    pdf = models.FileField(upload_to='invoices/')\n"
)


def _implicit_default(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any, code: str, apps: list[str] | None = None
) -> list[str]:
    """The local-storage check on Django's own default, as if STORAGES were not set
    (override_settings cannot unset a setting), over one app of ``code``."""
    app = tmp_path / "shop"
    app.mkdir()
    (app / "models.py").write_text(code)
    monkeypatch.setattr(checks, "is_overridden", lambda name: name != "STORAGES")
    fake = SimpleNamespace(name="shop", path=str(app))
    local = {"BACKEND": "django.core.files.storage.FileSystemStorage"}
    changes: dict[str, Any] = {"STORAGES": storages_with(local)}
    with override_settings(**changes):
        if apps is not None:  # read as names: no app registry reload, nothing imported
            monkeypatch.setattr(settings, "INSTALLED_APPS", apps)
        return [m.id for m in checks.check_local_storage(app_configs=[fake])]


def test_the_implicit_default_with_no_stored_file_is_a_note(monkeypatch, tmp_path) -> None:
    assert _implicit_default(monkeypatch, tmp_path, NO_FILES) == ["horizontal.I060"]


def test_the_implicit_default_under_a_file_field_is_w060(monkeypatch, tmp_path) -> None:
    assert _implicit_default(monkeypatch, tmp_path, UPLOADS) == ["horizontal.W060"]


def test_an_installed_uploads_app_keeps_w060(monkeypatch, tmp_path) -> None:
    apps = ["django.contrib.contenttypes", "wagtail.images", "horizontal"]
    assert _implicit_default(monkeypatch, tmp_path, NO_FILES, apps) == ["horizontal.W060"]


@pytest.mark.parametrize(("code", "kind"), [(NO_FILES, "I060"), (UPLOADS, "W060")])
def test_a_left_over_default_file_storage_is_said_to_be_ignored(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any, code: str, kind: str
) -> None:
    # Django 5.1 removed DEFAULT_FILE_STORAGE: the S3 it names is not where files go.
    app = tmp_path / "shop"
    app.mkdir()
    (app / "models.py").write_text(code)
    monkeypatch.setattr(checks, "is_overridden", lambda name: name != "STORAGES")
    local = {"BACKEND": "django.core.files.storage.FileSystemStorage"}
    legacy = "storages.backends.s3.S3Storage"
    with override_settings(STORAGES=storages_with(local), DEFAULT_FILE_STORAGE=legacy):
        fake = SimpleNamespace(name="shop", path=str(app))
        [message] = checks.check_local_storage(app_configs=[fake])
    assert message.id == f"horizontal.{kind}"
    assert f"DEFAULT_FILE_STORAGE ({legacy}) is ignored since Django 5.1" in str(message.hint)
    with override_settings(STORAGES=storages_with(local)):
        [message] = checks.check_local_storage(app_configs=[fake])
    assert "DEFAULT_FILE_STORAGE" not in str(message.hint)


def test_the_note_follows_the_contract() -> None:
    note = checks.I060("default", FileSystemStorage)
    assert len(note.msg) < 80 and note.hint and "\n" not in note.hint
    assert note.id == "horizontal.I060"
