"""image-cron, boot-migrate and schedulers started by the image: non-Python files.

Dockerfiles, entrypoint and start scripts, Procfiles, uWSGI and supervisor configs,
systemd units and crontabs decide what *every replica* runs when it starts; a uWSGI
``static-map`` of uploads ties them to a disk (nginx and Caddy: ``web_servers.py``;
Kubernetes manifests and Ansible roles: ``manifests.py``; Python entrypoints:
``python_starts.py``).
``migrate`` there runs N times per deploy; a crontab there runs every job N times. A
``RUN`` line is build time (once per image), a Procfile ``release:`` line and a Kubernetes
Job or Helm hook are one-off release steps: all fine.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator

from horizontal.audit.celery_purge import purges_celery_queues
from horizontal.audit.findings import Finding, Location
from horizontal.audit.patterns import lazy_compile
from horizontal.audit.script_lines import Line, ini_lines, logical_lines, shell_lines
from horizontal.audit.script_names import named_like_a_start, run_once_or_by_a_developer
from horizontal.audit.shell_branches import (
    CALLED_BY_THE_SOURCING_SCRIPT,
    function_callers,
    leader_only,
    process_arms,
    python_secret_heredocs,
)
from horizontal.audit.shell_variables import expand_variables
from horizontal.audit.start_messages import (
    BEAT_EVERYWHERE,
    BOOT_MIGRATE,
    BOOT_RESET,
    IMAGE_CRON,
    PURGE_AT_START,
    SECRET_AT_START,
    SECRET_FILE_FIX,
    SECRET_KEY_AT_START,
)

# migrate as the subcommand (options may come first), not an argument of another command
# ("manage.py document_index migrate" migrates something else).
# A project's own manage.py under another name is its console script: ``awx-manage``,
# ``pulpcore-manager``, ``nautobot-server``, ``bugsink-manage``. A shell variable named for
# it holds it (``manage="$PYTHON $APP_ROOT/manage.py"`` … ``$manage migrate``).
MANAGE = (
    r"(manage\.py|django-admin|-m\s+django|[\w-]+-(?:manage|manager|admin|server)\b|"
    r"\$[{(]?\w*(?:manage|MANAGE|Manage)\w*[})]?[\"']?)"
)
# ``syncdb`` is what migrate was before Django 1.7: it creates the schema.
# ... or an entrypoint asked for its ``migrate`` step (``/run.sh migrate``: a script that
# dispatches on its argument, whose arm for that word migrates).
MIGRATE = lazy_compile(
    r"(" + MANAGE + r"(\s+-\S+)*|(?<![\w.-])[\w./-]+\.sh)\s+(migrate|syncdb)\b(?![-.\w])"
)
# A script whose whole job is migrating (``docker-entrypoint-migrator.sh``,
# ``bin/migrate.sh``): what runs it decides how often migrations run.
MIGRATION_SCRIPT = lazy_compile(r"[\w./-]*migrat[\w.-]*\.(sh|bash|py)\b", re.I)
# A script that starts a scheduler (``docker-entrypoint-beat.sh``, ``run-scheduler.sh``).
SCHEDULER_SCRIPT = lazy_compile(r"[\w./-]*(beat|scheduler)[\w.-]*\.(sh|bash|py)\b", re.I)
DRY_RUN = lazy_compile(r"--(check|plan)\b|showmigrations|makemigrations")
CRON_INSTALL = lazy_compile(
    r"\bcrontab\s+(?!-l\b)\S|(?<![\w.-])/etc/cron|\bcron\.d\b|\bsupercronic\b|\bcrond\b|"
    r"\bservice\s+cron\b|/etc/init\.d/cron\b|"
    # cron as the command (``cron -f``, ``command=/usr/sbin/cron -f -L 15``)
    r"(^|[\s;&|'\"\[,=])(/usr)?(/s?bin/)?cron(\s+-\w+(\s+\d+)?)*\s*($|[;&|'\"\],])"
)
PACKAGE_INSTALL = lazy_compile(r"\b(apt-get|apt|apk|yum|dnf|pip)\b.*\b(install|add)\b")
# A script named for the server it starts (``python3 ./gunicorn_run.py``, ``run-uwsgi.sh``).
SERVER_SCRIPT = r"|[\w-]*(gunicorn|uwsgi|daphne|uvicorn|hypercorn|granian)[\w-]*\.(py|sh)\b"
SERVER = lazy_compile(
    r"\b(gunicorn|uwsgi|daphne|uvicorn|hypercorn|granian|runserver|supervisord|waitress)\b|"
    r"exec\s+\"?\$@" + SERVER_SCRIPT
)
# Django's development server: an image or script that serves with it is for development.
DEV_SERVER = lazy_compile(r"\brunserver(_plus)?\b")
PRODUCTION_SERVER = lazy_compile(
    r"\b(gunicorn|uwsgi|daphne|uvicorn|hypercorn|granian|supervisord|waitress)\b" + SERVER_SCRIPT
)


# A server that reloads on code changes (``uvicorn … --reload``) serves a mounted checkout.
RELOADING_SERVER = lazy_compile(r"\b(gunicorn|uvicorn|hypercorn|granian|daphne)\b.*\s--reload\b")


def serves_with_runserver(texts: list[str]) -> bool:
    """Starts Django's development server (or a server that reloads on code changes) and
    no production server."""
    reloading = [bool(RELOADING_SERVER.search(t)) for t in texts]
    return any(
        r or DEV_SERVER.search(t) for t, r in zip(texts, reloading, strict=True)
    ) and not any(
        PRODUCTION_SERVER.search(t) for t, r in zip(texts, reloading, strict=True) if not r
    )


# pip install -e . at start: the project's source is mounted in, not built into the image.
EDITABLE_INSTALL = lazy_compile(
    r"\b(pip3?|python3?\s+-m\s+pip|uv\s+pip)\s+install\b.*\s(-e|--editable)(\s|=|$)"
)
# Celery's program, or a variable named for it (supervisor's ``%(ENV_COMMAND_CELERY)s``,
# a script's ``$CELERY_BIN``).
CELERY = r"(?:\bcelery\b|[$%][({]?\w*(?i:celery)\w*)"
CELERY_PROGRAM = lazy_compile(CELERY)
# A scheduler that only makes sense as one process, started next to the web server.
IN_PROCESS_BEAT = lazy_compile(CELERY + r".*\bbeat\b|\brunapscheduler\b")
# celery worker -B embeds beat in every worker: N workers, N beats, wherever they run.
# ``celery -A app worker -B``; ``celery multi start worker1 --beat`` (multi starts workers).
EMBEDDED_BEAT = lazy_compile(CELERY + r".*\b(worker|multi)\b.*(\s-B\b|--beat\b)")
CONTAINER_SERVICE = lazy_compile(r"(^|/)(s6-overlay|s6-rc\.d|services\.d|service|sv)/")
CRON_ENTRY = lazy_compile(
    r"^\s*(@\w+|([\d*/,\-]+|[A-Za-z]{3})(\s+([\d*/,\-?LW#]+|[A-Za-z]{3})){4})\s"
)


# A secret made at start-up and written to a file (``openssl rand -hex 32 > $DATA/secret``).
SECRET_GENERATOR = lazy_compile(
    r"openssl\s+rand\b|get_random_secret_key|get_random_string|token_(hex|urlsafe|bytes)|"
    r"/dev/u?random|\bpwgen\b|\buuidgen\b"
)
INTO_FILE = lazy_compile(
    r"(?<![0-9&>])>>?\s*(?!&|/dev/(null|stdout|stderr))[\w$\"'{./~-]|\btee\b|"
    # ``openssl rand -hex 32 | install -m 600 /dev/stdin db/secret``: a copy of the pipe.
    r"\b(install|cp)\b[^|;&]*\s/dev/stdin\s+[\w$\"'{./~-]"
)


# docker exec app python manage.py migrate, docker compose run --rm web migrate: an
# operator's command into a running container or a one-off one, from outside it (not
# what a replica runs when it starts).
EXEC_INTO = lazy_compile(
    r"\b(docker(-compose|\s+compose)?\s+(exec|run)|kubectl\s+(exec|run)|podman\s+(exec|run))\b"
)


# echo "Running: python manage.py migrate": a message about a command, not the command
# (unless the line goes on to run something: ``echo yes | manage.py migrate``).
# ``echo …``, ``printf …``, or a script's own logging function (``_log "- migrate: runs
# manage.py migrate"``, ``log_info``, ``_log_boxed``): a message printed, not a command run.
MESSAGE = lazy_compile(r"^(echo|printf|_?log(_\w+)?|info|warn(ing)?|msg|say|note)\b")
QUOTED = lazy_compile(r"\"(\\.|[^\"\\])*\"|'[^']*'")
CHAINED = lazy_compile(r"[|;&]|\$\(|`")


def _only_prints(text: str) -> bool:
    unquoted = QUOTED.sub("", text).replace(">&2", "").replace("1>&2", "")
    return bool(MESSAGE.match(text)) and not CHAINED.search(unquoted)


def _migrates(text: str) -> bool:
    return (
        bool(MIGRATE.search(text))
        and not DRY_RUN.search(text)
        and not EXEC_INTO.search(text)
        and not _only_prints(text)
    )


# A command that wipes state every running replica shares (the cache, every table's rows),
# run as a management command (``manage.py``, ``django-admin``, ``nautobot-server``).
RESET = lazy_compile(
    MANAGE + r"(\s+-\S+)*\s+(clear_cache|clearcache|flush|reset_db|invalidate_cachalot|"
    # ``reset_redis_locks``: the locks the running replicas hold, released under them.
    r"(reset|clear|release)_\w*locks)\b(?!-)"
)


def resets_shared_state(text: str) -> bool:
    return (
        bool(RESET.search(text) or purges_celery_queues(text))
        and not EXEC_INTO.search(text)
        and not _only_prints(text)
    )


def reset_message(text: str) -> str:
    """What this start's reset wipes: the cache and the tables, or the broker's queues."""
    return BOOT_RESET if RESET.search(text) else PURGE_AT_START


def _mentions(text: str, names: set[str]) -> bool:
    return any(f"${name}" in text or f"${{{name}}}" in text for name in names)


def runs_migrations(command: str) -> bool:
    """``migrate`` itself, or a script that only migrates, started by this command."""
    return _migrates(command) or bool(MIGRATION_SCRIPT.search(command))


def starts_cron(text: str) -> bool:
    return bool(CRON_INSTALL.search(text)) and not PACKAGE_INSTALL.search(text)


def line_finding(path: str, line: Line, category: str, message: str) -> Finding:
    """At the physical line of a continued command that runs what is judged (``&& python
    manage.py migrate \\`` under ``CMD make static \\``), the command's first line related."""
    judged = _JUDGED_COMMAND.get(category)
    offset = next((i for i, part in enumerate(line.parts) if judged and judged(part)), 0)
    if not offset:
        return Finding(path, line.number, category, message, line.text)
    related = (Location(path, line.number),)
    return Finding(path, line.number + offset, category, message, line.text, related)


