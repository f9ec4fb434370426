"""Classes of the sixty-eighth round (issue 14), each with a true case and a safe twin.

They came from the hundred-and-twenty-second group (a4-product, vulnerablecode,
cornerwise, wevoteserver, wazimap, labelled before either tool ran on them), after its
first measurement:

- A start script that keeps ``manage.py`` in a shell variable named for it
  (``manage="$PYTHON_BIN $APP_ROOT/manage.py"`` … ``$manage migrate``) migrates at every
  start as a written-out ``manage.py migrate`` does (cornerwise).
- A database ``HOST`` given as a top-level name whose environment default is empty
  (``POSTGRES_HOST = os.environ.get("POSTGRES_HOST", "")`` … ``"HOST": POSTGRES_HOST``) is
  this host's socket, as the lookup written in the alias is (cornerwise); a lookup that
  falls back on a variable the platform sets for a linked service
  (``POSTGRESQL_PORT_5432_TCP_ADDR``, ``…_SERVICE_HOST``) is not (dmt, mediathread).
- A file write in a module-level function whose every call is commented out
  (``# write_event_to_local_file(event)``) runs nowhere (wevoteserver); one that nothing
  names at all may be a reusable app's API and is still reported.
- django-allauth's login-attempt and rate limits and django-axes' cache handler count in
  the default cache: with no ``CACHES`` each process counts alone, as DRF's throttles do
  (a4-product).
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

START = """\
#!/bin/bash
cd $(dirname "${BASH_SOURCE[0]}")
PYTHON_BIN=$(which python3 || which python)
manage="$PYTHON_BIN $APP_ROOT/manage.py"

echo "Applying any outstanding migrations"
$manage migrate

exec gunicorn app.wsgi:application
"""
DOCKERFILE = 'FROM python:3.12\nCOPY . /app\nCMD ["/app/start.sh"]\n'


def test_manage_py_kept_in_a_shell_variable_migrates_at_every_start(tmp_path: Path) -> None:
    found = scan(tmp_path, {"start.sh": START, "Dockerfile": DOCKERFILE}, "boot-migrate")
    assert where(found) == [("start.sh", 7)]


def test_a_shell_variable_asked_for_something_else_does_not(tmp_path: Path) -> None:
    start = START.replace("$manage migrate", "$manage showmigrations")
    assert scan(tmp_path, {"start.sh": start, "Dockerfile": DOCKERFILE}, "boot-migrate") == []


def test_a_variable_not_named_for_manage_py_is_not_read_as_it(tmp_path: Path) -> None:
    start = START.replace("$manage migrate", "$PYTHON_BIN tools/migrate_assets.py")
    assert scan(tmp_path, {"start.sh": start, "Dockerfile": DOCKERFILE}, "boot-migrate") == []


DATABASE = """\
import os

INSTALLED_APPS = []
CACHES = {{"default": {{"BACKEND": "django_redis.cache.RedisCache", "LOCATION": "redis://r"}}}}

