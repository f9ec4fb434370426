"""Dockerfiles: what every container of an image runs at its start.

A ``CMD`` or ``ENTRYPOINT`` that migrates, resets shared state or embeds a scheduler
does so in every replica; cron installed by any instruction runs in every container;
an ``ENV`` that names this host is every container's default. A stage built for
developers (``FROM base AS dev``), and an image that serves with ``runserver``, are
not what replicas run.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from horizontal.audit.deploy import (
    line_finding,
    reset_message,
    resets_shared_state,
    runs_beat,
    runs_migrations,
    serves_with_runserver,
    starts_cron,
)
from horizontal.audit.findings import Finding
from horizontal.audit.image_env import single_box_environment
from horizontal.audit.patterns import lazy_compile
from horizontal.audit.script_lines import logical_lines
from horizontal.audit.start_messages import BEAT_EVERYWHERE, BOOT_MIGRATE, IMAGE_CRON

__all__ = ["exec_form", "find_in_dockerfile"]

DOCKER_STAGE = lazy_compile(r"\s+AS\s+([\w.-]+)\s*$", re.I)
DEVELOPMENT_STAGE = lazy_compile(r"^(dev|development|local|test|tests|testing|ci|debug)$", re.I)


def exec_form(text: str) -> str:
    """``CMD ["monofy", "manage.py", "migrate", "&&", "gunicorn"]`` as the words it runs
    (``CMD monofy manage.py migrate && gunicorn``): the exec form read like the shell form."""
    instruction, _, rest = text.partition(" ")
    rest = rest.strip()
    if not rest.startswith("["):
        return text
    try:
        words = json.loads(rest)
    except ValueError:
        return text
    if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
        return text
    return " ".join([instruction, *words])


def find_in_dockerfile(path: str, text: str) -> Iterator[Finding]:
    lines = logical_lines(text)
    starts = [exec_form(ln.text) for ln in lines if ln.text.upper().startswith("CMD")]
    if serves_with_runserver(starts):
        return  # a development image (runserver is not for production)
    development_stage = False
    for line in lines:
        instruction = line.text.split(None, 1)[0].upper() if line.text else ""
        if instruction == "FROM":
            # ``FROM base AS dev``: a stage built for developers (``--target dev``), whose
            # CMD no replica runs; the next FROM starts another stage.
            stage = DOCKER_STAGE.search(line.text)
            development_stage = bool(stage and DEVELOPMENT_STAGE.match(stage.group(1)))
        if development_stage:
            continue
        if instruction == "ENV":
            yield from single_box_environment(path, line.number, line.text)
        runs_at_start = instruction in {"CMD", "ENTRYPOINT"}
        command = exec_form(line.text) if runs_at_start else line.text
        if runs_at_start and runs_migrations(command):
            yield line_finding(path, line, "boot-migrate", BOOT_MIGRATE)
        if runs_at_start and resets_shared_state(command):
            yield line_finding(path, line, "boot-reset", reset_message(line.text))
        if starts_cron(command) and instruction in {"RUN", "COPY", "ADD", "CMD", "ENTRYPOINT"}:
            yield line_finding(path, line, "image-cron", IMAGE_CRON)
        if runs_at_start and runs_beat(command, command):
            yield line_finding(path, line, "scheduler", BEAT_EVERYWHERE)
