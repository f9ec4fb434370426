"""Classes of the twenty-fourth round (issue 14), each with a true case and a safe twin.

They came from the thirty-fourth to the thirty-sixth labelled groups (mediacms, sal,
FuzzManager, hawkpost, safe-transaction-service; osm-export-tool, codalab-competitions,
rca-wagtail-2019, timed-backend, opencodelists; AdventureLog, palvelutarjotin,
ubyssey.ca, FAC, opencraft), all three measured once before any of them was written.

- A project's Huey periodic tasks are one finding, however many modules hold them, with
  the start lines that run a consumer with its scheduler related.
- django-compressor's other settings (``COMPRESS_PRECOMPILERS``) are related to the
  finding that it compresses on request.
- A start script that sources a library of shell functions runs the ones it calls.
- A ``SECRET_KEY`` generated into the environment by a start script is each replica's own.
- A supervisor program that runs ``/usr/sbin/cron -f`` is the image's cron; a supervisor
  config's scheduler has the lines that install the config related; an ``echo`` that names
  celery-beat starts nothing.
- Class-based settings with no production class are read as their base configuration.
- A project command that sleeps, run by a supervisor that restarts it, is a periodic job
  in every container.
- ``old_cache.delete()`` is not Django's cache unless the module imports it.
- Python under ``terraform/`` is infrastructure code an operator applies.
- A switch between named environments (``if ENV not in ["STAGING", "PRODUCTION"]``) is
  read as production takes it.
- A custom service host setting that nothing reads reaches no client.
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

# -- Huey: one finding per project -------------------------------------------------------

PERIODIC = """\
from huey import crontab
from huey.contrib.djhuey import db_periodic_task


@db_periodic_task(crontab(minute="0"))
def {name}():
    pass
