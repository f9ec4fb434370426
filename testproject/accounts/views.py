"""Small JSON views over the session, for the multi-instance session tests.

CSRF-exempt on purpose: they are driven by a test client without a browser, and
testproject is never deployed.
"""

from __future__ import annotations

import os
import time

from django.contrib.auth import authenticate, login, logout
from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST

from horizontal.sessions import end_user_sessions


def _instance() -> str:
    return os.environ.get("HORIZONTAL_INSTANCE_ID", "")


@csrf_exempt
@require_POST
def login_view(request: HttpRequest) -> JsonResponse:
    user = authenticate(
        request, username=request.POST.get("username"), password=request.POST.get("password")
    )
    if user is None:
        return JsonResponse({"error": "bad credentials"}, status=403)
    login(request, user)
    return JsonResponse({"user": user.get_username(), "instance": _instance()})


@require_GET
def whoami(request: HttpRequest) -> JsonResponse:
    """Who the session says the caller is; reading it loads the session."""
    user = request.user
    return JsonResponse(
        {
            "user": user.get_username() if user.is_authenticated else None,
            "visits": request.session.get("visits", 0),
            "instance": _instance(),
        }
    )


@csrf_exempt
@require_POST
def visit(request: HttpRequest) -> JsonResponse:
    """Modify the session, so that the response saves it."""
    request.session["visits"] = request.session.get("visits", 0) + 1
    return JsonResponse({"visits": request.session["visits"], "instance": _instance()})


@csrf_exempt
@require_POST
def logout_view(request: HttpRequest) -> JsonResponse:
    logout(request)
    return JsonResponse({"user": None, "instance": _instance()})


@csrf_exempt
@require_POST
def logout_everywhere(request: HttpRequest) -> JsonResponse:
    if not request.user.is_authenticated:
        return JsonResponse({"error": "not logged in"}, status=403)
    ended = end_user_sessions(request.user)
    return JsonResponse({"ended": ended, "instance": _instance()})


@require_GET
def slow(request: HttpRequest) -> JsonResponse:
    """Answer after ``ms`` milliseconds (at most 5 s): a request still in flight when an
    instance is stopped or killed."""
    time.sleep(min(5000, int(request.GET.get("ms", "500"))) / 1000)
    return JsonResponse({"slept_ms": int(request.GET.get("ms", "500")), "instance": _instance()})
