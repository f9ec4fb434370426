"""Judgements across start files, made once every file of the tree is read.

One finding per image's cron (at the Dockerfile line, crontab lines related); a script
that a start script or a ``CMD`` runs is part of every replica's start; a script a
Dockerfile ``RUN`` line runs is a build step; an image served by ``runserver`` is a
development container. ``Scan.finish`` calls these with the findings and the texts read.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator

from horizontal.audit import deploy, migrate_commands
from horizontal.audit.file_kinds import (
    is_compose_file,
    is_dockerfile,
    shell_if_shebang,
    text_detector,
)
from horizontal.audit.findings import Finding, Location
from horizontal.audit.opt_in_switches import without_opt_in_starts
from horizontal.audit.patterns import lazy_compile
from horizontal.audit.script_lines import logical_lines, shell_lines
from horizontal.audit.script_names import DEVELOPMENT_SCRIPT

__all__ = [
    "judged_as_started",
    "migrations_through_commands",
    "one_cron_per_image",
    "scripts_run_by_start_scripts",
    "without_build_steps",
    "without_development_starts",
]


def judged_as_started(findings: list[Finding], texts: dict[str, list[str]]) -> list[Finding]:
    """The findings of start files as the starts run them: one cron per image, a scheduler
    config with the lines that install it, one migrate per script; a migrate or a
    scheduler behind a switch that is off, build steps and development starts dropped."""
    findings = one_cron_per_image(with_the_lines_that_install_them(findings, texts))
    findings = one_migrate_per_script(without_opt_in_starts(findings, texts))
    return without_development_starts(without_build_steps(findings, texts), texts)


def one_migrate_per_script(findings: list[Finding]) -> list[Finding]:
    """A start script that migrates twice (``migrate``, then ``migrate --database=other``)
    is one cause: one finding at its first ``migrate``, the others related."""
    firsts: dict[str, Finding] = {}
    rest: dict[str, list[Location]] = {}
    for finding in sorted(f for f in findings if f.category == "boot-migrate"):
        if finding.path in firsts:
            rest[finding.path].append(Location(finding.path, finding.line, finding.source))
        else:
            firsts[finding.path], rest[finding.path] = finding, []
    if not any(rest.values()):
        return findings
    kept: list[Finding] = []
    for finding in findings:
        first = firsts.get(finding.path) if finding.category == "boot-migrate" else None
        if first is None:
            kept.append(finding)
        elif finding is first:
            kept.append(first._replace(related=(*first.related, *rest[finding.path])))
    return kept


def one_cron_per_image(findings: list[Finding]) -> list[Finding]:
    """An image's cron is one finding: the cron lines of one file become related
    locations of its first, and every crontab of the tree becomes related to the
    Dockerfile line that installs cron, when there is one (the place that decides it), or
    else to the script line that installs that crontab by name."""
    crons = [f for f in findings if f.category == "image-cron"]
    if len(crons) < 2:
        return findings
    others = [f for f in findings if f.category != "image-cron"]
    by_file: dict[str, list[Finding]] = {}
    for finding in sorted(crons):
        by_file.setdefault(finding.path, []).append(finding)
    is_crontab = {path: text_detector(path) is deploy.find_in_crontab for path in by_file}
    merged: list[Finding] = []
    crontabs: list[Finding] = []
    for path, group in by_file.items():
        # The cron lines of one file (a crontab's entries, a Dockerfile's install and
        # start) are one image's cron: one finding at the first, the others related.
        first, rest = group[0], group[1:]
        one = first._replace(related=(*first.related, *(Location(f.path, f.line) for f in rest)))
        (crontabs if is_crontab[path] else merged).append(one)
    dockerfiles = [f for f in merged if is_dockerfile(f.path)]
    # The scripts and supervisor programs that start the daemon are the same image's cron.
    starters = [f for f in merged if not is_dockerfile(f.path)]
    if dockerfiles and (crontabs or starters):
        decider = dockerfiles[0]
        related = tuple(
            Location(loc.path, loc.line)
            for crontab in (*crontabs, *starters)
            for loc in (Location(crontab.path, crontab.line), *crontab.related)
        )
        merged = [f for f in merged if f not in starters]
        merged[merged.index(decider)] = decider._replace(related=decider.related + related)
        return others + merged
    for crontab in crontabs:
        # ``crontab deploy/conf/crontab`` in an install script: the crontab's own decider.
        name = posixpath.basename(crontab.path)
        installer = next((f for f in merged if name in f.source), None)
        if installer is None:
            merged.append(crontab)
            continue
        places = (Location(crontab.path, crontab.line), *crontab.related)
        merged[merged.index(installer)] = installer._replace(
            related=(*installer.related, *(Location(p.path, p.line) for p in places))
        )
    return others + merged


# RUN python build_step.py in a Dockerfile: the script runs at image build, once.
BUILD_RUN = lazy_compile(r"\bpython[\d.]*\s+(?:-\S+\s+)*([\w./-]+\.py)\b")


def scripts_run_by_start_scripts(texts: dict[str, list[str]]) -> Iterator[Finding]:
    """A script a start script (or a Dockerfile's ``CMD``/``ENTRYPOINT``) runs is part of
    every replica's start, whatever its name: judged so, with the calling line related.
    Followed three calls deep; scripts that are start scripts themselves were judged."""
    shells = {
        path: "\n".join(lines)
        for path, lines in texts.items()
        if text_detector(path) in (deploy.find_in_shell, shell_if_shebang)
    }
    by_name: dict[str, list[str]] = {}
    for path in shells:
        by_name.setdefault(posixpath.basename(path), []).append(path)
    # Start scripts were judged as such already; the scripts they run are judged here.
    judged = {path for path, text in shells.items() if deploy.runs_at_start(path, text)}
    # A development start (runserver) runs its scripts on a developer's machine only.
    developers = {
        path
        for path in judged
        if deploy.serves_with_runserver([line.text for line in shell_lines(shells[path])])
    }
    # (caller, line, script name, whether the caller starts a server beside it)
    callers: list[tuple[str, int, str, bool]] = []
    for path in sorted(judged - developers):  # the first caller named is the related one
        serving = deploy.starts_a_server(shells[path])
        callers += [(path, n, name, serving) for n, name in deploy.scripts_started(shells[path])]
    for path, lines in texts.items():
        if posixpath.basename(path) in APPSPEC_FILES:
            # AWS CodeDeploy runs every hook script on every instance it deploys to.
            callers += [
                (path, number, posixpath.basename(script), False)
                for number, script in _appspec_hook_scripts(lines)
            ]
        if is_dockerfile(path):
            for line in logical_lines("\n".join(lines)):
                if line.text.split(None, 1)[0].upper() in {"CMD", "ENTRYPOINT"}:
                    serving = deploy.starts_a_server(line.text)
                    callers += [
                        (path, line.number, n, serving)
                        for _, n in deploy.scripts_started(line.text)
                    ]
            services = _supervised_services(path, lines, shells, by_name)
            callers += services
            yield from _schedulers_beside_server(services, shells, by_name, judged)
    yield from _sourced_functions(callers, shells, by_name)
    for _ in range(3):
        following: list[tuple[str, int, str, bool]] = []
        for caller, number, name, serving in callers:
            for script in by_name.get(name, []):
                if script in judged or DEVELOPMENT_SCRIPT.search(posixpath.basename(script)):
                    # (``bootstrap_development.sh``: its name says whose start it is)
                    continue
                judged.add(script)
                related = (Location(caller, number),)
                for finding in deploy.find_in_shell(
                    script, shells[script], started=True, beside_server=serving
                ):
                    yield finding._replace(related=related)
                own = serving or deploy.starts_a_server(shells[script])
                following += [
                    (script, n, s, own) for n, s in deploy.scripts_started(shells[script])
                ]
        callers = following


# ``source lib.sh`` / ``. "$DIR/lib.sh"``: the script's functions become the caller's.
SOURCES = lazy_compile(r"^\s*(?:source|\.)\s+[\"']?[^\s;&|]*?([\w.-]*[\w-]\.(?:ba)?sh)\b")
SHELL_WORD = lazy_compile(r"[A-Za-z_][\w-]*")


def _sourced_functions(
    callers: list[tuple[str, int, str, bool]],
    shells: dict[str, str],
    by_name: dict[str, list[str]],
) -> Iterator[Finding]:
    """A start script that sources a library of shell functions runs the ones it calls
    (``source entrypoint-common.sh`` then ``run_migrations``): what those run is judged
    as part of the start, with the sourcing line related. The library alone calls none
    of them, so judged alone it reports nothing there."""
    seen: set[tuple[str, int, str]] = set()
    for caller, number, name, serving in callers:
        text = shells.get(caller)
        if text is None:
            continue
        lines = text.splitlines()
        sourced = SOURCES.match(lines[number - 1]) if number <= len(lines) else None
        if sourced is None or sourced.group(1) != name:
            continue
        words = frozenset(SHELL_WORD.findall(text))
        for script in by_name.get(name, []):
            if script == caller:
                continue
            alone = {
                (f.line, f.category)
                for f in deploy.find_in_shell(
                    script, shells[script], started=True, beside_server=serving
                )
            }
            for finding in deploy.find_in_shell(
                script,
                shells[script],
                started=True,
                beside_server=serving,
                called_elsewhere=words,
            ):
                key = (script, finding.line, finding.category)
                if (finding.line, finding.category) not in alone and key not in seen:
                    seen.add(key)  # one finding, at the first script that sources it
                    yield finding._replace(related=(Location(caller, number),))


# A script installed as a runit or s6 service's ``run`` (``ln -s …/run_beat.bash
# /etc/service/beat/run``, ``COPY beat.sh /etc/services.d/beat/run``): the supervisor
# starts it in every container of the image, beside the image's other services.
SERVICE_RUN = lazy_compile(
    r"(?:\bln\s+-\w+\s+|^(?:COPY|ADD)\s+(?:--\S+\s+)*)[\"']?(\S+?)[\"']?\s+[\"']?"
    r"\S*(?:service|\bsv\b|s6)\S*/[\w.-]+/run\b",
    re.I,
)


def _supervised_services(
    path: str, lines: list[str], shells: dict[str, str], by_name: dict[str, list[str]]
) -> list[tuple[str, int, str, bool]]:
    """(Dockerfile, line, script name, whether a sibling service serves) per service the
    image installs: a scheduler service runs beside the web service in each container."""
    installed = [
        (line.number, posixpath.basename(match.group(1).rstrip("/")))
        for line in logical_lines("\n".join(lines))
        for part in re.split(r"&&|;", line.text)
        if (match := SERVICE_RUN.search(part.strip().removeprefix("RUN ").strip()))
    ]
    serving = any(
        deploy.starts_a_server(shells[script])
        for _, name in installed
        for script in by_name.get(name, [])
    )
    return [(path, number, name, serving) for number, name in installed]


def _schedulers_beside_server(
    services: list[tuple[str, int, str, bool]],
    shells: dict[str, str],
    by_name: dict[str, list[str]],
    judged: set[str],
) -> Iterator[Finding]:
    """A service script that looks like a start of its own (``run_celery_beat.bash``) was
    judged alone, as a scheduler's own process; installed beside a serving service, it is
    one scheduler per container."""
    for dockerfile, number, name, serving in services:
        for script in by_name.get(name, []) if serving else []:
            if script not in judged:
                continue  # judged below, as a script the image starts
            alone = set(deploy.find_in_shell(script, shells[script]))
            for finding in deploy.find_in_shell(
                script, shells[script], started=True, beside_server=True
            ):
                if finding.category == "scheduler" and finding not in alone:
                    yield finding._replace(related=(Location(dockerfile, number),))


# AWS CodeDeploy's application specification: its hooks' scripts run on every instance.
APPSPEC_FILES = frozenset({"appspec.yml", "appspec.yaml"})
HOOK_LOCATION = lazy_compile(r"^\s*-?\s*location:\s*[\"']?([\w./-]+)")


def _appspec_hook_scripts(lines: list[str]) -> Iterator[tuple[int, str]]:
    """(line, script) for each ``location:`` under ``hooks:`` of an appspec file."""
    in_hooks = False
    for number, text in enumerate(lines, start=1):
        if text.startswith("hooks:"):
            in_hooks = True
        elif text[:1].isalpha():
            in_hooks = False  # the next top-level key
        elif in_hooks and (match := HOOK_LOCATION.match(text)):
            yield number, match.group(1)


def without_build_steps(findings: list[Finding], texts: dict[str, list[str]]) -> list[Finding]:
    """File writes of scripts a Dockerfile ``RUN`` line runs are build steps: dropped."""
    scripts: set[str] = set()
    for path, lines in texts.items():
        if not is_dockerfile(path):
            continue
        for line in logical_lines("\n".join(lines)):
            if line.text.split(None, 1)[0].upper() == "RUN":
                for script in BUILD_RUN.findall(line.text):
                    # An absolute path is inside the image: its name is what we can match.
                    absolute = script.startswith("/")
                    name = posixpath.basename(script) if absolute else script.removeprefix("./")
                    scripts.add(name)
    if not scripts:
        return findings
    return [
        f
        for f in findings
        if f.category != "file-write"
        or not any(f.path == s or f.path.endswith("/" + s) for s in scripts)
    ]


START_CATEGORIES = frozenset({"boot-migrate", "image-cron", "scheduler"})
# A compose service's start: ``command: ./init.sh ./manage.py runserver 0.0.0.0:8000``.
COMPOSE_START = lazy_compile(r"^\s*(command|entrypoint)\s*:")


# A Dockerfile stage named for development: ``FROM base AS dev``, ``AS job-server-dev``.
DEV_STAGE = lazy_compile(r"\s[Aa][Ss]\s+\S*?(^|[-_.]|\b)(dev|develop|development|local)\s*$")


def _sort_starts(starts: list[str], development: set[str], production: set[str]) -> None:
    """The scripts one stage's ``CMD``/``ENTRYPOINT`` start, development when its ``CMD``
    serves with ``runserver``."""
    commands = [t for t in starts if t.split(None, 1)[0].upper() == "CMD"]
    named = {name for t in starts for _, name in deploy.scripts_started(t)}
    (development if deploy.serves_with_runserver(commands) else production).update(named)


def without_development_starts(
    findings: list[Finding], texts: dict[str, list[str]]
) -> list[Finding]:
    """The entrypoint of an image whose ``CMD`` serves with ``runserver``, and a script a
    compose service's ``command:`` runs before ``runserver``, start a development
    container: what they run at start is dropped (unless the script itself starts a
    production server, or a production image starts it too)."""
    development: set[str] = set()
    production: set[str] = set()
    in_development = False
    for path, lines in texts.items():
        if is_compose_file(path):
            for line in lines:
                if COMPOSE_START.match(line) and deploy.serves_with_runserver([line]):
                    development.update(name for _, name in deploy.scripts_started(line))
            continue
        if not is_dockerfile(path):
            continue
        starts: list[str] = []
        for step in logical_lines("\n".join(lines)):
            instruction = step.text.split(None, 1)[0].upper()
            if instruction == "FROM":
                # A new stage: ``FROM base AS job-server-dev`` starts a development image.
                stage = DEV_STAGE.search(step.text)
                if starts:
                    _sort_starts(starts, development, production)
                starts = []
                in_development = stage is not None
            elif instruction in {"CMD", "ENTRYPOINT"}:
                if in_development:
                    development.update(name for _, name in deploy.scripts_started(step.text))
                else:
                    starts.append(step.text)
        _sort_starts(starts, development, production)
        in_development = False
    scripts = development - production
    if not scripts:
        return findings
    return [
        f
        for f in findings
        if f.category not in START_CATEGORIES
        or posixpath.basename(f.path) not in scripts
        or deploy.PRODUCTION_SERVER.search("\n".join(texts.get(f.path, [])))
    ]


def migrations_through_commands(
    texts: dict[str, list[str]],
    commands: dict[str, Location],
    programs: dict[str, Location] | None = None,
    aliases: dict[str, Location] | None = None,
    targets: dict[str, Location] | None = None,
) -> tuple[dict[str, list[str]], dict[Location, Location]]:
    """Start files with each run of a project command that migrates (``commands``: name
    to the line that migrates, ``deploy.migrate_wrapper``), of a Python program that does
    (``programs``: ``python jms``, ``python -m app.install``) or of a Makefile target that
    does (``targets``: ``make server-migrate``), written as ``manage.py migrate``, so that
    every start rule judges it as migrate; and each rewritten line with the line that
    migrates, its related location."""
    rewritten: dict[str, list[str]] = {}
    runs: dict[Location, Location] = {}
    programs = programs or {}
    aliases = aliases or {}  # manage.py under the project's name: ``mrs migrate``
    targets = targets or {}  # a Makefile's: ``make server-migrate``
    names = {**commands, **programs, **aliases, **targets}
    if not names:
        return rewritten, runs
    for path, lines in texts.items():
        if path.endswith(".py") or not any(name in line for line in lines for name in names):
            continue
        new = list(lines)
        for index, line in enumerate(lines):
            migrate = migrate_commands.as_migrate(line, commands)
            ran = commands
            if migrate is None:
                migrate, ran = migrate_commands.as_migrate_program(line, programs), programs
            if migrate is None:
                migrate, ran = migrate_commands.as_alias_migrate(line, aliases), aliases
            if migrate is None and posixpath.basename(path) not in migrate_commands.MAKEFILE_NAMES:
                migrate, ran = migrate_commands.as_make_migrate(line, targets), targets
            if migrate is not None:
                new[index] = migrate
                name = next(n for n in ran if n in line)
                runs[Location(path, index + 1)] = ran[name]
        if new != lines:
            rewritten[path] = new
    return rewritten, runs


# ``cp deploy/supervisord-beat.conf /etc/supervisor/conf.d/``, ``COPY beat.conf /etc/…``,
# ``ln -s …``: a line that installs a file (its name) where a supervisor or cron reads it.
INSTALLS = lazy_compile(r"^\s*(?:cp|ln|install|COPY|ADD)\s")


def with_the_lines_that_install_them(
    findings: list[Finding], texts: dict[str, list[str]]
) -> list[Finding]:
    """A scheduler or cron found in a program's config file (a supervisor ``.conf``) is
    switched on where a start script or image copies that file into place: those lines
    are related (the switch is where the fix goes)."""
    started = {"scheduler", "image-cron"}
    configs = {
        f.path
        for f in findings
        if f.category in started and text_detector(f.path) is deploy.find_in_server_config
    }
    if not configs:
        return findings
    installed: dict[str, list[Location]] = {}
    for path, lines in texts.items():
        for number, line in enumerate(lines, start=1):
            if not INSTALLS.match(line):
                continue
            for config in configs:
                if posixpath.basename(config) in line and path != config:
                    installed.setdefault(config, []).append(Location(path, number))
    return [
        f._replace(related=(*f.related, *installed[f.path]))
        if f.path in installed and f.category in started
        else f
        for f in findings
    ]
