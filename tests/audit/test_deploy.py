"""Deploy files (``horizontal/audit/deploy.py``): what every replica runs when it starts,
and web servers that serve uploads from a local folder. Each class has a true case that
must be found and a safe twin that must stay silent."""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

# -- a script whose whole job is migrating is judged where it is started -------------------

MIGRATOR = "#!/bin/bash\nset -e\npython manage.py wait_for_db\npython manage.py migrate\n"


def test_a_migration_only_script_is_silent_on_its_own(tmp_path: Path) -> None:
    # Its own container (a compose "migrator" service, a Job): once per deploy.
    assert scan(tmp_path, {"bin/docker-entrypoint-migrator.sh": MIGRATOR}) == []


def test_a_migration_script_started_by_every_container_is_found_where_it_is_started(
    tmp_path: Path,
) -> None:
    supervisor = (
        "[supervisord]\nnodaemon=true\n\n"
        '[program:migrator]\ncommand=sh -c "./bin/docker-entrypoint-migrator.sh"\n\n'
        "[program:web]\ncommand=gunicorn app.wsgi\n"
    )
    found = scan(
        tmp_path, {"bin/docker-entrypoint-migrator.sh": MIGRATOR, "supervisor.conf": supervisor}
    )
    assert [(f.path, f.line, f.category) for f in found] == [("supervisor.conf", 5, "boot-migrate")]
    dockerfile = 'FROM python\nCMD ["sh", "-c", "./bin/migrate.sh && gunicorn app.wsgi"]\n'
    image = tmp_path / "image"
    assert where(scan(image, {"Dockerfile": dockerfile}, "boot-migrate")) == [("Dockerfile", 2)]


def test_a_script_that_migrates_and_starts_the_server_is_still_found(tmp_path: Path) -> None:
    script = MIGRATOR + "exec gunicorn app.wsgi\n"
    found = scan(tmp_path, {"bin/docker-entrypoint-migrator.sh": script})
    assert where(found) == [("bin/docker-entrypoint-migrator.sh", 4)]


def test_a_scheduler_script_started_by_supervisor_is_found(tmp_path: Path) -> None:
    supervisor = '[program:beat]\ncommand=sh -c "./bin/docker-entrypoint-beat.sh"\n'
    [finding] = scan(tmp_path, {"supervisor.conf": supervisor})
    assert (finding.line, finding.category) == (2, "scheduler")
    worker = '[program:worker]\ncommand=sh -c "./bin/docker-entrypoint-worker.sh"\n'
    assert scan(tmp_path, {"supervisor.conf": worker}) == []


# -- /etc/cron is the system's, a project's own etc/ folder is not ---------------------------


def test_a_projects_own_etc_cron_folder_is_not_cron(tmp_path: Path) -> None:
    dockerfile = (
        "FROM python\nRUN mkdir -p /app/etc/cron.jobs\nCOPY ./etc/cron.jobs/* /app/etc/cron.jobs/\n"
    )
    assert scan(tmp_path, {"Dockerfile": dockerfile}) == []
    installs = "FROM python\nCOPY crontab /etc/cron.d/app\n"
    assert where(scan(tmp_path / "b", {"Dockerfile": installs})) == [("Dockerfile", 2)]


# -- web servers that serve uploads from this host's disk -----------------------------------

NGINX = """\
server {
    listen 8080;
    location /static/ {
        alias /app/static/;
    }
    location /uploads/ {
        default_type text/plain;
        alias /app/uploads/;
    }
    location / {
        proxy_pass http://app:8000;
    }
}
"""


def test_nginx_serving_uploads_from_a_folder_is_found_and_static_files_are_not(
    tmp_path: Path,
) -> None:
    found = scan(tmp_path, {"etc/nginx.conf": NGINX})
    assert [(f.line, f.category) for f in found] == [(6, "file-write")]
    proxied = NGINX.replace("alias /app/uploads/;", "proxy_pass http://minio:9000;")
    assert scan(tmp_path / "b", {"etc/nginx.conf": proxied}) == []


CADDY = """\
example.com {
\thandle_path /media/* {
\t\tfile_server {
\t\t\troot /code/.media/
\t\t}
\t}
\thandle_path /static/* {
\t\tfile_server {
\t\t\troot /code/static/
\t\t}
\t}
\treverse_proxy app:8000
}
"""


def test_caddy_serving_media_from_a_folder_is_found_and_static_files_are_not(
    tmp_path: Path,
) -> None:
    found = scan(tmp_path, {"Caddyfile": CADDY})
    assert [(f.line, f.category) for f in found] == [(2, "file-write")]
    static_only = CADDY.replace("/media/*", "/assets/*")
    assert scan(tmp_path / "b", {"Caddyfile": static_only}) == []


def test_a_web_server_example_in_the_docs_is_silent(tmp_path: Path) -> None:
    assert scan(tmp_path, {"docs/deploy/nginx.conf": NGINX, "docs/Caddyfile": CADDY}) == []


# -- Kubernetes manifests -----------------------------------------------------------------------

DEPLOYMENT = """\
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: app
spec:
  template:
    spec:
      initContainers:
        - name: migrations
          image: app
          command: ["/app/manage.py", "migrate"]
      containers:
        - name: web
          image: app
          command: ["gunicorn", "app.wsgi"]
"""


def test_an_init_container_that_migrates_in_every_pod_is_found(tmp_path: Path) -> None:
    found = scan(tmp_path, {"helm/templates/statefulset.yaml": DEPLOYMENT})
    assert [(f.line, f.category) for f in found] == [(11, "boot-migrate")]


