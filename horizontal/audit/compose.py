"""boot-migrate, embedded schedulers and single-box backends set in a service's
environment, in a compose file that is a production stack.

A compose file is a development stack as often as not, so it is not scanned like a start
script. A stack is a developer's when it is named for development
(``docker-compose.dev.yml``) or serves with ``runserver``, a reloading server or a file
watcher; a service is a developer's when its own environment (with the anchors it
merges) sets a development flag: another service's ``DEBUG: 'True'`` says nothing about
it. In a production stack, a service whose command runs ``migrate`` before the server
starts N migrations when the service is scaled to N, and one that runs ``celery worker
--beat`` starts N schedulers.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator

from horizontal.audit import deploy, image_env
from horizontal.audit.findings import Finding, Location
from horizontal.audit.patterns import lazy_compile

__all__ = ["command_blocks", "find_in_compose"]

Block = tuple[int, list[str]]  # (number of the first line, the lines)

COMMAND_KEY = lazy_compile(r"^(\s*)(-\s+)?(command|entrypoint|args):\s*(.*)$")
DEV_COMPOSE_NAME = lazy_compile(
    r"[._-](dev|develop|development|local|test|tests|testing|ci|debug|demo|example|sample)"
    r"[._-]",
    re.I,
)
# A development flag a service sets (``DEBUG: "True"``, ``DEV_ENV: 'True'``).
DEV_FLAG = lazy_compile(
    r"\b(DEBUG|DEV_ENV|DEVELOPMENT|DJANGO_DEBUG)\b[\"']?\s*[:=]\s*[\"']?(true|1|yes|on)\b", re.I
)
# A server that reloads on code changes, or a service that watches files: the stack
# serves a mounted checkout to a developer.
DEV_STACK = lazy_compile(r"--reload\b|\bwatch\b", re.I)
SERVICE_KEY = lazy_compile(r"^(\s+)[\w.-]+:\s*(#.*)?$")
ANCHOR = lazy_compile(r"&([\w.-]+)")
ALIAS = lazy_compile(r"\*([\w.-]+)")


def find_in_compose(path: str, lines: list[str]) -> Iterator[Finding]:
    if DEV_COMPOSE_NAME.search(f".{posixpath.basename(path)}"):
        return
    text = "\n".join(lines)
    if DEV_STACK.search(text) or deploy.DEV_SERVER.search(text):
        return
    override = "override" in posixpath.basename(path).lower()
    anchors = _anchors(lines)
    served = bool(deploy.PRODUCTION_SERVER.search(text))
    beats: list[Finding] = []
    for first, service in _services(lines):
        merged = [anchors.get(name, "") for line in service for name in ALIAS.findall(line)]
        if DEV_FLAG.search("\n".join([*service, *merged])):
            continue
        name = service[0].split("#", 1)[0].strip().rstrip(":")
        # A service that mounts the checkout (``- .:/app``) runs a developer's code, and an
        # override file is the developer's layer over the stack: not what replicas get.
        developers = override or any(CHECKOUT_MOUNT.match(line) for line in service)
        for number, pair in () if developers else _environment(service, first):
            # ``DATABASE_URL: sqlite:////db/app.sqlite``: what every replica starts with.
            yield from image_env.single_box_values(
                path, number, lines[number - 1].strip(), [pair], f"the service {name}"
            )
        for start, block in command_blocks(service):
            command = " ".join(line.strip() for line in block)
            number = first + start - 1
            if deploy.resets_shared_state(command):
                offset = next((i for i, line in enumerate(block) if "purge" in line), 0)
                message = deploy.reset_message(command)
                yield _finding(path, lines, number + offset, "boot-reset", message)
            if deploy.runs_migrations(command) and deploy.PRODUCTION_SERVER.search(command):
                offset = next((i for i, line in enumerate(block) if "migrate" in line), 0)
                yield _finding(path, lines, number + offset, "boot-migrate", MIGRATES)
            if served and deploy.EMBEDDED_BEAT.search(command):
                offset = next((i for i, line in enumerate(block) if "worker" in line), 0)
                beats.append(_finding(path, lines, number + offset, "scheduler", EMBEDDED_BEAT))
    if beats:
        # Every worker of the stack started with ``-B``: one cause, the stack's schedule
        # sent by each of them, reported at the first.
        first_beat, *others = beats
        yield first_beat._replace(related=tuple(Location(path, f.line) for f in others))


MIGRATES = (
    "the service's command runs migrate every time a container starts: scaled "
    "to N, N replicas race to apply migrations"
)
EMBEDDED_BEAT = (
    "the service's worker embeds celery beat (-B/--beat): scaled to N, N schedulers "
    "send every periodic task N times"
)


# The checkout mounted into the container: ``- .:/app``, ``- ./src:/code``,
# ``- ${PWD}:/app``, or the long form's ``source: .``.
CHECKOUT_MOUNT = lazy_compile(
    r"^\s*-\s*[\"']?(\.{1,2}/?|\./src/?|\$\{?PWD\}?/?):|^\s*source:\s*[\"']?\.{1,2}/?[\"']?\s*$"
)
ENVIRONMENT_KEY = lazy_compile(r"^(\s*)environment:\s*(&[\w-]+\s*)?(#.*)?$")
# ``KEY: value``, ``"KEY": value`` or ``- KEY=value`` under ``environment:``.
ENVIRONMENT_ENTRY = lazy_compile(r"^\s*(?:-\s*)?[\"']?([A-Za-z_]\w*)[\"']?\s*[:=]\s*(\S.*)$")


def _environment(service: list[str], first: int) -> Iterator[tuple[int, tuple[str, str]]]:
    """(line number, (``KEY``, ``value``)) of each entry of a service's ``environment:`` block."""
    indent = scalar = -1
    for offset, line in enumerate(service):
        if (key := ENVIRONMENT_KEY.match(line)) is not None:
            indent = len(key.group(1))
            continue
        if indent < 0 or not line.strip() or line.lstrip().startswith("#"):
            continue
        depth = len(line) - len(line.lstrip())
        if depth < indent or (depth == indent and not line.lstrip().startswith("-")):
            indent = -1  # the next key of the service (a list may sit at the key's indent)
            continue
        if scalar >= 0 and depth > scalar:
            continue  # a line of a block scalar's text (``EXTRA: |``), not an entry
        scalar = -1
        if (entry := ENVIRONMENT_ENTRY.match(line)) is not None:
            value = entry.group(2).split(" #", 1)[0].strip().strip("\"'")
            if value[:1] in {"|", ">"}:
                scalar = depth
                continue
            yield first + offset, (entry.group(1), value)