POSTGRES_HOST = {host}
DATABASES = {{
    "default": {{
        "ENGINE": "django.contrib.gis.db.backends.postgis",
        "HOST": POSTGRES_HOST,
        "NAME": "postgres",
    }}
}}
"""


def test_a_host_name_whose_environment_default_is_empty_is_this_host(tmp_path: Path) -> None:
    settings = DATABASE.format(host='os.environ.get("POSTGRES_HOST", "")')
    found = scan(tmp_path, {"app/settings.py": settings}, "settings")
    assert where(found) == [("app/settings.py", 6)]
    assert "HOST defaults to empty" in found[0].message


def test_a_host_name_production_must_set_is_not(tmp_path: Path) -> None:
    settings = DATABASE.format(host='os.environ["POSTGRES_HOST"]')
    assert scan(tmp_path, {"app/settings.py": settings}, "settings") == []


def test_a_host_falling_back_on_a_docker_link_variable_is_not(tmp_path: Path) -> None:
    host = 'os.environ.get("DB_HOST", os.environ.get("POSTGRESQL_PORT_5432_TCP_ADDR", ""))'
    settings = DATABASE.format(host=host)
    assert scan(tmp_path, {"app/settings.py": settings}, "settings") == []


def test_a_host_name_rebound_to_a_server_below_is_not(tmp_path: Path) -> None:
    host = 'os.environ.get("POSTGRES_HOST", "")\nPOSTGRES_HOST = POSTGRES_HOST or "db.internal"'
    settings = DATABASE.format(host=host)
    assert scan(tmp_path, {"app/settings.py": settings}, "settings") == []


LOGIN_LIMITS = """\
INSTALLED_APPS = ["allauth", "allauth.account"]
DATABASES = {"default": {"ENGINE": "django.db.backends.postgresql", "HOST": "db", "NAME": "a"}}
ACCOUNT_EMAIL_REQUIRED = True
ACCOUNT_LOGIN_ATTEMPTS_LIMIT = 10
ACCOUNT_LOGIN_ATTEMPTS_TIMEOUT = 300
"""


def test_allauth_login_limits_with_no_caches_are_per_process(tmp_path: Path) -> None:
    found = scan(tmp_path, {"app/settings.py": LOGIN_LIMITS}, "settings")
    assert [f.message.split(",")[0] for f in found] == ["CACHES is not set"]
    assert ("app/settings.py", 4) in [(r.path, r.line) for r in found[0].related]


def test_allauth_login_limits_switched_off_keep_nothing_in_the_cache(tmp_path: Path) -> None:
    settings = LOGIN_LIMITS.replace("LIMIT = 10", "LIMIT = None")
    assert scan(tmp_path, {"app/settings.py": settings}, "settings") == []


def test_axes_counting_in_the_database_keeps_nothing_in_the_cache(tmp_path: Path) -> None:
    settings = LOGIN_LIMITS.replace(
        "ACCOUNT_LOGIN_ATTEMPTS_LIMIT = 10",
        'AXES_HANDLER = "axes.handlers.database.AxesDatabaseHandler"',
    )
    assert scan(tmp_path, {"app/settings.py": settings}, "settings") == []


def test_axes_counting_in_the_cache_is_per_process_with_no_caches(tmp_path: Path) -> None:
    settings = LOGIN_LIMITS.replace(
        "ACCOUNT_LOGIN_ATTEMPTS_LIMIT = 10", 'AXES_HANDLER = "axes.handlers.cache.AxesCacheHandler"'
    )
    found = scan(tmp_path, {"app/settings.py": settings}, "settings")
    assert [f.message.split(",")[0] for f in found] == ["CACHES is not set"]


WRITER = """\
from datetime import datetime


def write_event_to_local_file(event):
    target = open(event["type"] + "-" + str(datetime.now()) + ".txt", "w")
    target.write(str(event))
    target.close()


def process_webhook(event):
    # write_event_to_local_file(event)
    return event["type"]
"""
VIEW = """\
from donate.controllers import process_webhook


def webhook(request):
    return process_webhook(request.POST)
