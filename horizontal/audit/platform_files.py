"""Process files a platform runs in every replica: Procfiles, Heroku's ``heroku.yml``, a
platform's ``.profile``, deploy hooks run on every server, systemd units.

Each process type runs as its own containers, scaled on its own: ``migrate`` or a
scheduler in the web type runs once per web replica, in a ``release:`` phase once per
deploy. The command lines are judged by ``deploy.py``'s readers of shell commands.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from horizontal.audit.deploy import (
    EMBEDDED_BEAT,
    SERVER,
    find_in_shell,
    line_finding,
    reset_message,
    resets_shared_state,
    runs_beat,
    runs_migrations,
    starts_cron,
)
from horizontal.audit.findings import Finding
from horizontal.audit.patterns import lazy_compile
from horizontal.audit.script_lines import logical_lines
from horizontal.audit.start_messages import BEAT_EVERYWHERE, BOOT_MIGRATE, IMAGE_CRON

# Procfile process types a platform runs once per deploy (Heroku's release phase,
# Scalingo's postdeploy hook, Dokku's predeploy/postdeploy), not in each container.
RELEASE_PHASES = frozenset({"release", "postdeploy", "predeploy"})


def find_in_procfile(path: str, text: str) -> Iterator[Finding]:
    """Each process type runs as its own containers: what every web container starts is
    judged; a scheduler or cron that is a process type of its own (``clock:``, ``beat:``)
    runs as many times as that type is scaled, not once per web replica."""
    for line in logical_lines(text):
        process, colon, command = line.text.partition(":")
        if not colon or process.strip() in RELEASE_PHASES:
            continue  # a release phase: once per deploy, the right place
        if runs_migrations(command):
            yield line_finding(path, line, "boot-migrate", BOOT_MIGRATE)
        if resets_shared_state(command):
            yield line_finding(path, line, "boot-reset", reset_message(line.text))
        if starts_cron(command) and (process.strip() == "web" or SERVER.search(command)):
            yield line_finding(path, line, "image-cron", IMAGE_CRON)
        if runs_beat(command, command) and not SCHEDULER_PROCESS.match(process.strip()):
            yield line_finding(path, line, "scheduler", BEAT_EVERYWHERE)


def find_in_heroku_yml(path: str, text: str) -> Iterator[Finding]:
    """Heroku's container manifest: each process type under ``run:`` (``web: |`` and the
    commands below it, or ``command:`` and its list) is judged as a Procfile line at the
    line that runs it; ``release:`` runs once per deploy and is not read."""
    lines = text.splitlines()
    procfile = [""] * len(lines)  # a Procfile with the manifest's line numbers
    inside = False
    type_indent: int | None = None
    process = ""
    for index, raw in enumerate(lines):
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(raw) - len(raw.lstrip())
        if indent == 0:
            inside, type_indent, process = stripped.startswith("run:"), None, ""
            continue
        if not inside:
            continue
        if type_indent is None or indent <= type_indent:
            type_indent = indent
            process, _, command = stripped.partition(":")
        else:
            command = stripped.removeprefix("- ").removeprefix("command:")
        command = command.strip().strip("\"'")
        if command and command not in BLOCK_MARKERS and not command.startswith("image:"):
            procfile[index] = f"{process}: {command}"
    yield from find_in_procfile(path, "\n".join(procfile))


BLOCK_MARKERS = frozenset({"|", ">", "|-", ">-", "|+", ">+"})


# A process type named for the scheduler (``beat: celery worker -B …``, ``clock:``): the
# type that runs it, scaled to one.
SCHEDULER_PROCESS = lazy_compile(r"^(celery[_-]?)?(beat|clock|scheduler|cron)$", re.I)


def find_in_every_host_hook(path: str, text: str) -> Iterator[Finding]:
    """mySociety's ``conf/pre_deploy_actions.bash`` and ``conf/post_deploy_actions.bash``:
    its deploy system runs them on each server it deploys the site to, so what they run
    (``migrate``) runs once per server, not once per deploy. A hook installs the checkout
    it deploys (``pip install -e .``): no sign of a developer's start here."""
    for finding in find_in_shell(path, text, started=True, installs_its_checkout=True):
        if finding.category == "boot-migrate":
            finding = finding._replace(message=MIGRATE_ON_EVERY_HOST)
        yield finding


MIGRATE_ON_EVERY_HOST = (
    "migrate runs in a deploy hook that runs on every server: N servers race to apply "
    "migrations and old servers meet a new schema mid-rollout"
)


def find_in_platform_profile(path: str, text: str) -> Iterator[Finding]:
    """An app's ``.profile`` (and the scripts in ``.profile.d/``): Heroku and Cloud
    Foundry source it in every dyno or instance as it starts, before the process's own
    command, so what it runs is part of every replica's start."""
    return find_in_shell(path, text, started=True)


# What a systemd unit runs when it starts: on every host the unit is installed on.
UNIT_START_KEYS = frozenset({"execstartpre", "execstart", "execstartpost"})


def find_in_systemd_unit(path: str, text: str) -> Iterator[Finding]:
    """A service unit's start commands: ``migrate`` or a reset before the server, a worker
    that embeds beat. A unit that runs beat alone is the scheduler host's (one unit, as a
    Procfile's ``beat:`` type is), and is not reported."""
    for line in logical_lines(text):
        key, equals, command = line.text.partition("=")
        if not equals or key.strip().lower() not in UNIT_START_KEYS:
            continue
        if runs_migrations(command):
            yield line_finding(path, line, "boot-migrate", BOOT_MIGRATE)
        elif resets_shared_state(command):
            yield line_finding(path, line, "boot-reset", reset_message(line.text))
        elif EMBEDDED_BEAT.search(command):
            yield line_finding(path, line, "scheduler", BEAT_EVERYWHERE)
