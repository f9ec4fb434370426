"""Classes of the sixteenth round (issue 14), each with a true case and a safe twin.

- A local file written only when it is missing (``if not os.path.exists(p)``, or
  ``if p.exists(): return p`` ahead of the write) is a per-host cache that every instance
  rebuilds for itself: not a file-write finding. The same write unguarded, guarded by
  another path, or behind ``if exists(p): raise`` (a refusal to overwrite) is reported.
- A build step (``themes/x/build_assets.py``) and the command-line client shipped beside
  the web app (a ``<name>_cli/`` package) are run by an operator, like a management
  command: their writes are not reported. The same write in an app module is.
- A temp file left behind is reported only when its path (or a value built from it)
  leaves the request: handed to a task (also a Celery signature, ``task.s(...)``), put
  into the session, the cache, the response (a redirect whose URL names it), or a field
  of another object; also when a caller in the module takes it back and hands it on.
  Left behind and used only where it was made (a subprocess reads it, the caller
  attaches it to a mail), it is this host's litter, and is not reported.
- A Celery app configured in code rather than from Django's settings
  (``app.conf.broker_url = "redis://localhost:6379/0"``, ``app.conf.update(result_backend=
  …)``) on this host is a service every instance reaches on its own host; on a shared
  host it is silent.
- A settings module's template (``settings.py.tpl``, ``docker.py.template``, ``….py.j2``)
  that an installer renders or an image copies into place is judged with the settings,
  its template tags read as blanks and its placeholders as a word. A template named for
  development (``local.py.template``) is not production's.
- ``migrate`` in a Dockerfile's exec-form ``CMD`` whose words chain commands
  (``["monofy", "manage.py", "migrate", "&&", "gunicorn", …]``), and through a project's
  manage.py under another name (``bugsink-manage``, ``awx-manage``, ``pulpcore-manager``),
  runs at every container start. ``migrate --check`` or ``showmigrations`` there does not.
- An OpenShift ``Template`` (or a ``List``) holds its manifests in ``objects:``: each is
  judged as a document of its own, and a ``DeploymentConfig``, an Argo ``Rollout`` or a
  Clowder ``ClowdApp`` runs replicas like a ``Deployment``. A ClowdApp's ``jobs:`` run
  once per invocation, as a Job does.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.test_outside_measurements import scan, where

# -- a local file rebuilt wherever it is missing -----------------------------------------

PDF_VIEW = """\
import os

from django.conf import settings


def problem_pdf(request, code):
    pdf = os.path.join(settings.PDF_CACHE, code + ".pdf")
    {guard}
        with open(pdf, "wb") as f:
            f.write(render(code))
    return serve(pdf)
"""

ASSET_DOWNLOAD = """\
from pathlib import Path


def local_asset(url, name):
    path = Path("/srv/assets") / name
    if path.exists():
        return path
    path.write_bytes(fetch(url))
    return path
"""


def test_a_write_guarded_by_its_own_path_missing_is_not_reported(tmp_path: Path) -> None:
    for guard in ("if not os.path.exists(pdf):", "if not os.path.isfile(pdf):"):
        files = {"problems/views.py": PDF_VIEW.replace("{guard}", guard)}
        assert scan(tmp_path, files, "file-write") == [], guard
    assert scan(tmp_path, {"assets/fetch.py": ASSET_DOWNLOAD}, "file-write") == []


def test_the_same_write_unguarded_or_guarded_by_another_path_is_reported(
    tmp_path: Path,
) -> None:
    for guard in ("if True:", "if not os.path.exists(settings.PDF_CACHE):"):
        files = {"problems/views.py": PDF_VIEW.replace("{guard}", guard)}
        assert where(scan(tmp_path, files, "file-write")) == [("problems/views.py", 9)], guard


def test_a_refusal_to_overwrite_is_not_a_cache(tmp_path: Path) -> None:
    refusal = ASSET_DOWNLOAD.replace(
        "return path\n    path.write", 'raise IOError("exists")\n    path.write'
    )
    assert where(scan(tmp_path, {"assets/fetch.py": refusal}, "file-write")) == [
        ("assets/fetch.py", 8)
    ]


# -- build steps and command-line clients -------------------------------------------------

WRITER = """\
def write_css(path, text):
    with open("/srv/app/static/theme.css", "w") as f:
        f.write(text)
