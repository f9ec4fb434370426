"""The two endpoints a balancer or an orchestrator asks: live and ready.

- ``live``: the process answers HTTP. It touches no dependency, so a database outage
  never makes an orchestrator restart every instance at once.
- ``ready``: 200 when every dependency answered within its bound and the instance is
  not draining; 503 otherwise. The JSON body names each dependency, its status and its
  latency in milliseconds (see ``horizontal.health.readiness``).

Neither view reads the session or the user, and neither runs in a request transaction
(``ATOMIC_REQUESTS``): the database probe uses a connection of its own thread.
"""

from __future__ import annotations

from django.db import transaction
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from horizontal.health.readiness import check_readiness
from horizontal.instance import instance_id

__all__ = ["live", "ready"]


@never_cache
@require_safe
@transaction.non_atomic_requests
def live(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"status": "ok", "instance": instance_id()})


@never_cache
@require_safe
@transaction.non_atomic_requests
def ready(request: HttpRequest) -> JsonResponse:
    report = check_readiness()
    response = JsonResponse(report.as_dict(), status=200 if report.ok else 503)
    if not report.ok:
        response["Retry-After"] = "1"
    return response