"""


def test_huey_periodic_tasks_of_several_modules_are_one_finding(tmp_path: Path) -> None:
    files = {
        "billing/tasks.py": PERIODIC.format(name="refresh_rates"),
        "reports/tasks.py": PERIODIC.format(name="mail_reports"),
        "Procfile": "web: gunicorn site.wsgi\n"
        "worker: python manage.py run_huey --no-periodic\n"
        "periodic: python manage.py run_huey --workers=0\n",
    }
    found = scan(tmp_path, files, "scheduler")
    assert where(found) == [("billing/tasks.py", 5)]
    related = {(r.path, r.line) for r in found[0].related}
    assert related == {("reports/tasks.py", 5), ("Procfile", 3)}


def test_a_single_periodic_task_with_no_consumer_line_stays_as_it_was(tmp_path: Path) -> None:
    found = scan(tmp_path, {"billing/tasks.py": PERIODIC.format(name="x")}, "scheduler")
    assert where(found) == [("billing/tasks.py", 5)]
    assert found[0].related == ()


# -- django-compressor's settings are one cause ------------------------------------------

COMPRESSOR = """\
INSTALLED_APPS = ["django.contrib.staticfiles", "compressor"]
CACHES = {"default": {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": "redis://r"}}
COMPRESS_PRECOMPILERS = (
    ("text/x-scss", "django_libsass.SassCompiler"),
)
"""


def test_compressor_settings_are_related_to_its_finding(tmp_path: Path) -> None:
    files = {
        "site/settings.py": COMPRESSOR,
        "site/templates/base.html": "{% load compress %}{% compress css %}{% endcompress %}",
    }
    found = [f for f in scan(tmp_path, files, "settings") if "COMPRESS_OFFLINE" in f.message]
    assert where(found) == [("site/settings.py", 1)]
    # The template's tag is related too (the fifty-third round): where a page asks for it.
    assert [(r.path, r.line) for r in found[0].related] == [
        ("site/settings.py", 3),
        ("site/templates/base.html", 1),
    ]


def test_compressor_offline_is_silent(tmp_path: Path) -> None:
    files = {
        "site/settings.py": COMPRESSOR + "COMPRESS_OFFLINE = True\n",
        "site/templates/base.html": "{% load compress %}{% compress css %}{% endcompress %}",
    }
    found = [f for f in scan(tmp_path, files, "settings") if "COMPRESS" in f.message]
    assert found == []


# -- a sourced library of shell functions -----------------------------------------------

LIBRARY = """\
#!/bin/bash
# Shared start-up steps; source me.

run_migrations() {
    python manage.py migrate
}

collect() {
    python manage.py collectstatic --noinput
}
"""
ENTRYPOINT = """\
#!/bin/bash
set -e
source /code/scripts/entrypoint-common.sh

{call}
exec gunicorn site.wsgi
"""
DOCKERFILE = """\
FROM python:3.12
COPY docker/entrypoint-common.sh /code/scripts/entrypoint-common.sh
COPY docker/entrypoint.sh /code/entrypoint.sh
ENTRYPOINT ["/code/entrypoint.sh"]
"""


def test_a_sourced_function_the_entrypoint_calls_runs_at_start(tmp_path: Path) -> None:
    files = {
        "docker/entrypoint-common.sh": LIBRARY,
        "docker/entrypoint.sh": ENTRYPOINT.replace("{call}", "run_migrations"),
        "Dockerfile": DOCKERFILE,
    }
    found = scan(tmp_path, files, "boot-migrate")
    assert where(found) == [("docker/entrypoint-common.sh", 5)]
    assert [(r.path, r.line) for r in found[0].related] == [("docker/entrypoint.sh", 3)]


def test_a_sourced_function_nobody_calls_is_silent(tmp_path: Path) -> None:
    files = {
        "docker/entrypoint-common.sh": LIBRARY,
        "docker/entrypoint.sh": ENTRYPOINT.replace("{call}", "collect"),
        "Dockerfile": DOCKERFILE,
    }
    assert scan(tmp_path, files, "boot-migrate") == []


# -- SECRET_KEY generated into the environment at start --------------------------------

ENV_SETUP = """\
#!/bin/bash
if [[ -z "${SECRET_KEY:-}" ]]; then
    export SECRET_KEY="$(python3 -c 'import secrets; print(secrets.token_urlsafe(50))')"
fi
exec gunicorn site.wsgi
"""


def test_a_secret_key_generated_into_the_environment_is_found(tmp_path: Path) -> None:
    found = scan(tmp_path, {"docker/entrypoint.sh": ENV_SETUP}, "settings")
    assert where(found) == [("docker/entrypoint.sh", 3)]
    assert "SECRET_KEY is generated" in found[0].message


def test_another_generated_variable_is_silent(tmp_path: Path) -> None:
    other = ENV_SETUP.replace("SECRET_KEY", "REQUEST_ID")
    assert scan(tmp_path, {"docker/entrypoint.sh": other}, "settings") == []


def test_a_generated_key_written_to_a_file_is_one_finding(tmp_path: Path) -> None:
    to_file = ENV_SETUP.replace("fi\n", 'echo "$SECRET_KEY" > /data/secret_key\nfi\n')
    found = scan(tmp_path, {"docker/entrypoint.sh": to_file}, None)
    assert [(f.path, f.line, f.category) for f in found] == [
        ("docker/entrypoint.sh", 4, "file-write")
    ]


# -- cron and schedulers started by a supervisor ----------------------------------------

SUPERVISOR = """\
[supervisord]
nodaemon=true

[program:gunicorn]
command=gunicorn site.wsgi

[program:cron]
command={cron}
autorestart=true
"""
CRON_IMAGE = """\
FROM python:3.12
RUN apt-get update && apt-get install -y cron
COPY cron/site /etc/cron.d/site
COPY docker/supervisord.conf /etc/supervisor/conf.d/supervisord.conf
CMD ["supervisord", "-c", "/etc/supervisor/conf.d/supervisord.conf"]
"""


def test_cron_by_its_path_in_a_supervisor_program_is_the_images_cron(tmp_path: Path) -> None:
    files = {
        "docker/supervisord.conf": SUPERVISOR.format(cron="/usr/sbin/cron -f -L 15"),
        "Dockerfile": CRON_IMAGE,
    }
    found = scan(tmp_path, files, "image-cron")
    assert len(found) == 1
    places = {(found[0].path, found[0].line)} | {(r.path, r.line) for r in found[0].related}
    assert ("docker/supervisord.conf", 8) in places


def test_a_program_that_tails_the_cron_log_is_no_cron(tmp_path: Path) -> None:
    files = {"docker/supervisord.conf": SUPERVISOR.format(cron="tail -f /var/log/cron")}
    assert scan(tmp_path, files, "image-cron") == []


BEAT_SCRIPT = """\
#!/bin/bash
if [ X"$ENABLE_CELERY_BEAT" = X"yes" ] ; then
    echo "Enabling celery-beat scheduling server"
    cp deploy/supervisord/supervisord-celery_beat.conf /etc/supervisor/conf.d/
fi
exec supervisord -n
"""
BEAT_PROGRAM = """\
[program:celery_beat]
command=celery beat --app=site --loglevel=info
"""


def test_a_beat_program_has_the_line_that_installs_it_related(tmp_path: Path) -> None:
    files = {
        "deploy/prestart.sh": BEAT_SCRIPT,
        "deploy/supervisord/supervisord-celery_beat.conf": BEAT_PROGRAM
        + "\n[program:web]\ncommand=gunicorn site.wsgi\n",
    }
    found = scan(tmp_path, files, "scheduler")
    assert where(found) == [("deploy/supervisord/supervisord-celery_beat.conf", 2)]
    assert [(r.path, r.line) for r in found[0].related] == [("deploy/prestart.sh", 4)]


def test_an_echo_that_names_celery_beat_starts_nothing(tmp_path: Path) -> None:
    script = BEAT_SCRIPT.replace("    cp deploy/supervisord/supervisord-celery_beat.conf", "#")
    found = scan(tmp_path, {"deploy/prestart.sh": script}, "scheduler")
    assert found == []


# -- class-based settings with no production class --------------------------------------

CONFIGURATIONS = """\
from configurations import Configuration


class Base(Configuration):
    INSTALLED_APPS = ["django.contrib.staticfiles"]
    CACHES = {"default": {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": "redis://r"}}
    DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": "site.sqlite3"}}


class DevBase(Base):
    DEBUG = True


class Dev(DevBase):
    pass
"""


def test_the_base_configuration_is_what_every_class_gets(tmp_path: Path) -> None:
    found = scan(tmp_path, {"site/settings/base.py": CONFIGURATIONS}, "settings")
    assert ("site/settings/base.py", 7) in where(found)


def test_a_development_only_configuration_module_is_silent(tmp_path: Path) -> None:
    dev_only = CONFIGURATIONS.replace("class Base(Configuration)", "class DevBase0(Configuration)")
    dev_only = dev_only.replace("(Base)", "(DevBase0)")
    found = scan(tmp_path, {"site/settings/base.py": dev_only}, "settings")
    assert ("site/settings/base.py", 7) not in where(found)


# -- a supervised command that sleeps between runs --------------------------------------

SLEEPING_COMMAND = """\
from time import sleep

from django.core.management.base import BaseCommand


class Command(BaseCommand):
    def add_arguments(self, parser):
        parser.add_argument("sleep_time", type=int, nargs="?", default=0)

    def handle(self, *args, **options):
        sleep(options["sleep_time"])
        prune_old_rows()
"""
MAINTENANCE = """\
[program:web]
command=gunicorn site.wsgi

[program:maintenance]
command=python3 manage.py prune_history 3600
autorestart={restart}
"""


def test_a_restarted_sleeping_command_is_a_periodic_job_per_container(tmp_path: Path) -> None:
    files = {
        "history/management/commands/prune_history.py": SLEEPING_COMMAND,
        "docker/supervisord.conf": MAINTENANCE.format(restart="true"),
    }
    found = scan(tmp_path, files, "scheduler")
    assert where(found) == [("docker/supervisord.conf", 5)]
    assert [(r.path, r.line) for r in found[0].related] == [
        ("history/management/commands/prune_history.py", 11)
    ]


def test_a_sleeping_command_run_once_is_silent(tmp_path: Path) -> None:
    files = {
        "history/management/commands/prune_history.py": SLEEPING_COMMAND,
        "docker/supervisord.conf": MAINTENANCE.format(restart="false"),
    }
    assert scan(tmp_path, files, "scheduler") == []


# -- a model row named for a cache is not the cache -------------------------------------

UNSET_CACHES = "INSTALLED_APPS = ['django.contrib.staticfiles']\n"
ROW_NAMED_CACHE = """\
from search.models import SearchFieldCache


def rebuild():
    old_cache = SearchFieldCache.objects.all()
    old_cache.delete()
"""


def test_a_row_named_cache_does_not_make_unset_caches_matter(tmp_path: Path) -> None:
    files = {"site/settings.py": UNSET_CACHES, "search/jobs.py": ROW_NAMED_CACHE}
    found = [f for f in scan(tmp_path, files, "settings") if "CACHES" in f.message]
    assert found == []


def test_djangos_cache_under_another_name_still_counts(tmp_path: Path) -> None:
    renamed = "from django.core.cache import cache as old_cache\n\n\ndef drop():\n"
    renamed += "    old_cache.delete('k')\n"
    files = {"site/settings.py": UNSET_CACHES, "search/jobs.py": renamed}
    found = [f for f in scan(tmp_path, files, "settings") if "CACHES" in f.message]
    assert where(found) == [("site/settings.py", 1)]


# -- infrastructure code ------------------------------------------------------------------

WRITES_A_FILE = """\
import os

from django.conf import settings


def save_report(name, content):
    with open(os.path.join(settings.MEDIA_ROOT, name), "w") as output:
        output.write(content)
"""


def test_python_under_terraform_is_applied_by_an_operator(tmp_path: Path) -> None:
    found = scan(tmp_path, {"terraform/meta/update_files.py": WRITES_A_FILE}, "file-write")
    assert found == []


def test_the_same_write_in_the_app_is_found(tmp_path: Path) -> None:
    found = scan(tmp_path, {"reports/exports.py": WRITES_A_FILE}, "file-write")
    assert where(found) == [("reports/exports.py", 7)]


# -- a switch between named environments ---------------------------------------------------

NAMED_ENVIRONMENTS = """\
import environ

env = environ.Env()
INSTALLED_APPS = []
CACHES = {{"default": {{"BACKEND": "django_redis.cache.RedisCache", "LOCATION": "redis://r"}}}}
ENVIRONMENT = env.str("ENV", "UNDEFINED").upper()
if ENVIRONMENT not in [{names}]:
    DATABASES = {{"default": env.db("DATABASE_URL", default="postgres://u:p@localhost/app")}}
else:
    DATABASES = {{"default": env.db("DATABASE_URL")}}
"""


def test_the_arm_that_names_production_is_productions(tmp_path: Path) -> None:
    source = NAMED_ENVIRONMENTS.format(names='"STAGING", "PRODUCTION"')
    found = scan(tmp_path, {"site/settings.py": source}, "settings")
    assert [f for f in found if "DATABASES" in f.message] == []


def test_a_switch_that_names_no_production_keeps_the_default(tmp_path: Path) -> None:
    source = NAMED_ENVIRONMENTS.format(names='"STAGING", "QA"')
    found = scan(tmp_path, {"site/settings.py": source}, "settings")
    assert where([f for f in found if "DATABASES" in f.message]) == [("site/settings.py", 8)]


# -- a custom service setting nothing reads ------------------------------------------------

UNREAD_HOST = """\
import os

INSTALLED_APPS = []
CACHES = {"default": {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": "redis://r"}}
REDIS_HOST = os.environ.get("REDIS_HOST", "127.0.0.1")
"""


MODELS = "from django.db import models\n\n\nclass Page(models.Model):\n    pass\n"


def test_a_host_setting_nothing_reads_is_silent(tmp_path: Path) -> None:
    files = {"site/settings.py": UNREAD_HOST, "site/models.py": MODELS}
    found = scan(tmp_path, files, "settings")
    assert [f for f in found if "REDIS_HOST" in f.message] == []


def test_a_host_setting_code_reads_is_found(tmp_path: Path) -> None:
    reader = "from django.conf import settings\n\nHOST = settings.REDIS_HOST\n"
    files = {"site/settings.py": UNREAD_HOST, "site/queues.py": reader, "site/models.py": MODELS}
    found = scan(tmp_path, files, "settings")
    assert where([f for f in found if "REDIS_HOST" in f.message]) == [("site/settings.py", 5)]
