"""Start scripts that start one process type per container (``horizontal/audit/
shell_branches.py``) and scripts only a development compose service starts
(``starts.without_development_starts``): each class with a true case that must be found
and a safe twin that must stay silent."""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

DISPATCH = """\
#!/bin/bash
if [ "$1" == "release" ]; then
    python manage.py migrate --noinput
elif [ "$1" == "web" ]; then
    exec gunicorn app.wsgi --bind 0.0.0.0
elif [ "$1" == "scheduler" ]; then
    exec celery -A app beat
else
    exec "$@"
fi
"""


def test_beat_and_migrate_in_their_own_arms_of_a_dispatching_entrypoint_are_silent(
    tmp_path: Path,
) -> None:
    assert scan(tmp_path, {"docker/entrypoint.sh": DISPATCH}) == []


def test_beat_and_migrate_in_the_web_arm_are_found(tmp_path: Path) -> None:
    together = DISPATCH.replace(
        "    exec gunicorn app.wsgi --bind 0.0.0.0\n",
        "    python manage.py migrate --noinput\n    celery -A app beat &\n"
        "    exec gunicorn app.wsgi --bind 0.0.0.0\n",
    )
    found = scan(tmp_path, {"docker/entrypoint.sh": together})
    assert [(f.line, f.category) for f in found] == [(5, "boot-migrate"), (6, "scheduler")]


def test_a_single_toggle_is_no_dispatch_and_its_migrate_is_found(tmp_path: Path) -> None:
    # On by default: a switch a deployment must turn on is judged off (round twenty-six).
    toggle = (
        '#!/bin/sh\nif [ "${RUN_MIGRATIONS:-true}" = "true" ]; then\n    python manage.py migrate\n'
        "fi\nexec gunicorn app.wsgi\n"
    )
    assert where(scan(tmp_path, {"entrypoint.sh": toggle})) == [("entrypoint.sh", 3)]


CASE = """\
#!/bin/sh
python manage.py check --deploy
case "$1" in
  web)
    exec gunicorn app.wsgi ;;
  beat) exec celery -A app beat ;;
  migrate)
    python manage.py migrate
    ;;
esac
"""


def test_a_case_dispatch_is_read_like_an_if_chain(tmp_path: Path) -> None:
    assert scan(tmp_path, {"entrypoint.sh": CASE}) == []
    web_migrates = CASE.replace("  web)\n", "  web)\n    python manage.py migrate\n")
    assert where(scan(tmp_path / "b", {"entrypoint.sh": web_migrates})) == [("entrypoint.sh", 5)]
    everywhere = CASE.replace("python manage.py check --deploy", "python manage.py migrate")
    assert where(scan(tmp_path / "c", {"entrypoint.sh": everywhere})) == [("entrypoint.sh", 2)]


INIT = """\
#!/usr/bin/env bash
./manage.py migrate --noinput
exec "$@"
"""


def test_a_script_only_a_runserver_compose_service_starts_is_silent(tmp_path: Path) -> None:
    compose = (
        "services:\n  backend:\n    build: .\n"
        "    command: './initialize_data.sh ./manage.py runserver 0.0.0.0:8000'\n"
    )
    files = {"initialize_data.sh": INIT, "docker-compose.yml": compose}
    assert scan(tmp_path, files) == []
    production = dict(files, Dockerfile='FROM python\nENTRYPOINT ["./initialize_data.sh"]\n')
    production["Dockerfile"] += 'CMD ["gunicorn", "app.wsgi"]\n'
    assert where(scan(tmp_path / "b", production)) == [("initialize_data.sh", 2)]
    served = compose.replace("./manage.py runserver 0.0.0.0:8000", "gunicorn app.wsgi")
    assert where(scan(tmp_path / "c", dict(files, **{"docker-compose.yml": served}))) == [
        ("initialize_data.sh", 2)
    ]


def test_migrate_run_into_a_container_from_outside_is_an_operators_command(
    tmp_path: Path,
) -> None:
    by_hand = (
        "#!/bin/bash\ndocker exec app_uwsgi python3 manage.py migrate\n"
        "docker compose exec web python manage.py createsuperuser\n"
    )
    assert scan(tmp_path, {"docker/scripts/start-db.sh": by_hand}) == []
    inside = by_hand.replace("docker exec app_uwsgi ", "")
    assert where(scan(tmp_path / "b", {"docker/scripts/start-db.sh": inside})) == [
        ("docker/scripts/start-db.sh", 2)
    ]


WORKER = """\
#!/bin/bash
start_scheduler(){
    celery -A worker beat &
}
if [ "$1" = "scheduler" ]; then
    start_scheduler
fi
"""


def test_beat_a_helper_starts_for_a_start_script_that_serves_is_found(tmp_path: Path) -> None:
    start = (
        "#!/bin/bash\npython manage.py check\n./worker.sh scheduler start\nexec gunicorn app.wsgi\n"
    )
    found = scan(tmp_path, {"start.sh": start, "worker.sh": WORKER})
    assert [(f.path, f.line, f.category) for f in found] == [("worker.sh", 3, "scheduler")]
    assert [(r.path, r.line) for r in found[0].related] == [("start.sh", 3)]
    alone = start.replace("exec gunicorn app.wsgi\n", "")
    assert scan(tmp_path / "b", {"start.sh": alone, "worker.sh": WORKER}) == []