def _runs_a_scheduler(text: str) -> bool:
    return bool(EMBEDDED_BEAT.search(text) or IN_PROCESS_BEAT.search(text))


_JUDGED_COMMAND = {
    "boot-migrate": runs_migrations,
    "boot-reset": resets_shared_state,
    "image-cron": starts_cron,
    "scheduler": _runs_a_scheduler,
}


# The variable Django's signing key is read from (SECRET_KEY, DJANGO_SECRET_KEY).
SIGNING_KEY_VARIABLE = lazy_compile(r"(^|_)SECRET_KEY$")


CELERY_WORKER = lazy_compile(CELERY + r".*\bworker\b")


def _beat_beside_a_worker(text: str, texts: list[str]) -> bool:
    """``celery beat … &`` sent to the background, then ``celery worker`` in the same
    script: every container that runs the worker starts a beat of its own."""
    stripped = text.rstrip()
    return (
        stripped.endswith("&")
        and not stripped.endswith("&&")
        and bool(IN_PROCESS_BEAT.search(text))
        and any(CELERY_WORKER.search(t) and not IN_PROCESS_BEAT.search(t) for t in texts)
    )


def runs_beat(command: str, context: str) -> bool:
    """celery worker -B anywhere; beat or runapscheduler alongside a web server."""
    if EMBEDDED_BEAT.search(command):
        return True
    return bool(IN_PROCESS_BEAT.search(command) and SERVER.search(context))


