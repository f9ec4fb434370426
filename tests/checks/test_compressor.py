"""horizontal.W067: django-compressor compressing on request into a folder on one host."""

from __future__ import annotations

from pathlib import Path

from horizontal.checks import storage
from tests.checks.baseline import SHARED, deploy_messages, with_app

APP = with_app("compressor")
S3 = "storages.backends.s3.S3Storage"


def ids(**changes: object) -> list[str]:
    return [m.id for m in deploy_messages([storage], **changes) if m.id]


def test_compression_on_request_into_its_default_storage_is_w067() -> None:
    # django-compressor's defaults: on unless DEBUG, on request, CompressorFileStorage.
    assert ids(INSTALLED_APPS=APP) == ["horizontal.W067"]
    assert ids(INSTALLED_APPS=APP, COMPRESS_ENABLED=True, COMPRESS_OFFLINE=False) == [
        "horizontal.W067"
    ]
    gzip = "compressor.storage.GzipCompressorFileStorage"
    assert ids(INSTALLED_APPS=APP, COMPRESS_STORAGE=gzip) == ["horizontal.W067"]


def test_a_local_compressor_alias_is_one_warning_w067_not_w060() -> None:
    local = "django.core.files.storage.FileSystemStorage"
    storages = {**SHARED["STORAGES"], "compressor": {"BACKEND": local}}
    assert ids(INSTALLED_APPS=APP, STORAGES=storages) == ["horizontal.W067"]
    # Compressed at build time, the same alias holds static files: nothing to say.
    assert ids(INSTALLED_APPS=APP, STORAGES=storages, COMPRESS_OFFLINE=True) == []


def test_offline_compression_shared_output_or_compression_off_is_silent() -> None:
    assert ids(INSTALLED_APPS=APP, COMPRESS_OFFLINE=True) == []
    assert ids(INSTALLED_APPS=APP, COMPRESS_STORAGE=S3) == []
    storages = {**SHARED["STORAGES"], "compressor": {"BACKEND": S3}}
    # (The S3 checks judge that alias as any other: W061, W065 for a bare S3Storage.)
    assert "horizontal.W067" not in ids(INSTALLED_APPS=APP, STORAGES=storages)
    assert ids(INSTALLED_APPS=APP, COMPRESS_ENABLED=False) == []


def test_without_the_app_a_compressor_alias_is_w060() -> None:
    local = "django.core.files.storage.FileSystemStorage"
    storages = {**SHARED["STORAGES"], "compressor": {"BACKEND": local}}
    assert ids(STORAGES=storages) == ["horizontal.W060"]
    assert ids() == []


def templates_in(folder: Path) -> list[dict[str, object]]:
    backend = "django.template.backends.django.DjangoTemplates"
    return [{"BACKEND": backend, "DIRS": [str(folder)], "APP_DIRS": True, "OPTIONS": {}}]


def test_templates_without_a_compress_block_leave_nothing_to_compress(tmp_path: Path) -> None:
    (tmp_path / "base.html").write_text("<link rel=stylesheet href='{% static 'a.css' %}'>")
    assert ids(INSTALLED_APPS=APP, TEMPLATES=templates_in(tmp_path)) == []


def test_a_template_with_a_compress_block_is_w067(tmp_path: Path) -> None:
    (tmp_path / "plain.html").write_text("<p>no assets</p>")
    nested = tmp_path / "site"
    nested.mkdir()
    (nested / "base.html").write_text("{% load compress %}{% compress css %}…{% endcompress %}")
    assert ids(INSTALLED_APPS=APP, TEMPLATES=templates_in(tmp_path)) == ["horizontal.W067"]


def test_precompilers_write_on_request_even_with_compression_off() -> None:
    scss = (("text/x-scss", "sassc {infile} {outfile}"),)
    assert ids(INSTALLED_APPS=APP, COMPRESS_ENABLED=False, COMPRESS_PRECOMPILERS=scss) == [
        "horizontal.W067"
    ]
    # With compression on, offline compression precompiles at build time too.
    assert ids(INSTALLED_APPS=APP, COMPRESS_OFFLINE=True, COMPRESS_PRECOMPILERS=scss) == []


def test_compressor_writing_through_default_leaves_uploads_to_w060() -> None:
    local = "django.core.files.storage.FileSystemStorage"
    storages = {**SHARED["STORAGES"], "default": {"BACKEND": local}}
    found = ids(
        INSTALLED_APPS=APP,
        STORAGES=storages,
        COMPRESS_STORAGE_ALIAS="default",
        COMPRESS_OFFLINE=True,
    )
    assert found == ["horizontal.W060"]
