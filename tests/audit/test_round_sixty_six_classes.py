"""Classes of the sixty-sixth round (issue 14), each with a true case and a safe twin.

They came from the hundred-and-twentieth group (tfrs, edivorce, cthub, kausal-paths,
labelled before either tool ran on them), read after its first measurement:

- An OpenShift DeploymentConfig's lifecycle hook (``recreateParams``/``rollingParams``,
  ``pre``/``mid``/``post``, ``execNewPod``) runs its command once per rollout, in a pod of
  its own: a ``migrate`` there is the right place, as a Job's is (tfrs). The same command
  as the container's runs in every pod.
- A host variable left at ``localhost`` (``REDIS_HOST = os.getenv("REDIS_HOST",
  "localhost")``) and the cache, broker and channel layer built from it are one cause: one
  finding at the variable, the settings that use it related (tfrs; on tuning oldp,
  insights-rbac, seed-message-sender).
- A monitoring server's check plugins (``nagios/commands/check_rabbitmq.py``) run on the
  monitoring host, not in the app (tfrs).
- A django-environ schema's default written as an f-string (``DATABASE_URL=(str,
  f"postgresql:///{PROJECT_NAME}")``) is judged where the setting reads it, as a plain
  string is (kausal-paths).
- A ``notebooks/`` folder holds an analyst's scripts, run by hand, unless it is a Django
  app (kausal-paths).
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

DEPLOYMENT_CONFIG = """\
apiVersion: apps.openshift.io/v1
kind: DeploymentConfig
metadata:
  name: backend
spec:
  replicas: 2
  strategy:
    type: Recreate
    recreateParams:
      mid:
        failurePolicy: Abort
        execNewPod:
          command:
          - /bin/sh
          - -c
          - python manage.py migrate;
          containerName: app
  template:
    spec:
      containers:
      - name: app
        image: backend
        command: ["/bin/sh", "-c", "{start}"]
"""


def test_a_lifecycle_hooks_migrate_runs_once_per_rollout(tmp_path: Path) -> None:
    manifest = DEPLOYMENT_CONFIG.replace("{start}", "gunicorn app.wsgi")
    assert scan(tmp_path, {"openshift/backend-dc.yaml": manifest}, "boot-migrate") == []


def test_a_containers_migrate_runs_in_every_pod(tmp_path: Path) -> None:
    manifest = DEPLOYMENT_CONFIG.replace("{start}", "python manage.py migrate && gunicorn app.wsgi")
    found = scan(tmp_path, {"openshift/backend-dc.yaml": manifest}, "boot-migrate")
    assert where(found) == [("openshift/backend-dc.yaml", 23)]


REDIS = """\
import os

INSTALLED_APPS = []
REDIS_HOST = os.getenv("REDIS_HOST", "localhost")
REDIS_PASSWORD = os.getenv("REDIS_PASSWORD", "development_only")
CACHES = {
    "default": {
        "BACKEND": "django_redis.cache.RedisCache",
        "LOCATION": f"redis://:{REDIS_PASSWORD}@{REDIS_HOST}:6379/0",
    },
}
CELERY_BROKER_URL = f"redis://:{REDIS_PASSWORD}@{REDIS_HOST}:6379/1"
"""


def test_services_built_from_one_host_variable_are_one_finding(tmp_path: Path) -> None:
    [finding] = scan(tmp_path, {"app/settings.py": REDIS}, "settings")
    assert (finding.path, finding.line) == ("app/settings.py", 4)


def test_a_service_on_another_variable_is_its_own_finding(tmp_path: Path) -> None:
    source = REDIS.replace(
        'CELERY_BROKER_URL = f"redis://:{REDIS_PASSWORD}@{REDIS_HOST}:6379/1"',
        'CELERY_BROKER_URL = os.getenv("BROKER", "amqp://guest@localhost//")',
    )
    found = scan(tmp_path, {"app/settings.py": source}, "settings")
    assert where(found) == [("app/settings.py", 4), ("app/settings.py", 12)]


CHECK = """\
import pika

connection = pika.BlockingConnection(pika.ConnectionParameters(host="localhost"))
"""


def test_a_monitoring_check_plugin_is_the_monitoring_hosts(tmp_path: Path) -> None:
    files = {"openshift/nagios/commands/check_rabbitmq_connection.py": CHECK}
    assert scan(tmp_path, files, "settings") == []


def test_the_same_client_in_the_app_is_reported(tmp_path: Path) -> None:
    found = scan(tmp_path, {"app/amqp.py": CHECK}, "settings")
    assert where(found) == [("app/amqp.py", 3)]


ENVIRON = """\
import environ

PROJECT_NAME = "paths"
env = environ.FileAwareEnv(
    DATABASE_URL=(str, {default}),
)
INSTALLED_APPS = []
CACHES = {{"default": {{"BACKEND": "django_redis.cache.RedisCache"}}}}
DATABASES = {{
    "default": env.db_url(engine="app.database"),
}}
"""


def test_an_f_string_schema_default_is_judged_where_it_is_read(tmp_path: Path) -> None:
    source = ENVIRON.format(default='f"postgresql:///{PROJECT_NAME}"')
    found = scan(tmp_path, {"paths/settings.py": source}, "settings")
    assert where(found) == [("paths/settings.py", 10)]


def test_a_schema_default_with_a_host_elsewhere_is_not(tmp_path: Path) -> None:
    source = ENVIRON.format(default='f"postgresql://db.internal/{PROJECT_NAME}"')
    assert scan(tmp_path, {"paths/settings.py": source}, "settings") == []


WRITER = """\
import yaml
from django.conf import settings


def write(cfg):
    with open(settings.BASE_DIR / "instance.yaml", "w") as f:
        yaml.dump(cfg, f)
"""


def test_an_analysts_notebook_script_is_run_by_hand(tmp_path: Path) -> None:
    assert scan(tmp_path, {"notebooks/c4c_yaml.py": WRITER}, "file-write") == []


def test_a_django_app_named_notebooks_is_scanned(tmp_path: Path) -> None:
    files = {
        "notebooks/views.py": WRITER,
        "notebooks/apps.py": "from django.apps import AppConfig\n",
    }
    found = scan(tmp_path, files, "file-write")
    assert where(found) == [("notebooks/views.py", 6)]


def test_a_django_app_named_like_a_monitoring_folder_is_scanned(tmp_path: Path) -> None:
    files = {
        "munin/views.py": WRITER,
        "munin/apps.py": "from django.apps import AppConfig\n",
        "deploy/nagios/commands/check_app.py": WRITER,
    }
    found = scan(tmp_path, files, "file-write")
    assert where(found) == [("munin/views.py", 6)]