"""


def test_a_build_step_or_a_cli_package_is_run_by_an_operator(tmp_path: Path) -> None:
    for name in ("themes/clean/build_assets.py", "portal_cli/scaffold_commands.py"):
        assert scan(tmp_path / name.replace("/", "_"), {name: WRITER}, "file-write") == [], name


def test_the_same_write_in_an_app_module_is_reported(tmp_path: Path) -> None:
    for name in ("themes/clean/assets.py", "cli/commands.py"):
        found = scan(tmp_path / name.replace("/", "_"), {name: WRITER}, "file-write")
        assert where(found) == [(name, 2)], name


# -- a temp file left behind is reported when its path leaves the request ---------------

WHEEL_UPLOAD = """\
import os
import subprocess
import tempfile


def upload(request, file):
    tmp_dir = tempfile.mkdtemp()
    token = os.path.basename(tmp_dir)
    with open(os.path.join(tmp_dir, file.name), "wb") as out:
        out.write(file.read())
    {after}
"""


def test_a_temp_whose_token_goes_into_the_redirect_is_reported(tmp_path: Path) -> None:
    after = 'return HttpResponseRedirect(reverse("confirm") + "?token=" + token)'
    for handed in (after, "consume.s(tmp_dir).apply_async()", "request.session['t'] = token"):
        files = {"addons/views.py": WHEEL_UPLOAD.replace("{after}", handed)}
        found = scan(tmp_path / str(len(handed)), files, "file-write")
        assert where(found) == [("addons/views.py", 9)], handed


def test_a_temp_used_only_where_it_was_made_is_not_reported(tmp_path: Path) -> None:
    after = 'subprocess.run(["pip", "install", tmp_dir], check=True)'
    files = {"addons/views.py": WHEEL_UPLOAD.replace("{after}", after)}
    assert scan(tmp_path, files, "file-write") == []


# -- a Celery app configured in code ------------------------------------------------------

CELERY_APP = """\
from celery import Celery

app = Celery("shop")
app.conf.broker_url = "{broker}"
app.conf.update(result_backend="{backend}", task_serializer="json")
"""


def test_a_celery_app_configured_in_code_on_this_host_is_reported(tmp_path: Path) -> None:
    code = CELERY_APP.format(broker="redis://localhost:6379/0", backend="redis://127.0.0.1:6379/1")
    assert where(scan(tmp_path, {"shop/celery.py": code}, "settings")) == [
        ("shop/celery.py", 4),
        ("shop/celery.py", 5),
    ]


def test_a_celery_app_configured_in_code_on_a_shared_host_is_silent(tmp_path: Path) -> None:
    shared = "redis://redis.internal:6379/0"
    code = CELERY_APP.format(broker=shared, backend=shared)
    assert scan(tmp_path, {"shop/celery.py": code}, "settings") == []


# -- a settings module's template ---------------------------------------------------------

SETTINGS_TPL = """\
import os

SECRET_KEY = "{{ secret_key }}"
INSTALLED_APPS = (
    "django.contrib.auth",
{% for extension in extensions %}    "{{ extension }}",
{% endfor %}
)
DATABASES = {"default": {"ENGINE": "django.db.backends.postgresql", "HOST": "db.internal"}}
REDIS_HOST = "{redis}"
"""


def test_a_settings_template_an_installer_renders_is_judged(tmp_path: Path) -> None:
    files = {
        "shop/commands/templates/settings.py.tpl": SETTINGS_TPL.replace("{redis}", "localhost")
    }
    found = scan(tmp_path, files, "settings")
    assert where(found) == [("shop/commands/templates/settings.py.tpl", 10)]


PERCENT_TPL = """\
%(import_function)s