def _starts_server(path: str, lines: list[Line]) -> bool:
    # s6-overlay and runit service scripts run in every container, like a web server.
    return CONTAINER_SERVICE.search(path) is not None or any(
        SERVER.search(line.text) for line in lines
    )


def runs_at_start(path: str, text: str) -> bool:
    """A start script: it starts a server, or is named and placed like an entrypoint."""
    name = posixpath.basename(path)
    if run_once_or_by_a_developer(name):
        return False
    lines = logical_lines(text)
    return _starts_server(path, lines) or named_like_a_start(name)


# ``./bin/bootstrap.sh``, ``sh ${ROOT}/gen_key.sh``: another script this one runs (its name).
SCRIPT_CALL = lazy_compile(r"(?<![\w.-])([\w.-]*[\w-]\.(?:ba)?sh)\b")
# ``KEY=`pwgen 50 1` `` / ``KEY=$(openssl rand -hex 32)``: a variable holding a new secret.
SECRET_VARIABLE = lazy_compile(r"^(?:export\s+|local\s+)?([A-Za-z_]\w*)=")


def starts_a_server(text: str) -> bool:
    """Some line of ``text`` (a start script, a ``CMD``) starts a server."""
    return any(SERVER.search(line.text) for line in logical_lines(text))


def scripts_started(text: str) -> Iterator[tuple[int, str]]:
    """(line, script name) for each script a start script (or ``CMD``) runs."""
    for line in logical_lines(text):
        for script in SCRIPT_CALL.findall(line.text):
            yield line.number, posixpath.basename(script)


