"""Classes of the fifty-sixth round (issue 14), each with a true case and a safe twin.

They came from the hundred-and-seventh labelled group (rengine, ciso-assistant-community,
data-registry, spoonbill-web), measured once after the fifty-fifth round and before any
of these was written.

- A secret piped into ``install -m 600 /dev/stdin db/secret`` at start is written to a
  local file, as ``> db/secret`` is.
- A project's ``FileSystemStorage`` subclass named otherwise than ``…Storage``
  (``MediaAndDataregistryFS``) is reported once code builds it, the build related.
- A view's own DRF throttle (``throttle_classes = [WebhookRateThrottle]``) counts in the
  default cache: related to the per-process ``CACHES`` finding.
- Globals loaded once that one function resets together (``clear_provider_cache()``) are
  one cache: one finding, their module-level bindings and the resets related.
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

START = """\
#!/usr/bin/env bash
if [ ! -n "$DJANGO_SECRET_KEY" ]; then
  if [ ! -f db/django_secret_key ]; then
    {source} | install -m 600 /dev/stdin db/django_secret_key
  fi
  export DJANGO_SECRET_KEY=$(<db/django_secret_key)
fi
exec gunicorn app.wsgi
"""


def _secret_findings(tmp_path: Path, source: str) -> list:
    found = scan(tmp_path, {"docker-entrypoint.sh": START.format(source=source)}, "file-write")
    return [f for f in found if "secret" in f.message]


def test_a_secret_installed_from_a_pipe_is_found(tmp_path: Path) -> None:
    found = _secret_findings(tmp_path, "openssl rand -hex 32")
    assert where(found) == [("docker-entrypoint.sh", 4)]


def test_a_shipped_file_installed_from_a_pipe_is_silent(tmp_path: Path) -> None:
    assert _secret_findings(tmp_path, "cat /run/secrets/django_key") == []


STORAGE = """\
from django.core.files.storage import FileSystemStorage


class MediaAndDataregistryFS(FileSystemStorage):
    def path(self, name):
        return super().path(name)
"""
MODELS = """\
from django.db import models

from app.file_storage import MediaAndDataregistryFS

fs = MediaAndDataregistryFS()


class Upload(models.Model):
    file = models.FileField(upload_to="uploads", storage=fs)
"""


def test_a_storage_class_named_otherwise_is_found_where_it_is_built(tmp_path: Path) -> None:
    files = {"app/file_storage.py": STORAGE, "app/models.py": MODELS}
    found = scan(tmp_path, files, "file-write")
    found = [f for f in found if "MediaAndDataregistryFS" in f.message]
    assert where(found) == [("app/file_storage.py", 4)]
    assert [(r.path, r.line) for r in found[0].related] == [("app/models.py", 5)]


def test_a_storage_class_named_otherwise_and_never_built_is_silent(tmp_path: Path) -> None:
    files = {"app/file_storage.py": STORAGE, "app/models.py": "from django.db import models\n"}
    assert [f for f in scan(tmp_path, files, "file-write") if "MediaAndData" in f.message] == []


SETTINGS = """\
INSTALLED_APPS = ["django.contrib.auth", "rest_framework"]
DATABASES = {"default": {"ENGINE": "django.db.backends.postgresql", "HOST": "db"}}
"""
VIEWS = """\
from rest_framework.throttling import SimpleRateThrottle
from rest_framework.views import APIView


class WebhookRateThrottle(SimpleRateThrottle):
    rate = "60/min"


class WebhookView(APIView):
    throttle_classes = [{throttle}]
"""


def _caches_finding(tmp_path: Path, throttle: str) -> list:
    files = {"app/settings.py": SETTINGS, "app/views.py": VIEWS.format(throttle=throttle)}
    return [f for f in scan(tmp_path, files, "settings") if f.message.startswith("CACHES")]


def test_a_views_throttle_is_related_to_the_per_process_cache(tmp_path: Path) -> None:
    found = _caches_finding(tmp_path, "WebhookRateThrottle")
    assert where(found) == [("app/settings.py", 1)]
    related = [(r.path, r.line) for r in found[0].related]
    assert related == [("app/views.py", 5), ("app/views.py", 10)]


def test_a_view_with_no_throttle_is_not_related(tmp_path: Path) -> None:
    found = _caches_finding(tmp_path, "")
    assert [(r.path, r.line) for r in found[0].related] == [("app/views.py", 5)]


PROVIDERS = """\
from app.models import ChatSettings

_cached_embedder = None
_cached_llm = None


def clear_provider_cache():
    global _cached_llm, _cached_embedder
    _cached_llm = None
    {second_reset}


def get_embedder():
    global _cached_embedder
    if _cached_embedder is None:
        _cached_embedder = ChatSettings.objects.get().embedder()
    return _cached_embedder


def get_llm():
    global _cached_llm
    if _cached_llm is None:
        _cached_llm = ChatSettings.objects.get().llm()
    return _cached_llm
"""


def _cache_findings(tmp_path: Path, second_reset: str) -> list:
    files = {"app/chat/providers.py": PROVIDERS.format(second_reset=second_reset)}
    return [f for f in scan(tmp_path, files, "cache") if "loaded once" in f.message]


def test_globals_one_function_resets_together_are_one_finding(tmp_path: Path) -> None:
    found = _cache_findings(tmp_path, "_cached_embedder = None")
    assert len(found) == 1
    related = {r.line for r in found[0].related}
    assert {3, 4, 9, 10} <= related


def test_globals_reset_apart_are_two_findings(tmp_path: Path) -> None:
    found = _cache_findings(tmp_path, "pass")
    assert sorted(f.line for f in found) == [14, 21]
