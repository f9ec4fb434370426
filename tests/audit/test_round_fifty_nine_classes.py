"""Classes of the fifty-ninth round (issue 14), each with a true case and a safe twin.

They came from the hundred-and-tenth labelled group (scirius, patchman, fAIr,
django-bims), measured once after the fifty-eighth round and before any of these was
written.

- An option's branch nested in a branch production takes (``if not DEBUG:`` then
  ``if CACHE_BUSTING_MEDIA_ENABLED:``) is off when nothing is set, like a top-level one:
  a storage chosen only there leaves uploads on Django's default ``FileSystemStorage``.
- An option parsed from its text (``ast.literal_eval(os.environ.get("X", "False"))``,
  ``strtobool``, ``json.loads``) is off when its default text says false.
- A kept temp file whose name is bound to another name (``path = tmpfile.name``) and
  handed to a task model's method (``CeleryTask.spawn(..., path=path)``) or stored in a
  row (``Upload.objects.create(path=path)``) is read by name on another instance.
- A subprocess that only reads (``tail``, ``cat``) at a data folder's path reads it: a
  view that tails a log a task writes under ``settings.LOG_PATH`` is the folder's reader.
- The workers of one compose stack that each embed celery beat (``-B``) are one finding:
  the stack's schedule, sent by each of them (django-bims starts three such workers).
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

WSGI = "import os\nos.environ.setdefault('DJANGO_SETTINGS_MODULE', 'proj.settings')\n"

SETTINGS = """\
import ast
import os

DEBUG = False
INSTALLED_APPS = ["django.contrib.admin"]
CACHES = {{"default": {{"BACKEND": "django_redis.cache.RedisCache", "LOCATION": os.environ["R"]}}}}
MEDIA_ROOT = os.getenv("MEDIA_ROOT", "/srv/media")
CACHE_BUSTING_MEDIA_ENABLED = {option}
if not DEBUG:
    if CACHE_BUSTING_MEDIA_ENABLED:
        DEFAULT_FILE_STORAGE = "storages.backends.s3boto3.S3Boto3Storage"
"""

LITERAL_EVAL = 'ast.literal_eval(os.environ.get("CACHE_BUSTING_MEDIA_ENABLED", "{default}"))'


def _storage_findings(tmp_path: Path, option: str) -> list[tuple[str, int]]:
    files = {"proj/wsgi.py": WSGI, "proj/settings.py": SETTINGS.format(option=option)}
    found = scan(tmp_path, files, "settings")
    return where([f for f in found if f.message.startswith("MEDIA_ROOT with no STORAGES")])


def test_a_storage_chosen_in_a_nested_opt_in_branch_is_not_production_s(
    tmp_path: Path,
) -> None:
    option = 'os.environ.get("CACHE_BUSTING_MEDIA_ENABLED", "") == "True"'
    assert _storage_findings(tmp_path, option) == [("proj/settings.py", 7)]


def test_a_storage_chosen_where_the_nested_option_is_on_is_production_s(
    tmp_path: Path,
) -> None:
    assert _storage_findings(tmp_path, "True") == []


def test_an_option_parsed_from_false_text_is_off(tmp_path: Path) -> None:
    option = LITERAL_EVAL.format(default="False")
    assert _storage_findings(tmp_path, option) == [("proj/settings.py", 7)]


def test_an_option_parsed_from_true_text_is_on(tmp_path: Path) -> None:
    assert _storage_findings(tmp_path, LITERAL_EVAL.format(default="True")) == []


FORM = """\
import tempfile

from rules import models


class SourceForm:
    def update(self, request):
        file_ = request.FILES["file"]
        with tempfile.NamedTemporaryFile(delete=False) as tmpfile:
            path = tmpfile.name
            for chunk in file_.chunks():
                tmpfile.write(chunk)
        {hand_off}
"""


def test_a_temp_file_s_name_handed_to_a_task_model_is_found(tmp_path: Path) -> None:
    hand_off = 'models.CeleryTask.spawn("SourceUpdateParentTask", source_pk=1, path=path)'
    found = scan(tmp_path, {"rules/forms.py": FORM.format(hand_off=hand_off)}, "file-write")
    assert where(found) == [("rules/forms.py", 9)]


def test_a_temp_file_s_name_stored_in_a_row_is_found(tmp_path: Path) -> None:
    hand_off = "models.Upload.objects.create(source_pk=1, path=path)"
    found = scan(tmp_path, {"rules/forms.py": FORM.format(hand_off=hand_off)}, "file-write")
    assert where(found) == [("rules/forms.py", 9)]


def test_a_temp_file_s_name_used_here_and_removed_is_not(tmp_path: Path) -> None:
    hand_off = "models.import_source(path)\n        os.remove(path)"
    text = "import os\n" + FORM.format(hand_off=hand_off)
    assert scan(tmp_path, {"rules/forms.py": text}, "file-write") == []


TASKS = """\
import os

from django.conf import settings


def train_model(run_id):
    os.makedirs(settings.LOG_PATH, exist_ok=True)
    with open(os.path.join(settings.LOG_PATH, f"run_{run_id}.log"), "a") as log:
        log.write("epoch 1")
"""

VIEWS = """\
import os
import subprocess

from django.conf import settings
from django.http import HttpResponse


def run_task_status(request, run_id):
    log_file = os.path.join(settings.LOG_PATH, f"run_{{run_id}}.log")
    cmd = [{program}, "-n", "10", log_file]
    return HttpResponse(subprocess.check_output(cmd))
"""


def test_a_view_that_tails_a_task_s_log_folder_reads_it(tmp_path: Path) -> None:
    files = {"core/tasks.py": TASKS, "core/views.py": VIEWS.format(program='"tail"')}
    found = [f for f in scan(tmp_path, files, "file-write") if "LOG_PATH" in f.message]
    assert where(found) == [("core/views.py", 9)]


def test_a_view_that_runs_a_writer_there_is_not_its_reader(tmp_path: Path) -> None:
    files = {"core/tasks.py": TASKS, "core/views.py": VIEWS.format(program='"rotate-logs"')}
    found = [f for f in scan(tmp_path, files, "file-write") if "reads settings" in f.message]
    assert found == []


STACK = """\
services:
  uwsgi:
    image: app:latest
    command: uwsgi --ini /app/uwsgi.ini
  worker:
    image: app:latest
    command: celery --app=app.celery:app worker -Q update -B -l info
  searchworker:
    image: app:latest
    command: celery --app=app.celery:app worker -Q search {beat}-l info
"""


def test_workers_of_one_stack_that_embed_beat_are_one_finding(tmp_path: Path) -> None:
    files = {"deployment/docker-compose.yml": STACK.format(beat="-B ")}
    [found] = scan(tmp_path, files, "scheduler")
    assert (found.path, found.line) == ("deployment/docker-compose.yml", 7)
    assert [(r.path, r.line) for r in found.related] == [("deployment/docker-compose.yml", 10)]


def test_one_worker_that_embeds_beat_has_nothing_related(tmp_path: Path) -> None:
    files = {"deployment/docker-compose.yml": STACK.format(beat="")}
    [found] = scan(tmp_path, files, "scheduler")
    assert (found.line, found.related) == (7, ())
