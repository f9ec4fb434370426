"""What a web worker loads: ``django.setup()`` with horizontal installed, then one request.

A real subprocess starts testproject with Redis sessions and local file storage, sends
one request through ``horizontal.sessions``' middleware and prints the modules it has
loaded. The code audit's scanner (a large AST reader, for ``check --deploy`` and
``manage.py audit``), boto3 (for S3 storage), Celery and the task backends (the
triggers' extras) must not be among them; with S3 configured, boto3
loads only once the storage is used.
"""

from __future__ import annotations

import json
import subprocess
import sys

from tests.support.processes import ROOT, child_env

SCRIPT = """
import json, os, sys
import django
django.setup()
if os.environ.get("PROBE_REQUEST", "1") == "1":
    from django.test import Client
    response = Client(HTTP_HOST="localhost").post("/accounts/visit/")
    assert response.status_code == 200, response.status_code
elif os.environ.get("PROBE_REQUEST") == "deploy":  # every check `check --deploy` runs
    from django.core.checks import run_checks
    run_checks(include_deployment_checks=True, databases=[])
else:  # no database to serve from: horizontal's checks instead
    from django.core.checks import run_checks
    run_checks(tags=["horizontal"], databases=[])
print(json.dumps(sorted(sys.modules)))
"""


def loaded_modules(**env: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=ROOT,
        env=child_env({"REDIS_URL": "redis://127.0.0.1:6379/15", **env}),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return list(json.loads(done.stdout.splitlines()[-1]))


def test_a_web_worker_loads_neither_the_audit_nor_boto3() -> None:
    modules = loaded_modules()
    ours = [m for m in modules if m.startswith("horizontal")]
    print("horizontal modules loaded:", " ".join(ours))
    assert "horizontal.sessions" in ours  # the request went through our store
    # The checks read the catalogue of single-box backends (data); the scanner stays out.
    audit = {m for m in ours if m.startswith("horizontal.audit")}
    assert audit <= {"horizontal.audit", "horizontal.audit.known"}
    assert [m for m in modules if m.split(".")[0] in ("boto3", "botocore", "storages")] == []
    # The triggers' extras load only in a project that uses them (docs/triggers.md).
    extras = ("celery", "kombu", "billiard", "django_tasks", "django_tasks_db")
    assert [m for m in modules if m.split(".")[0] in extras] == []
    # The HTTP trigger is routed by horizontal.urls and needs no extra; the Celery and
    # django.tasks triggers are loaded only by the projects that use them.
    assert {m for m in ours if m.startswith("horizontal.triggers")} <= {
        "horizontal.triggers",
        "horizontal.triggers.http",
    }


def test_with_s3_configured_boto3_still_waits_for_the_first_use() -> None:
    modules = loaded_modules(
        AWS_STORAGE_BUCKET_NAME="startup-probe", AWS_S3_ENDPOINT_URL="http://127.0.0.1:9"
    )
    assert "boto3" not in modules


def test_without_horizontal_metrics_prometheus_client_is_never_imported() -> None:
    # The positive control is tests/app/test_metrics.py: with HORIZONTAL_METRICS=1 the
    # same project serves them.
    modules = loaded_modules()
    assert "horizontal.metrics" not in modules
    assert [m for m in modules if m.split(".")[0] == "prometheus_client"] == []


def test_a_project_whose_sessions_are_not_in_redis_never_imports_redis() -> None:
    # testproject without REDIS_URL keeps Django's database sessions and its LocMem
    # cache; horizontal's app still connects the password-change receiver, and its
    # session and cache checks run. The positive control is the first test: with Redis
    # sessions the request goes through horizontal.sessions' store.
    modules = loaded_modules(REDIS_URL="", PROBE_REQUEST="0")
    assert "horizontal.sessions" in modules  # ready() connected the receiver
    assert "horizontal.sessions.store" not in modules
    assert [m for m in modules if m.split(".")[0] in ("redis", "django_redis")] == []


def test_the_session_middleware_alone_does_not_load_redis_py() -> None:
    # Sessions in the database, horizontal's middleware listed: Django's own checks import
    # every middleware class, and ours must not bring the Redis store along.
    modules = loaded_modules(REDIS_URL="", PROBE_REQUEST="deploy")
    assert "horizontal.sessions.middleware" in modules  # the check did import it
    assert [m for m in modules if m.split(".")[0] in ("redis", "django_redis")] == []
    assert "horizontal.sessions.store" not in modules
