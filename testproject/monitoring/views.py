"""Views that run a job or take a lease in the web worker that answers (tests only).

CSRF-exempt on purpose, like testproject.accounts: driven by a test client, never deployed.
"""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from horizontal import leases
from horizontal.instance import instance_id
from horizontal.jobs import run_job

# The leases this worker holds: per process on purpose (the metric names the holder).
_held: list[leases.Lease] = []  # horizontal: ignore[module-state]


@csrf_exempt
@require_POST
def run(request: HttpRequest, name: str) -> JsonResponse:
    outcomes = run_job(name, slot=request.GET["slot"])
    return JsonResponse({"instance": instance_id(), "outcomes": [str(o.status) for o in outcomes]})


@csrf_exempt
@require_POST
def hold_lease(request: HttpRequest, name: str) -> JsonResponse:
    """Take lease ``name`` and keep it (never renewed: it expires after its TTL)."""
    lease = leases.acquire(name, ttl=600)
    if lease is not None:
        _held.append(lease)
    return JsonResponse({"instance": instance_id(), "acquired": lease is not None})
