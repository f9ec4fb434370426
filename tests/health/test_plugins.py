"""horizontal's probes as django-health-check checks, through its own view."""

from __future__ import annotations

import asyncio
import datetime

import pytest
from django.test import override_settings

from horizontal.health import drain, readiness
from horizontal.health.plugins import Database, Readiness, SessionStore, Storage
from tests.sessions.conftest import redis_caches
from tests.support.processes import free_port


@pytest.fixture(autouse=True)
def fresh() -> None:
    readiness.reset()
    drain.stop_draining()
    yield
    readiness.reset()
    drain.stop_draining()


@pytest.mark.django_db
@override_settings(ROOT_URLCONF="tests.health.plugin_urls")
def test_health_check_view_runs_our_checks_and_fails_on_the_broken_one(client):
    response = client.get("/ht/", HTTP_ACCEPT="application/json")
    assert response.status_code == 200, response.content
    names = " ".join(response.json())
    assert "Database" in names and "SessionStore" in names

    with override_settings(CACHES=redis_caches(f"redis://127.0.0.1:{free_port()}/0", "hz")):
        response = client.get("/ht/", HTTP_ACCEPT="application/json")
    assert response.status_code == 500
    failing = {name: text for name, text in response.json().items() if text != "OK"}
    assert list(failing) == [n for n in response.json() if n.startswith("SessionStore")]

    drain.start_draining()
    response = client.get("/ht/", HTTP_ACCEPT="application/json")
    assert response.status_code == 500
    assert next(n for n, text in response.json().items() if text != "OK").startswith("Drain")


@pytest.mark.django_db
def test_each_check_reports_through_the_same_runner():
    for check in (Readiness(), Database(alias="default"), SessionStore()):
        result = asyncio.run(check.get_result())
        assert result.error is None, (check, result.error)


def test_the_outer_wall_clock_is_the_longest_bound_of_any_dependency(settings):
    # A short bound for one dependency must not cut the others' longer default bound.
    settings.HORIZONTAL_HEALTH_TIMEOUT = 3.0
    settings.HORIZONTAL_HEALTH_TIMEOUTS = {"storage": 0.2}
    for check in (Readiness(), Database(alias="default"), SessionStore(), Storage()):
        assert check.timeout == datetime.timedelta(seconds=3.0), check
    settings.HORIZONTAL_HEALTH_TIMEOUTS = {"storage": 0.2, "database:default": 5.0}
    assert Database(alias="default").timeout == datetime.timedelta(seconds=5.0)