"""


def test_a_write_in_a_function_whose_calls_are_commented_out_is_not_reported(
    tmp_path: Path,
) -> None:
    files = {"donate/controllers.py": WRITER, "donate/views.py": VIEW}
    assert scan(tmp_path, files, "file-write") == []


def test_a_write_in_a_function_nothing_names_may_be_an_api_and_is(tmp_path: Path) -> None:
    controllers = WRITER.replace("    # write_event_to_local_file(event)\n", "")
    files = {"donate/controllers.py": controllers, "donate/views.py": VIEW}
    assert where(scan(tmp_path, files, "file-write")) == [("donate/controllers.py", 5)]


def test_a_write_in_a_function_a_view_calls_is(tmp_path: Path) -> None:
    controllers = WRITER.replace(
        "    # write_event_to_local_file(event)", "    write_event_to_local_file(event)"
    )
    files = {"donate/controllers.py": controllers, "donate/views.py": VIEW}
    assert where(scan(tmp_path, files, "file-write")) == [("donate/controllers.py", 5)]


def test_a_namesake_defined_elsewhere_is_no_call(tmp_path: Path) -> None:
    files = {
        "donate/controllers.py": WRITER,
        "stripe_donations/controllers.py": WRITER,
        "donate/views.py": VIEW,
    }
    assert scan(tmp_path, files, "file-write") == []


def test_a_decorated_writer_is_kept_for_what_registers_it(tmp_path: Path) -> None:
    task = "from celery import shared_task\n\n\n@shared_task\n" + WRITER.split("\n\n\n")[1]
    task = "from datetime import datetime\n" + task
    found = scan(tmp_path, {"donate/tasks.py": task, "donate/views.py": VIEW}, "file-write")
    assert where(found) == [("donate/tasks.py", 7)]


# -- guards from the review of the round ------------------------------------------------------


def test_a_live_write_beside_a_turned_off_one_is_kept(tmp_path: Path) -> None:
    controllers = WRITER.replace(
        '    return event["type"]',
        '    with open("/var/app/last-webhook.json", "w") as handle:\n'
        "        handle.write(str(event))\n"
        '    return event["type"]',
    )
    files = {"donate/controllers.py": controllers, "donate/views.py": VIEW}
    assert len(scan(tmp_path, files, "file-write")) == 1


def test_a_call_beside_a_hash_in_a_string_is_a_call(tmp_path: Path) -> None:
    controllers = WRITER.replace(
        '    return event["type"]',
        '    summary = {"anchor": "#events", "dumped": write_event_to_local_file(event)}\n'
        "    return summary",
    )
    files = {"donate/controllers.py": controllers, "donate/views.py": VIEW}
    assert where(scan(tmp_path, files, "file-write")) == [("donate/controllers.py", 5)]


def test_a_usage_example_at_the_top_of_a_module_is_no_turned_off_call(tmp_path: Path) -> None:
    controllers = "# Usage:\n#     write_event_to_local_file(event)\n" + WRITER.replace(
        "    # write_event_to_local_file(event)\n", ""
    )
    files = {"donate/controllers.py": controllers, "donate/views.py": VIEW}
    assert where(scan(tmp_path, files, "file-write")) == [("donate/controllers.py", 7)]


def test_a_call_from_a_script_of_the_tree_is_a_call(tmp_path: Path) -> None:
    script = "#!/bin/sh\npython -c 'from donate.controllers import write_event_to_local_file'\n"
    files = {"donate/controllers.py": WRITER, "donate/views.py": VIEW, "bin/dump.sh": script}
    assert where(scan(tmp_path, files, "file-write")) == [("donate/controllers.py", 5)]


def test_a_host_name_filled_in_below_when_empty_is_not(tmp_path: Path) -> None:
    host = 'os.environ.get("POSTGRES_HOST", "")\nif not POSTGRES_HOST:\n    POSTGRES_HOST = "db"'
    assert scan(tmp_path, {"app/settings.py": DATABASE.format(host=host)}, "settings") == []


def test_an_annotated_host_name_is_read(tmp_path: Path) -> None:
    settings = DATABASE.format(host='os.environ.get("POSTGRES_HOST", "")').replace(
        "POSTGRES_HOST =", "POSTGRES_HOST: str ="
    )
    assert where(scan(tmp_path, {"app/settings.py": settings}, "settings")) == [
        ("app/settings.py", 6)
    ]


def test_an_alias_whose_name_is_empty_through_a_name_is_a_template(tmp_path: Path) -> None:
    settings = DATABASE.format(
        host='os.environ.get("POSTGRES_HOST", "")\nDB_NAME = os.environ.get("DB_NAME", "")'
    ).replace('"NAME": "postgres"', '"NAME": DB_NAME')
    assert scan(tmp_path, {"app/settings.py": settings}, "settings") == []


def test_a_limit_off_only_in_development_is_on_in_production(tmp_path: Path) -> None:
    settings = LOGIN_LIMITS.replace("LIMIT = 10", "LIMIT = None if DEBUG else 5")
    found = scan(tmp_path, {"app/settings.py": settings}, "settings")
    assert [f.message.split(",")[0] for f in found] == ["CACHES is not set"]


def test_rate_limits_switched_off_are_not_cited_as_cache_state(tmp_path: Path) -> None:
    settings = LOGIN_LIMITS.replace("ACCOUNT_EMAIL_REQUIRED = True", "ACCOUNT_RATE_LIMITS = False")
    assert scan(tmp_path, {"app/settings.py": settings}, "settings") == []


def test_a_variable_holding_docker_compose_exec_is_an_operators_command(tmp_path: Path) -> None:
    start = START.replace(
        'manage="$PYTHON_BIN $APP_ROOT/manage.py"',
        'manage="docker compose exec -T web python manage.py"',
    )
    assert scan(tmp_path, {"start.sh": start, "Dockerfile": DOCKERFILE}, "boot-migrate") == []


def test_a_variable_default_and_a_django_admin_variable_are_read(tmp_path: Path) -> None:
    for line in ("${MANAGE:-python manage.py} migrate", "$DJANGO_ADMIN migrate"):
        start = START.replace("$manage migrate", line).replace(
            'manage="$PYTHON_BIN $APP_ROOT/manage.py"', 'DJANGO_ADMIN="django-admin"'
        )
        found = scan(
            tmp_path / line[:3], {"start.sh": start, "Dockerfile": DOCKERFILE}, "boot-migrate"
        )
        assert where(found) == [("start.sh", 7)]


def test_many_options_before_a_command_are_read_in_one_pass(tmp_path: Path) -> None:
    options = " ".join(f"--flag{n}" for n in range(40))
    start = START.replace("$manage migrate", f"python manage.py {options} showmigrations")
    assert scan(tmp_path, {"start.sh": start, "Dockerfile": DOCKERFILE}, "boot-migrate") == []