SECRET_KEY = %(secret_key)r
DEBUG = %(debug)s
INSTALLED_APPS = ["django.contrib.auth"]
DATABASES = {"default": {"ENGINE": "django.db.backends.postgresql", "HOST": "db.internal"}}
CACHES = {"default": {"BACKEND": "django_redis.cache.RedisCache",
                      "LOCATION": "redis://{redis}:6379/0"}}
LOGGING = {"formatters": {"plain": {"format": "%(asctime)s %(message)s"}}}
"""


@pytest.mark.parametrize(("redis", "found_at"), [("127.0.0.1", [8]), ("redis.internal", [])])
def test_a_settings_template_filled_by_percent_formatting_is_judged(
    tmp_path: Path, redis: str, found_at: list[int]
) -> None:
    # ``settings.py.tpl`` that an installer fills with ``template % context`` (OpenSlides):
    # its ``%(name)s`` placeholders in code made it no Python, and it was skipped unread.
    files = {"shop/utils/settings.py.tpl": PERCENT_TPL.replace("{redis}", redis)}
    found = scan(tmp_path, files, "settings")
    assert where(found) == [("shop/utils/settings.py.tpl", line) for line in found_at]


def test_a_development_template_or_a_shared_host_is_silent(tmp_path: Path) -> None:
    local = {"conf/local.py.template": SETTINGS_TPL.replace("{redis}", "localhost")}
    assert scan(tmp_path / "a", local, "settings") == []
    shared = {"conf/settings.py.tpl": SETTINGS_TPL.replace("{redis}", "redis.internal")}
    assert scan(tmp_path / "b", shared, "settings") == []


# -- migrate in an exec-form CMD, through a renamed manage.py --------------------------------

EXEC_FORM = """\
FROM python:3.12
CMD ["monofy", "{manage}", "{command}", "&&", "gunicorn", "app.wsgi", "|||", "worker"]
"""


def test_migrate_in_an_exec_form_chain_or_a_renamed_manage_py_is_found(tmp_path: Path) -> None:
    for manage in ("manage.py", "bugsink-manage", "pulpcore-manager", "awx-manage"):
        dockerfile = EXEC_FORM.format(manage=manage, command="migrate")
        found = scan(tmp_path / manage, {"Dockerfile": dockerfile}, "boot-migrate")
        assert where(found) == [("Dockerfile", 2)], manage


def test_a_dry_run_or_another_command_in_the_chain_is_not(tmp_path: Path) -> None:
    for command in ("showmigrations", 'migrate", "--check'):
        dockerfile = EXEC_FORM.format(manage="bugsink-manage", command=command)
        assert scan(tmp_path / str(len(command)), {"Dockerfile": dockerfile}, "boot-migrate") == []


# -- manifests inside an OpenShift Template --------------------------------------------------

TEMPLATE = """\
apiVersion: template.openshift.io/v1
kind: Template
metadata:
  name: shop
objects:
- apiVersion: cloud.redhat.com/v1alpha1
  kind: ClowdApp
  metadata:
    name: shop
  spec:
    deployments:
    - name: api
      podSpec:
        image: shop:latest
        {deployment}
    jobs:
    - name: db-migrate
      podSpec:
        command:
        - /bin/bash
        - -c
        - $APP_ROOT/scripts/run_migrations.sh
- apiVersion: v1
  kind: Secret
  metadata:
    name: shop
"""
INIT_MIGRATE = """initContainers:
        - command:
          - /bin/bash
          - -c
          - $APP_ROOT/scripts/run_migrations.sh"""


def test_a_clowdapp_deployment_that_migrates_in_a_template_is_found(tmp_path: Path) -> None:
    files = {"deploy/clowdapp.yaml": TEMPLATE.format(deployment=INIT_MIGRATE)}
    assert where(scan(tmp_path, files, "boot-migrate")) == [("deploy/clowdapp.yaml", 19)]


def test_a_clowdapp_job_that_migrates_is_not(tmp_path: Path) -> None:
    files = {"deploy/clowdapp.yaml": TEMPLATE.format(deployment="replicas: 3")}
    assert scan(tmp_path, files, "boot-migrate") == []
