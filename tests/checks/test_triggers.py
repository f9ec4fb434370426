"""Deploy warnings W080-W086 (horizontal/checks/triggers.py), from the SHARED baseline:
the HTTP trigger (W080-W083), django.tasks and Celery (W085, W086)."""

from __future__ import annotations

from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest
from django.test import override_settings
from django.urls import get_resolver, include, path

from horizontal.checks import triggers
from horizontal.checks._classes import is_overridden
from horizontal.jobs import Run, job, registry
from horizontal.triggers import http
from tests.checks.baseline import (
    assert_follows_the_contract,
    assert_registered_deploy_only,
    deploy_messages,
)

DB_TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
IMMEDIATE = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}
DUMMY = {"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}}


@pytest.fixture(autouse=True)
def scratch_jobs() -> Iterator[None]:
    before = dict(registry.jobs)
    yield
    registry.jobs.clear()
    registry.jobs.update(before)


def handed_off() -> None:
    @job("export_orders", schedule="*/5 * * * *", executor="tasks")
    def export_orders(run: Run) -> None:
        pass


def ids(**changes: Any) -> list[str]:
    """The django.tasks and Celery ids only (the HTTP trigger's have their tests below)."""
    messages = deploy_messages([triggers], **changes)
    return sorted(m.id for m in messages if m.id >= "horizontal.W085")


def http_ids(**changes: Any) -> list[str]:
    messages = deploy_messages([triggers], **changes)
    return sorted(m.id for m in messages if m.id < "horizontal.W085")


def test_a_worker_backed_default_backend_is_quiet() -> None:
    handed_off()
    assert ids(TASKS=DB_TASKS) == []


@pytest.mark.parametrize("tasks", [IMMEDIATE, DUMMY, {"other": DB_TASKS["default"]}])
def test_an_executor_job_on_a_backend_without_workers_is_w085(tasks: dict[str, Any]) -> None:
    handed_off()
    messages = deploy_messages([triggers], TASKS=tasks)
    assert [m.id for m in messages] == ["horizontal.W085"]
    assert "'export_orders'" in messages[0].msg
    assert_follows_the_contract(messages[0])


def test_without_tasks_set_the_implicit_inline_backend_is_w085() -> None:
    # The test settings (testproject's) set no TASKS: Django 6 and the backport run inline.
    handed_off()
    assert not is_overridden("TASKS")
    messages = triggers.check_task_executor(app_configs=None)
    assert [m.id for m in messages] == ["horizontal.W085"]
    assert "runs inline" in messages[0].msg


def test_an_empty_tasks_setting_has_no_default_backend_for_the_job() -> None:
    handed_off()
    messages = deploy_messages([triggers], TASKS={})
    assert [m.id for m in messages] == ["horizontal.W085"]
    assert "no TASKS['default']" in messages[0].msg


def test_no_executor_job_no_w085_whatever_the_backend() -> None:
    assert ids(TASKS=DUMMY) == []


def test_a_beat_entry_for_an_unknown_job_is_w086() -> None:
    handed_off()
    schedule = {
        "ok": {"task": "horizontal.run_job", "schedule": 60, "args": ("export_orders",)},
        "by_kwarg": {
            "task": "horizontal.run_job",
            "schedule": 60,
            "kwargs": {"job": "export_orders"},
        },
        "typo": {"task": "horizontal.run_job", "schedule": 60, "args": ("export_order",)},
        "none": {"task": "horizontal.run_job", "schedule": 60},
        "other task": {"task": "billing.cleanup", "schedule": 60, "args": ("x",)},
    }
    messages = [
        m
        for m in deploy_messages([triggers], TASKS=DB_TASKS, CELERY_BEAT_SCHEDULE=schedule)
        if m.id == "horizontal.W086"
    ]
    assert [(m.id, m.obj) for m in messages] == [
        ("horizontal.W086", "CELERY_BEAT_SCHEDULE['typo']"),
        ("horizontal.W086", "CELERY_BEAT_SCHEDULE['none']"),
    ]
    for message in messages:
        assert_follows_the_contract(message)


def test_trigger_checks_are_deploy_only() -> None:
    assert_registered_deploy_only(triggers)


def test_routed_without_a_secret_is_w080_and_not_routed_is_quiet() -> None:
    assert http_ids(ROOT_URLCONF="horizontal.urls", HORIZONTAL_TRIGGER_SECRET=None) == [
        "horizontal.W080"
    ]
    unrouted = "tests.checks.urls_without_trigger"
    assert http_ids(ROOT_URLCONF=unrouted, HORIZONTAL_TRIGGER_SECRET=None) == []


def test_a_short_secret_is_w081() -> None:
    assert http_ids(HORIZONTAL_TRIGGER_SECRET="x" * 31) == ["horizontal.W081"]
    assert http_ids(HORIZONTAL_TRIGGER_SECRET="x" * 32) == []
    assert http_ids(HORIZONTAL_TRIGGER_SECRET="é" * 16) == []  # bytes, not characters


def test_plain_http_allowed_on_an_https_site_is_w082() -> None:
    secret = "x" * 40
    assert http_ids(
        HORIZONTAL_TRIGGER_SECRET=secret,
        SECURE_SSL_REDIRECT=True,
        HORIZONTAL_TRIGGER_REQUIRE_HTTPS=False,
    ) == ["horizontal.W082"]
    # The default refuses plain HTTP on such a site: nothing to say.
    assert http_ids(HORIZONTAL_TRIGGER_SECRET=secret, SESSION_COOKIE_SECURE=True) == []
    assert http_ids(HORIZONTAL_TRIGGER_SECRET=secret, HORIZONTAL_TRIGGER_REQUIRE_HTTPS=False) == []


def test_the_secret_key_as_trigger_secret_is_w083() -> None:
    key = "k" * 50
    assert http_ids(SECRET_KEY=key, HORIZONTAL_TRIGGER_SECRET=key) == ["horizontal.W083"]
    assert http_ids(
        SECRET_KEY="other" * 10, SECRET_KEY_FALLBACKS=[key], HORIZONTAL_TRIGGER_SECRET=key
    ) == ["horizontal.W083"]


def test_every_http_trigger_message_follows_the_check_contract() -> None:
    for message in (triggers.W080("/x"), triggers.W081(3), triggers.W082(), triggers.W083()):
        assert_follows_the_contract(message)


def _urlconf(*patterns: Any) -> ModuleType:
    module = ModuleType("urlconf_for_the_trigger_test")
    module.urlpatterns = list(patterns)  # type: ignore[attr-defined]
    return module


def _view(request: Any) -> None:
    """A view that is no trigger."""


@pytest.mark.parametrize(
    ("urlconf", "found"),
    [
        pytest.param("horizontal.urls", "/jobs/NAME/trigger", id="the-root-urlconf"),
        # The documented way: the trigger is then in horizontal.urls's namespace.
        pytest.param(
            _urlconf(path("h/", include("horizontal.urls"))),
            "/h/jobs/NAME/trigger",
            id="namespaced",
        ),
        pytest.param(
            _urlconf(path("h/", include("horizontal.urls", namespace="hz"))),
            "/h/jobs/NAME/trigger",
            id="instance-namespace",
        ),
        pytest.param(
            _urlconf(path("h/", include(http.urlpatterns))), "/h/jobs/NAME/trigger", id="included"
        ),
        pytest.param(
            _urlconf(path("a/", include([path("b/", include(http.urlpatterns))]))),
            "/a/b/jobs/NAME/trigger",
            id="nested",
        ),
        # A namespace of the project's own: not reversible by horizontal, still routed.
        pytest.param(
            _urlconf(path("a/", include((http.urlpatterns, "x")))),
            "/a/jobs/<str:name>/trigger",
            id="app",
        ),
        pytest.param(
            _urlconf(path("t/", _view, name=http.URL_NAME)), None, id="its-name-on-another-view"
        ),
        pytest.param(_urlconf(path("t/", _view, name="other")), None, id="other-views"),
        pytest.param(_urlconf(), None, id="empty"),
    ],
)
def test_the_trigger_is_found_wherever_it_is_routed(urlconf: Any, found: str | None) -> None:
    with override_settings(ROOT_URLCONF=urlconf, HORIZONTAL_TRIGGER_SECRET=None):
        assert triggers._trigger_path() == found
        assert http_ids() == ([] if found is None else ["horizontal.W080"])
        if found is not None and "<" not in found:
            # What manage.py trigger_url and curl_command build on.
            assert http.trigger_path("refund") == found.replace("NAME", "refund")


def test_an_unrouted_trigger_does_not_build_the_reverse_tables() -> None:
    with override_settings(ROOT_URLCONF=_urlconf(path("t/", _view, name="other"))):
        assert triggers._trigger_path() is None
        assert not get_resolver()._populated
