"""Classes of the sixty-fourth round (issue 14), each with a true case and a safe twin.

They came from the hundred-and-eighteenth group (dmt, flagsmith, junction, mediathread,
concordia, penn-platform, penn-courses, archweb, osf.io, labelled before either tool ran
on them), read after its first measurement:

- A settings module named like a copy (``settings_template.py``) that a production module
  star-imports (``settings_ecs.py``: ``from .settings_template import *``) is no template
  but their base: its defaults are production's (concordia). One nothing imports stays an
  operator's copy. Load-test and integration-test settings are a developer's (concordia,
  dmt).
- An entrypoint that tests its argument in one ``if`` per word (``if [ "$1" == "migrate" ]
  … fi`` then ``if [ "$1" == "run" ] … fi``) dispatches as an ``elif`` chain does: the
  ``migrate`` arm runs where a container is started with that word, a Helm init container's
  ``/run.sh migrate`` at every pod's start, not in the web container (mediathread, dmt).
- Sessions kept in the cache (``cached_db``) with no ``CACHES`` are in each process's
  LocMem cache, whatever the code does with the cache (archweb, open-afval).
- No ``MEDIA_ROOT`` and no storage setting, with models that store uploads: the uploads
  go to the working directory of whichever host took them (archweb).
- A management command that a view runs (``call_command("sync_data")``) writes on the
  instance that served the request (junction); one that only tasks or operators run is
  theirs.
- ``image.save("{}/{}.png".format(settings.QR_CODES_DIR, name))`` writes a file, as
  ``open(path, "wb")`` does (junction); a model's ``save()``, a storage's ``save(name,
  content)`` and a save into a buffer do not.
- A search service by its short name (``ELASTIC_URI = "127.0.0.1:9200"``) on this host
  (osf.io).
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

TEMPLATE = """\
import os

from django.core.management.utils import get_random_secret_key

INSTALLED_APPS = ["django.contrib.auth"]
SECRET_KEY = os.getenv("DJANGO_SECRET_KEY", get_random_secret_key())
"""
ECS = "from .settings_template import *  # noqa\n\nDEBUG = False\n"


def test_a_template_named_base_of_production_is_read_as_production(tmp_path: Path) -> None:
    files = {"app/settings_template.py": TEMPLATE, "app/settings_ecs.py": ECS}
    found = scan(tmp_path, files, "settings")
    assert where(found) == [("app/settings_template.py", 6)]


def test_a_template_nothing_imports_is_an_operators_copy(tmp_path: Path) -> None:
    assert scan(tmp_path, {"app/settings_template.py": TEMPLATE}, "settings") == []


def test_load_test_and_integration_settings_are_a_developers(tmp_path: Path) -> None:
    local = (
        "from .settings_shared import *  # noqa\n\nDATABASES = {'default': {'HOST': 'localhost'}}\n"
    )
    shared = "INSTALLED_APPS = []\nDATABASES = {'default': {'HOST': os.environ['DB_HOST']}}\n"
    files = {
        "app/settings_shared.py": "import os\n" + shared,
        "app/settings_loadtest.py": local,
        "app/settings_integration.py": local,
    }
    assert scan(tmp_path, files, "settings") == []


RUN = """\
#!/bin/bash
cd /app/

if [ "$1" == "migrate" ]; then
    exec /ve/bin/python manage.py migrate --noinput
fi

if [ "$1" == "beat" ]; then
    exec /ve/bin/python manage.py celery beat
fi

if [ "$1" == "run" ]; then
    exec /ve/bin/gunicorn app.wsgi:application -b 0.0.0.0:8000
fi
"""
DOCKERFILE = 'FROM python:3.12\nADD docker-run.sh /run.sh\nENTRYPOINT ["/run.sh"]\nCMD ["run"]\n'
HELM = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: app
spec:
  replicas: 2
  template:
    spec:
      initContainers:
      - name: initdjango
        image: app
        command: ['sh', '-c', '/run.sh migrate && /run.sh collectstatic']
      containers:
      - name: app
        image: app
"""


def test_an_init_container_asking_the_entrypoint_to_migrate_migrates(tmp_path: Path) -> None:
    files = {
        "docker-run.sh": RUN,
        "Dockerfile": DOCKERFILE,
        "helm/templates/deployment.yaml": HELM,
    }
    found = scan(tmp_path, files)
    assert [(f.path, f.line, f.category) for f in found] == [
        ("helm/templates/deployment.yaml", 12, "boot-migrate")
    ]


def test_the_arms_of_an_entrypoint_dispatching_on_its_argument_are_not_every_start(
    tmp_path: Path,
) -> None:
    assert scan(tmp_path, {"docker-run.sh": RUN, "Dockerfile": DOCKERFILE}) == []


def test_one_toggle_tested_twice_is_no_dispatch(tmp_path: Path) -> None:
    toggled = (
        '#!/bin/bash\nif [ "$ROLE" == "all" ]; then\n    python manage.py migrate\nfi\n'
        'if [ "$ROLE" == "all" ]; then\n    echo migrated\nfi\n'
        "exec gunicorn app.wsgi:application\n"
    )
    found = scan(tmp_path, {"docker-entrypoint.sh": toggled}, "boot-migrate")
    assert where(found) == [("docker-entrypoint.sh", 3)]


SESSIONS = "INSTALLED_APPS = ['django.contrib.sessions']\nSESSION_ENGINE = '{engine}'\n"


