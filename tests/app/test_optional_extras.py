"""The app loads, checks and runs jobs without the optional extras installed.

``pip install django-horizontal`` (no ``[redis]``, no ``[s3]``) must give a working app:
a real subprocess blocks the optional packages from importing and runs ``check --deploy``
and ``runjob`` on SQLite in a minimal project.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile

from tests.support.processes import ROOT, child_env

BLOCKED = ("redis", "django_redis", "boto3", "botocore", "storages", "psycopg", "pymysql")

SCRIPT = f"""
import importlib.abc, sys

class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {BLOCKED!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}} (blocked by the test)")
        return None

sys.meta_path.insert(0, Block())
sys.argv = ["manage.py"] + sys.argv[1:]
from django.core.management import execute_from_command_line
execute_from_command_line(sys.argv)
"""


def run(*args: str, db: str) -> subprocess.CompletedProcess[str]:
    env = child_env({"MINIMAL_DB": db, "DJANGO_SETTINGS_MODULE": "tests.app.minimal_settings"})
    return subprocess.run(
        [sys.executable, "-c", SCRIPT, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_without_redis_or_s3_packages_the_app_checks_and_runs_jobs() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        db = f"{tmp}/plain.sqlite3"
        migrate = run("migrate", "-v0", db=db)
        assert migrate.returncode == 0, migrate.stderr
        check = run("check", "--deploy", db=db)
        assert "Traceback" not in check.stderr, check.stderr
        assert "horizontal.W0" in check.stderr + check.stdout  # warnings, not a crash
        job = run("runjob", "tidy", db=db)
        assert job.returncode == 0, job.stderr
        assert "succeeded" in job.stdout
