"""Upload, download and share files through whichever instance the balancer picks.

The views only ever talk to ``default_storage``: with S3 configured, every instance
sees every file; on local files (development) each instance sees only its own.
"""

from __future__ import annotations

from django.core.exceptions import SuspiciousFileOperation
from django.core.files.storage import default_storage
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST

from horizontal.instance import instance_id
from horizontal.storage import probe, shared_url

UPLOAD_DIRECTORY = "uploads"


# A machine-to-machine demo endpoint (the e2e tests post with urllib): no CSRF cookie.
@csrf_exempt
@require_POST
def upload(request: HttpRequest) -> JsonResponse:
    """Store the multipart field ``file`` under ``uploads/<name>``; answer its stored name."""
    uploaded = request.FILES.get("file")
    if uploaded is None:
        return JsonResponse(
            {"error": "send the file in a multipart field named 'file'"}, status=400
        )
    requested = request.POST.get("name") or uploaded.name or "upload"
    try:
        name = default_storage.save(f"{UPLOAD_DIRECTORY}/{requested}", uploaded)
    except SuspiciousFileOperation as error:
        return JsonResponse({"error": str(error)}, status=400)
    return JsonResponse({"name": name, "size": uploaded.size, "instance": instance_id()})


@require_GET
def download(request: HttpRequest, name: str) -> FileResponse:
    """Stream a stored file back, whichever instance stored it."""
    try:
        stored = default_storage.open(name, "rb")
    except (FileNotFoundError, SuspiciousFileOperation):
        raise Http404(f"no stored file {name!r}") from None
    return FileResponse(stored, as_attachment=True, filename=name.rsplit("/", 1)[-1])


@require_GET
def signed_url(request: HttpRequest, name: str) -> JsonResponse:
    """A URL for a stored file that works without going through any instance."""
    if not default_storage.exists(name):
        raise Http404(f"no stored file {name!r}")
    return JsonResponse({"name": name, "url": shared_url(name)})


@require_GET
def ready(request: HttpRequest) -> HttpResponse:
    """Readiness of the file store alone: 200, or 503 saying what failed."""
    result = probe(timeout=float(request.GET.get("timeout", "2")))
    return JsonResponse(result.as_dict(), status=200 if result.ok else 503)