def find_in_shell(
    path: str,
    text: str,
    started: bool = False,
    beside_server: bool = False,
    called_elsewhere: frozenset[str] = frozenset(),
    installs_its_checkout: bool = False,
) -> Iterator[Finding]:
    """``started``: another start script runs this one (judged as part of the start);
    ``beside_server``: and that script starts the web server too (a scheduler this one
    starts runs beside it); ``called_elsewhere``: the words of a start script that sources
    this one (its functions that script calls run at every start); ``installs_its_checkout``:
    a deploy hook, whose editable install is the checkout it deploys, not a developer's
    mounted tree."""
    if run_once_or_by_a_developer(posixpath.basename(path)) and not started:
        return
    lines = shell_lines(expand_variables(text))
    starts_server = _starts_server(path, lines)
    if not (started or starts_server or named_like_a_start(posixpath.basename(path))):
        return  # a deploy or maintenance script someone runs once, by hand
    if serves_with_runserver([line.text for line in lines]) or (
        not installs_its_checkout and any(EDITABLE_INSTALL.search(line.text) for line in lines)
    ):
        # A development start: runserver is not for production, and a start that
        # installs the project editable runs a source tree mounted from the host.
        return
    # A script that migrates and starts nothing else is a migration step: a one-off job
    # container, or a per-replica start, as whatever runs it says (judged there).
    migration_step = (
        not started and not starts_server and MIGRATION_SCRIPT.search(posixpath.basename(path))
    )
    # An entrypoint dispatching on its argument starts one process type per container:
    # migrate or beat in an arm that starts no server is that type's whole job.
    texts = [line.text for line in lines]
    arms = process_arms(texts)
    # A function's body runs in the arms of the lines that call it (none: never here).
    runs_in = [{arms[index]} for index in range(len(lines))]
    for index, callers in function_callers(texts, called_elsewhere).items():
        runs_in[index] = {
            None if c == CALLED_BY_THE_SOURCING_SCRIPT else arms[c]
            for c in callers
            if c is not None
        }
    serving_arms = {
        arm
        for arms_of, line in zip(runs_in, lines, strict=True)
        if SERVER.search(line.text)
        for arm in arms_of
    }
    # An arm that serves with runserver is the development process type ('web-dev').
    development_arms = {
        arm
        for arm in serving_arms - {None}
        if serves_with_runserver([t.text for a, t in zip(runs_in, lines, strict=True) if arm in a])
    }
    secret_heredocs = python_secret_heredocs(text) if "<<" in text else set()
    secrets: set[str] = set()  # variables assigned a generated secret so far
    # SECRET_KEY variables given a generated key, and those of them never written to a file.
    signing_keys: dict[str, Finding] = {}
    unsaved_keys: set[str] = set()
    first_instance_only = leader_only(texts)
    for index, (arms_of, line) in enumerate(zip(runs_in, lines, strict=True)):
        live = arms_of - development_arms
        if not live or index in first_instance_only:
            continue
        serves = beside_server or any(
            starts_server if arm is None else bool({None, arm} & serving_arms) for arm in live
        )
        arm = None if None in live else next(iter(live))
        assigned = SECRET_VARIABLE.match(line.text)
        if assigned and SECRET_GENERATOR.search(line.text):
            secrets.add(assigned.group(1))
        if _migrates(line.text):
            if not migration_step and (arm is None or serves):
                yield line_finding(path, line, "boot-migrate", BOOT_MIGRATE)
        elif resets_shared_state(line.text):
            if not migration_step and (arm is None or serves):
                yield line_finding(path, line, "boot-reset", reset_message(line.text))
        elif (
            INTO_FILE.search(line.text)
            and (SECRET_GENERATOR.search(line.text) or _mentions(line.text, secrets))
        ) or line.number in secret_heredocs:
            finding = line_finding(path, line, "file-write", SECRET_AT_START)
            yield finding._replace(fix_text=SECRET_FILE_FIX)
            unsaved_keys -= {name for name in signing_keys if _mentions(line.text, {name})}
        elif (
            assigned
            and SIGNING_KEY_VARIABLE.search(assigned.group(1))
            and SECRET_GENERATOR.search(line.text)
        ):
            # Into the environment the server inherits: a key of this replica's own
            # (reported below unless it is written to a file, reported there).
            signing_keys[assigned.group(1)] = line_finding(
                path, line, "settings", SECRET_KEY_AT_START
            )
            unsaved_keys.add(assigned.group(1))
        elif starts_cron(line.text):
            yield line_finding(path, line, "image-cron", IMAGE_CRON)
        elif (
            runs_beat(line.text, "gunicorn" if serves else "")
            or _beat_beside_a_worker(line.text, texts)
        ) and not _only_prints(line.text):
            yield line_finding(path, line, "scheduler", BEAT_EVERYWHERE)
        elif UWSGI_MEDIA_OPTION.search(line.text):
            yield line_finding(path, _option_line(text, line), "file-write", UWSGI_SERVES_MEDIA)
    yield from (signing_keys[name] for name in sorted(unsaved_keys))


