"""Every documented import path still works, the old ones included: one test per path.

Sessions and storage became packages (``horizontal/sessions/``, ``horizontal/storage/``);
the paths that settings modules, ``MIDDLEWARE`` and ``STORAGES`` name stay valid.
"""

from __future__ import annotations

from django.contrib.sessions.middleware import SessionMiddleware as DjangoSessionMiddleware
from django.http import HttpRequest, HttpResponse
from django.test import override_settings
from django.utils.module_loading import import_string


def test_session_engine_path_gives_django_the_store() -> None:
    from horizontal.sessions.store import SessionStore

    def view(request: HttpRequest) -> HttpResponse:
        return HttpResponse()

    # Django's SessionMiddleware loads SESSION_ENGINE and takes its SessionStore.
    with override_settings(SESSION_ENGINE="horizontal.sessions"):
        assert DjangoSessionMiddleware(view).SessionStore is SessionStore


def test_old_middleware_path_is_the_sessions_middleware() -> None:
    from horizontal.sessions.middleware import SessionMiddleware

    assert import_string("horizontal.middleware.SessionMiddleware") is SessionMiddleware
    assert import_string("horizontal.sessions.middleware.SessionMiddleware") is SessionMiddleware


def test_storages_backend_path_resolves_to_s3_storage() -> None:
    from horizontal.storage.s3 import S3Storage

    assert import_string("horizontal.storage.S3Storage") is S3Storage
    from horizontal.storage.s3_deadline import worst_case_seconds

    assert import_string("horizontal.storage.worst_case_seconds") is worst_case_seconds


def test_old_storage_env_path_is_storages_from_env() -> None:
    from horizontal.storage import storages_from_env

    assert import_string("horizontal.storage_env.storages_from_env") is storages_from_env


def test_old_storage_probe_path_is_probe() -> None:
    from horizontal.storage import probe

    assert import_string("horizontal.storage_probe.probe") is probe


def test_generated_file_helpers_are_on_the_storage_package() -> None:
    from horizontal.storage import generated

    for name in ("save_generated", "generated_file", "shared_url", "SavedFile"):
        assert import_string(f"horizontal.storage.{name}") is getattr(generated, name)


def test_package_faces_list_what_they_export() -> None:
    import horizontal.sessions
    import horizontal.storage

    for package in (horizontal.sessions, horizontal.storage):
        for name in package.__all__:
            assert getattr(package, name) is not None, (package.__name__, name)
    # dir() lists the S3 names the package loads lazily.
    assert {"S3Storage", "worst_case_seconds"} <= set(dir(horizontal.storage))