def test_a_migration_job_or_helm_hook_is_silent(tmp_path: Path) -> None:
    job = DEPLOYMENT.replace("kind: StatefulSet", "kind: Job")
    hook = DEPLOYMENT.replace(
        "  name: app\n", "  name: app\n  annotations:\n    helm.sh/hook: pre-upgrade\n"
    )
    compose = "services:\n  web:\n    command: python manage.py migrate\n"
    assert scan(tmp_path, {"k8s/job.yaml": job, "k8s/hook.yaml": hook}) == []
    assert scan(tmp_path, {"docker-compose.yml": compose}) == []
    assert scan(tmp_path, {"docs/install/k8s/deployment.yaml": DEPLOYMENT}) == []
    replicated = DEPLOYMENT.replace("StatefulSet", "Deployment")
    assert where(scan(tmp_path / "b", {"k8s/app.yaml": replicated})) == [("k8s/app.yaml", 11)]


def test_each_document_of_a_multi_document_manifest_is_judged_alone(tmp_path: Path) -> None:
    job = DEPLOYMENT.replace("kind: StatefulSet", "kind: Job")
    both = job + "---\n" + DEPLOYMENT
    found = scan(tmp_path, {"k8s/all.yaml": both})
    assert [f.line for f in found] == [job.count("\n") + 1 + 11]


def test_an_nginx_site_file_without_an_extension_is_read(tmp_path: Path) -> None:
    found = scan(tmp_path, {"docker/nginx/sites-enabled/default": NGINX})
    assert where(found) == [("docker/nginx/sites-enabled/default", 6)]


# -- a root cause spread over scripts: a start script runs another ---------------------------

KEY_SCRIPT = (
    "#!/bin/bash\n"
    "if [ ! -f /data/secret_key.txt ]; then\n"
    "  KEY=`pwgen -c -n -1 65`\n"
    "  echo $KEY > /data/secret_key.txt\n"
    "fi\n"
)


def test_a_script_a_start_script_runs_is_judged_as_part_of_the_start(tmp_path: Path) -> None:
    start = "#!/bin/bash\nbash ${ROOT}/docker/scripts/keys.sh\nexec gunicorn app.wsgi\n"
    found = scan(tmp_path, {"docker/scripts/keys.sh": KEY_SCRIPT, "docker/start.sh": start})
    assert [(f.path, f.line, f.category) for f in found] == [
        ("docker/scripts/keys.sh", 4, "file-write")
    ]
    assert [(r.path, r.line) for r in found[0].related] == [("docker/start.sh", 2)]


def test_the_same_script_run_by_nobody_at_start_is_silent(tmp_path: Path) -> None:
    by_hand = "#!/bin/bash\n./manage.py createsuperuser\nbash docker/scripts/keys.sh\n"
    assert scan(tmp_path, {"docker/scripts/keys.sh": KEY_SCRIPT, "tools/setup.sh": by_hand}) == []


def test_a_dockerfile_cmd_that_runs_a_script_makes_it_part_of_the_start(tmp_path: Path) -> None:
    dockerfile = 'FROM python\nCMD ["bash", "/app/docker/scripts/keys.sh"]\n'
    found = scan(tmp_path, {"Dockerfile": dockerfile, "docker/scripts/keys.sh": KEY_SCRIPT})
    assert where(found) == [("docker/scripts/keys.sh", 4)]


def test_a_secret_printed_from_a_variable_is_not_written_to_a_file(tmp_path: Path) -> None:
    printed = KEY_SCRIPT.replace("echo $KEY > /data/secret_key.txt", "echo $KEY")
    assert scan(tmp_path, {"docker/entrypoint.sh": printed}) == []
    assert where(scan(tmp_path / "b", {"docker/entrypoint.sh": KEY_SCRIPT})) == [
        ("docker/entrypoint.sh", 4)
    ]


def test_an_image_that_sets_a_sqlite_database_url_is_found(tmp_path: Path) -> None:
    image = (
        "FROM python:3.12\nVOLUME /data\n"
        'ENV DATABASE_URL="sqlite:////data/app.db"\nENV DEBUG="False"\n'
        'CMD ["gunicorn", "app.wsgi"]\n'
    )
    found = scan(tmp_path, {"docker/Dockerfile": image})
    assert [(f.line, f.category) for f in found] == [(3, "settings")]
    assert "DATABASE_URL" in found[0].fix
    server = image.replace("sqlite:////data/app.db", "postgres://db/app")
    assert scan(tmp_path / "b", {"docker/Dockerfile": server}) == []
    old_form = image.replace(
        'ENV DATABASE_URL="sqlite:////data/app.db"', "ENV DATABASE_URL sqlite:////data/app.db"
    )
    assert where(scan(tmp_path / "c", {"docker/Dockerfile": old_form})) == [
        ("docker/Dockerfile", 3)
    ]


def test_the_cron_lines_of_one_dockerfile_are_one_finding(tmp_path: Path) -> None:
    image = (
        "FROM python:3.12\nRUN apt-get update && apt-get install -y cron\n"
        "COPY crontab /etc/cron.d/app\nRUN crontab /etc/cron.d/app\n"
        'CMD ["sh", "-c", "cron && gunicorn app.wsgi"]\n'
    )
    found = scan(tmp_path, {"Dockerfile": image}, "image-cron")
    assert where(found) == [("Dockerfile", 3)]
    assert [(r.path, r.line) for r in found[0].related] == [("Dockerfile", 4), ("Dockerfile", 5)]
