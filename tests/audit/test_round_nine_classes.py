"""Classes found on the sixteenth fresh corpus group (issue 14, the ninth round): a start
that wipes the shared cache or tables, systemd units that migrate or embed beat, and echo
lines that only print a command. Each has a true case that must be found and a safe twin
that must stay silent."""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

ENTRYPOINT = "#!/bin/sh\nset -e\n{line}\nexec gunicorn app.wsgi --bind 0.0.0.0:8000\n"

# -- a replica's start that wipes shared state ---------------------------------------------


def test_a_start_script_that_clears_the_shared_cache_is_found(tmp_path: Path) -> None:
    for index, command in enumerate(
        (
            "python manage.py clear_cache --cache=default",
            "python manage.py flush --noinput",
            "django-admin reset_db --noinput",
            "nautobot-server invalidate_cachalot",
        )
    ):
        files = {"docker/entrypoint.sh": ENTRYPOINT.format(line=command)}
        found = scan(tmp_path / str(index), files, "boot-reset")
        assert where(found) == [("docker/entrypoint.sh", 3)], command
        assert found[0].check_id == "horizontal.W111"
        assert "release step" in found[0].fix


def test_a_reset_in_a_dockerfile_cmd_or_a_procfile_web_process_is_found(tmp_path: Path) -> None:
    files = {
        "Dockerfile": "FROM python:3.12\nCMD python manage.py clear_cache && gunicorn app.wsgi\n",
        "Procfile": "web: python manage.py clear_cache && gunicorn app.wsgi\n",
    }
    assert where(scan(tmp_path, files, "boot-reset")) == [("Dockerfile", 2), ("Procfile", 1)]


def test_a_reset_run_once_or_only_printed_is_not_reported(tmp_path: Path) -> None:
    files = {
        # A release phase runs once per deploy: the right place for it.
        "Procfile": "release: python manage.py clear_cache\nweb: gunicorn app.wsgi\n",
        # A message that names the command, and an operator's command from outside.
        "docker/entrypoint.sh": ENTRYPOINT.format(
            line='echo "Run: python manage.py flush --noinput to start again"\n'
            "docker compose exec web python manage.py clear_cache"
        ),
        # A script run by hand (it starts no server and is not named like a start).
        "scripts/reset-demo.sh": "#!/bin/sh\npython manage.py flush --noinput\n",
        # Other commands whose names contain the words.
        "docker/start.sh": ENTRYPOINT.format(line="python manage.py clear_cache_keys_report"),
    }
    assert scan(tmp_path, files, "boot-reset") == []


# -- echo lines are messages, not commands ----------------------------------------------------


def test_an_echo_that_names_migrate_is_not_a_migrate(tmp_path: Path) -> None:
    files = {
        "docker/entrypoint.sh": ENTRYPOINT.format(
            line='echo "Running: python manage.py migrate"\npython manage.py migrate'
        )
    }
    assert where(scan(tmp_path, files, "boot-migrate")) == [("docker/entrypoint.sh", 4)]
    # A line that prints and then runs it still migrates.
    piped = {"docker/entrypoint.sh": ENTRYPOINT.format(line="echo yes | python manage.py migrate")}
    assert where(scan(tmp_path / "b", piped, "boot-migrate")) == [("docker/entrypoint.sh", 3)]


# -- systemd units -------------------------------------------------------------------------------

UNIT = (
    "[Unit]\n"
    "Description=app\n"
    "[Service]\n"
    "{lines}\n"
    "ExecStop=/bin/kill -s QUIT $MAINPID\n"
    "[Install]\n"
    "WantedBy=multi-user.target\n"
)


def test_a_systemd_worker_that_embeds_beat_or_a_unit_that_migrates_is_found(
    tmp_path: Path,
) -> None:
    files = {
        "config/systemd/celery.service": UNIT.format(
            lines="ExecStart=/srv/venv/bin/celery -A app worker -B -l info"
        ),
        "deploy/app.service": UNIT.format(
            lines="ExecStartPre=/srv/venv/bin/python manage.py migrate --noinput\n"
            "ExecStart=/srv/venv/bin/gunicorn app.wsgi"
        ),
    }
    assert where(scan(tmp_path, files, "scheduler")) == [("config/systemd/celery.service", 4)]
    assert where(scan(tmp_path, files, "boot-migrate")) == [("deploy/app.service", 4)]


def test_a_systemd_unit_that_runs_beat_alone_or_only_serves_is_not_reported(
    tmp_path: Path,
) -> None:
    files = {
        # beat in a unit of its own: the one scheduler host's unit, as a Procfile's beat type.
        "deploy/celerybeat.service": UNIT.format(
            lines="ExecStart=/srv/venv/bin/celery -A app beat"
        ),
        "deploy/celery.service": UNIT.format(lines="ExecStart=/srv/venv/bin/celery -A app worker"),
        "deploy/web.service": UNIT.format(
            lines="ExecStartPre=/srv/venv/bin/python manage.py migrate --check\n"
            "ExecStart=/srv/venv/bin/gunicorn app.wsgi\n"
            "Environment=MESSAGE=manage.py migrate"
        ),
    }
    assert scan(tmp_path, files) == []
