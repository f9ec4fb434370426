"""F10's web workload: a request that takes a lock and, when told to, raises inside it.

Served only when the chaos app is installed. The response names the worker process and
the database connection object it used, so the test can show connections persisted.
"""

from __future__ import annotations

import os

from django.db import connection
from django.db.models import F
from django.http import HttpRequest, JsonResponse

from horizontal.locks import xact_lock
from testproject.chaos.models import SharedCounter

F10_LOCK = "f10-counter"
F10_COUNTER = 2


class RaisedInsideLock(Exception):
    """The failure F10 injects: an exception between taking the lock and committing."""


def locked_increment(request: HttpRequest) -> JsonResponse:
    fail = request.GET.get("fail") == "1"
    try:
        with xact_lock(F10_LOCK):
            SharedCounter.objects.filter(pk=F10_COUNTER).update(value=F("value") + 1)
            if fail:
                raise RaisedInsideLock
        status = 200
    except RaisedInsideLock:
        status = 409  # rolled back; a 4xx keeps gunicorn's log to one short line
    return JsonResponse(
        {"worker": os.getpid(), "connection": id(connection.connection)}, status=status
    )
