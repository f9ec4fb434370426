"""The app loads, checks and runs jobs without the optional extras installed.

``pip install django-horizontal`` (no ``[redis]``, ``[s3]`` or ``[prometheus]``) gives a
working app: a real subprocess blocks the optional packages from importing and runs
``check --deploy`` and ``runjob`` on SQLite in a minimal project, and uses the storage
helpers that work on any storage.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile

from tests.support.processes import ROOT, child_env

S3_EXTRA = ("boto3", "botocore", "s3transfer", "storages")
TRIGGER_EXTRAS = ("celery", "kombu", "billiard", "django_tasks", "django_tasks_db")
BLOCKED = (
    "redis",
    "django_redis",
    *S3_EXTRA,
    "psycopg",
    "pymysql",
    *TRIGGER_EXTRAS,
    "prometheus_client",
)

BLOCK = f"""
import importlib.abc, sys

class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {BLOCKED!r}:
            # name= as the import system sets it for a package that is not installed.
            raise ModuleNotFoundError(f"No module named {{name!r}} (blocked)", name=name)
        return None

sys.meta_path.insert(0, Block())
"""

MANAGE = (
    BLOCK
    + """
sys.argv = ["manage.py"] + sys.argv[1:]
from django.core.management import execute_from_command_line
execute_from_command_line(sys.argv)
"""
)

# docs/files.md on FileSystemStorage: the generated-file helpers and the probe, then
# what the s3 extra's absence looks like. Prints one line per finding.
STORAGE_HELPERS = (
    BLOCK
    + f"""
import tempfile
import django

django.setup()
import horizontal.storage
from django.core.files.storage import FileSystemStorage
from django.utils.module_loading import import_string
from horizontal.storage import generated_file, probe, save_generated, shared_url

print("s3 extra loaded:", sorted(m for m in sys.modules if m.split(".")[0] in {S3_EXTRA!r}))
with tempfile.TemporaryDirectory() as tmp:
    local = FileSystemStorage(location=tmp, base_url="/media/")
    saved = save_generated("exports/users.csv", b"id\\n1\\n", storage=local)
    with generated_file("reports/daily.csv", text=True, storage=local) as report:
        report.file.write("day,total\\n")
    print("read back:", local.open(saved.name).read(), local.open(report.saved.name).read())
    print("url:", shared_url(saved.name, storage=local))
    print("probe ok:", probe(local).ok)
for load in (lambda: horizontal.storage.S3Storage,
             lambda: import_string("horizontal.storage.S3Storage")):
    try:
        load()
    except ImportError as error:
        print("ImportError:", error)
"""
)


def run(*args: str, db: str, script: str = MANAGE) -> subprocess.CompletedProcess[str]:
    env = child_env({"MINIMAL_DB": db, "DJANGO_SETTINGS_MODULE": "tests.app.minimal_settings"})
    return subprocess.run(
        [sys.executable, "-c", script, *args],
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


def test_without_the_s3_extra_the_generated_file_helpers_work_on_local_files() -> None:
    # docs/files.md says "from horizontal.storage import save_generated"; on local files
    # that must work without boto3, and S3Storage must say which extra it needs.
    with tempfile.TemporaryDirectory() as tmp:
        done = run(db=f"{tmp}/plain.sqlite3", script=STORAGE_HELPERS)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "s3 extra loaded: []" in lines
    assert "read back: b'id\\n1\\n' b'day,total\\n'" in lines
    assert "url: /media/exports/users.csv" in lines
    assert "probe ok: True" in lines
    errors = [line for line in lines if line.startswith("ImportError:")]
    assert len(errors) == 2, done.stdout
    assert all("pip install 'django-horizontal[s3]'" in line for line in errors), errors


def test_hardening_18_the_readme_installs_the_package_and_names_every_extra() -> None:
    # A pip user reads the README, not pyproject.toml: it had no install line and named
    # none of the extras.
    import re
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    readme = (ROOT / "README.md").read_text()
    assert re.search(rf"^pip install {re.escape(project['name'])}\b", readme, re.MULTILINE)
    extras = set(project["optional-dependencies"]) - {"dev", "lint"}  # the repository's own
    assert extras, "pyproject.toml declares no extras"
    unnamed = {extra for extra in extras if f"`[{extra}]`" not in readme}
    assert unnamed == set(), f"extras the README does not name: {sorted(unnamed)}"