def _finding(path: str, lines: list[str], number: int, category: str, message: str) -> Finding:
    return Finding(path, number, category, message, lines[number - 1].strip())


def _services(lines: list[str]) -> Iterator[Block]:
    """Each service under the top-level ``services:`` key, as (first line, lines)."""
    inside, indent, first = False, -1, 0
    block: list[str] = []
    for number, line in enumerate(lines, 1):
        if line and not line[0].isspace() and not line.startswith("#"):
            if block:
                yield first, block
            inside, indent, block = line.split(":", 1)[0].strip() == "services", -1, []
            continue
        if not inside:
            continue
        key = SERVICE_KEY.match(line)
        if key and (indent == -1 or len(key.group(1)) == indent):
            if block:
                yield first, block
            indent, first, block = len(key.group(1)), number, [line]
        elif block:
            block.append(line)
    if block:
        yield first, block


def _anchors(lines: list[str]) -> dict[str, str]:
    """The text of each ``&name`` anchor: its line and the lines indented under it."""
    found = {}
    for index, line in enumerate(lines):
        for name in ANCHOR.findall(line):
            indent = len(line) - len(line.lstrip())
            block = [line]
            for following in lines[index + 1 :]:
                if following.strip() and len(following) - len(following.lstrip()) <= indent:
                    break
                block.append(following)
            found[name] = "\n".join(block)
    return found


def command_blocks(lines: list[str]) -> Iterator[Block]:
    """(first line number, lines) of each ``command:``, ``entrypoint:`` or ``args:``
    value, with the lines indented under it (a folded ``>`` scalar, a quoted string over
    several lines, a YAML list of one word per line)."""
    for index, line in enumerate(lines):
        match = COMMAND_KEY.match(line)
        if match is None:
            continue
        indent = len(match.group(1))
        block = [match.group(4)]
        for following in lines[index + 1 :]:
            stripped = following.strip()
            depth = len(following) - len(following.lstrip())
            # A list's items may sit at the key's own indentation (``command:`` then
            # ``- python`` below it); a key or anything else ends the value.
            item_at_key = depth == indent and stripped.startswith("- ")
            if stripped and depth <= indent and not item_at_key:
                break
            block.append(following)
        yield index + 1, block