# ``uwsgi ... --static-map /media=/app/media``: the ini option given on the command line.
STATIC_MAP_OF_MEDIA = r"--static-map2?[=\s]+\S*(?:media|upload)"
MEDIA_OPTION = lazy_compile(STATIC_MAP_OF_MEDIA, re.I)
UWSGI_MEDIA_OPTION = lazy_compile(r"\buwsgi\b.*" + STATIC_MAP_OF_MEDIA, re.I)
UWSGI_SERVES_MEDIA = (
    "uWSGI serves uploaded media from this host's disk: other instances have other files"
)


def _option_line(text: str, line: Line) -> Line:
    """The physical line of a continued command that gives the media ``--static-map``."""
    physical = text.splitlines()
    for number in range(line.number, len(physical) + 1):
        raw = physical[number - 1]
        if MEDIA_OPTION.search(raw):
            return Line(number, raw.strip())
        if not raw.rstrip().endswith("\\"):
            break
    return line


# uWSGI static-map/static-map2 of uploaded media: files served from this host's disk.
MEDIA_MAP = lazy_compile(r"media|upload", re.I)


# What a supervisor program or a uWSGI daemon runs: in every container or instance.
PROGRAM_KEYS = frozenset({"command", "attach-daemon", "smart-attach-daemon"})


def find_in_server_config(path: str, text: str) -> Iterator[Finding]:
    """uWSGI ini and supervisor conf: hooks, attached daemons and programs per replica.
    uWSGI's environment form (``UWSGI_STATIC_MAP=/media=/srv/media`` in a ``uwsgi.env``)
    is read as the option it sets. Supervisor's values continue on indented lines;
    uWSGI's never do (it strips each line's indentation)."""
    for line in logical_lines(text) if "[uwsgi]" in text else ini_lines(text):
        key, _, value = (part.strip() for part in line.text.partition("="))
        key = key.lower().removeprefix("export ").strip()
        if key.startswith("uwsgi_"):
            key = key.removeprefix("uwsgi_").replace("_", "-")
        if key in {"static-map", "static-map2"} and MEDIA_MAP.search(value):
            yield line_finding(path, line, "file-write", UWSGI_SERVES_MEDIA)
        elif _migrates(line.text) or (key in PROGRAM_KEYS and MIGRATION_SCRIPT.search(value)):
            yield line_finding(path, line, "boot-migrate", BOOT_MIGRATE)
        elif resets_shared_state(line.text):
            yield line_finding(path, line, "boot-reset", reset_message(line.text))
        elif key in {"cron", "cron2", "unique-cron", "legion-cron"}:
            yield line_finding(path, line, "image-cron", "uWSGI cron: every instance runs the job")
        elif starts_cron(line.text) and key in PROGRAM_KEYS:
            yield line_finding(path, line, "image-cron", IMAGE_CRON)
        elif key in PROGRAM_KEYS and (
            runs_beat(line.text, "gunicorn") or SCHEDULER_SCRIPT.search(value)
        ):
            yield line_finding(path, line, "scheduler", BEAT_EVERYWHERE)


def find_in_uwsgi_section(path: str, text: str) -> Iterator[Finding]:
    """Any ``.ini`` with a ``[uwsgi]`` section is a uWSGI config, whatever its name."""
    if "[uwsgi]" in text:
        yield from find_in_server_config(path, text)


def find_in_crontab(path: str, text: str) -> Iterator[Finding]:
    for line in logical_lines(text):
        if CRON_ENTRY.match(line.text + " "):
            yield line_finding(
                path,
                line,
                "image-cron",
                "crontab entry: every host or container that installs this file runs it",
            )