def test_sessions_in_the_cache_with_no_caches_are_per_process(tmp_path: Path) -> None:
    source = SESSIONS.format(engine="django.contrib.sessions.backends.cached_db")
    [finding] = scan(tmp_path, {"app/settings.py": source}, "settings")
    assert finding.message.startswith("CACHES is not set")
    assert [(r.path, r.line) for r in finding.related] == [("app/settings.py", 2)]


def test_sessions_in_the_database_need_no_cache(tmp_path: Path) -> None:
    source = SESSIONS.format(engine="django.contrib.sessions.backends.db")
    assert scan(tmp_path, {"app/settings.py": source}, "settings") == []


NO_MEDIA = (
    "import os\n\nINSTALLED_APPS = ['app']\nDATABASES = {'default': {'HOST': os.environ['DB']}}\n"
)
PROFILE = """\
from django.db import models


class Profile(models.Model):
    picture = models.FileField(upload_to="devel/avatars", blank=True)
"""


def test_uploads_with_no_media_root_and_no_storage_are_reported(tmp_path: Path) -> None:
    files = {"app/settings.py": NO_MEDIA, "app/models.py": PROFILE}
    [finding] = scan(tmp_path, files, "settings")
    assert finding.message.startswith("MEDIA_ROOT is not set and no STORAGES")
    assert ("app/models.py", 5) in [(r.path, r.line) for r in finding.related]


def test_no_media_root_is_no_problem_where_nothing_is_uploaded(tmp_path: Path) -> None:
    assert scan(tmp_path, {"app/settings.py": NO_MEDIA}, "settings") == []


def test_a_storage_chosen_from_an_option_decides_the_uploads(tmp_path: Path) -> None:
    chosen = NO_MEDIA + (
        "if os.environ.get('USE_S3'):\n"
        "    STORAGES = {'default': {'BACKEND': 'storages.backends.s3.S3Storage'}}\n"
    )
    found = scan(tmp_path, {"app/settings.py": chosen, "app/models.py": PROFILE}, "settings")
    assert not [f for f in found if f.message.startswith("MEDIA_ROOT is not set")]


SYNC = """\
import os

import qrcode
from django.conf import settings
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    def handle(self, *args, **options):
        for ticket_no in ("a", "b"):
            qr_code = qrcode.make(ticket_no)
            qr_code.save("{}/{}.png".format(settings.QR_CODES_DIR, ticket_no))
"""
VIEW = """\
from django.core.management import call_command
from django.shortcuts import render


def sync_data(request):
    call_command("sync_data")
    return render(request, "sync_data.html")
"""


def test_a_command_a_view_runs_writes_on_the_instance_that_served_it(tmp_path: Path) -> None:
    files = {"tickets/management/commands/sync_data.py": SYNC, "tickets/views.py": VIEW}
    found = scan(tmp_path, files, "file-write")
    assert where(found) == [("tickets/management/commands/sync_data.py", 12)]


def test_a_command_only_a_task_runs_is_not_a_requests(tmp_path: Path) -> None:
    files = {
        "tickets/management/commands/sync_data.py": SYNC,
        "tickets/tasks.py": VIEW.replace("def sync_data(request)", "def sync_data()"),
    }
    assert scan(tmp_path, files, "file-write") == []


SAVES = """\
import io

from django.conf import settings
from django.core.files.storage import default_storage
from PIL import Image


def render_badge(badge, name):
    image = Image.new("RGB", (10, 10))
    {call}
"""


def test_an_image_saved_to_a_named_file_is_a_local_write(tmp_path: Path) -> None:
    call = 'image.save("{}/{}.png".format(settings.BADGES_DIR, name))'
    found = scan(tmp_path, {"app/badges.py": SAVES.format(call=call)}, "file-write")
    assert where(found) == [("app/badges.py", 10)]


def test_saves_into_models_storages_and_buffers_are_not(tmp_path: Path) -> None:
    for call in (
        "badge.save()",
        "badge.save(update_fields=['image'])",
        "default_storage.save(name, io.BytesIO())",
        'image.save(io.BytesIO(), format="PNG")',
    ):
        source = SAVES.format(call=call)
        assert scan(tmp_path, {"app/badges.py": source}, "file-write") == [], call


def test_a_search_service_by_its_short_name_on_this_host(tmp_path: Path) -> None:
    source = (
        "INSTALLED_APPS = []\nCACHES = {'default': {'BACKEND': 'django_redis.cache.RedisCache'}}\n"
        "ELASTIC_URI = '127.0.0.1:9200'\nELASTIC_TIMEOUT = 10\n"
    )
    found = scan(tmp_path, {"app/settings.py": source}, "settings")
    assert where(found) == [("app/settings.py", 3)]


def test_an_integrations_settings_component_is_production(tmp_path: Path) -> None:
    files = {
        "app/settings/base.py": "INSTALLED_APPS = []\nfrom .integrations import *  # noqa\n",
        "app/settings/integrations.py": (
            "import os\n\nCELERY_BROKER_URL = os.getenv('BROKER', 'redis://localhost:6379/0')\n"
        ),
    }
    found = scan(tmp_path, files, "settings")
    assert where(found) == [("app/settings/integrations.py", 3)]


def test_an_elastic_apm_agent_on_this_host_is_no_shared_service(tmp_path: Path) -> None:
    source = (
        "INSTALLED_APPS = []\nCACHES = {'default': {'BACKEND': 'django_redis.cache.RedisCache'}}\n"
        "ELASTIC_APM_SERVER_URL = 'http://localhost:8200'\n"
    )
    assert scan(tmp_path, {"app/settings.py": source}, "settings") == []
