"""Kubernetes manifests, Helm templates and Ansible roles: what every pod or host runs.

A Deployment's container that migrates runs in every pod (a Job or a Helm hook runs once
per release), and one whose celery worker embeds beat (``-B``/``--beat``) starts a
scheduler in every pod; so does a Helm chart's ``values.yaml`` that gives a container
that command. An Ansible ``cron:`` task that runs a Django command, or a systemd timer a
role that deploys the Django app enables, runs on every host the role provisions.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from horizontal.audit.compose import command_blocks
from horizontal.audit.deploy import EMBEDDED_BEAT, runs_migrations
from horizontal.audit.findings import Finding, Location
from horizontal.audit.patterns import lazy_compile
from horizontal.audit.script_lines import logical_lines
from horizontal.audit.start_messages import BOOT_MIGRATE

__all__ = [
    "find_in_manifest",
    "find_provisioned_crons",
    "find_provisioned_jobs",
    "find_provisioned_timers",
]

# Kinds whose pods are replicas: Kubernetes' own, OpenShift's DeploymentConfig, Argo's
# Rollout, Clowder's ClowdApp (its ``deployments``).
REPLICATED_KIND = lazy_compile(
    r"^kind:\s*(Deployment|StatefulSet|DaemonSet|ReplicaSet|DeploymentConfig|Rollout|ClowdApp)\b",
    re.M,
)
# A document that is a list of objects: an OpenShift Template's ``objects:``, a ``List``.
OBJECT_LIST = lazy_compile(r"^kind:\s*(Template|List)\b", re.M)
LIST_KEY = lazy_compile(r"^(objects|items):\s*$")
# A ClowdApp's ``jobs:``; an OpenShift DeploymentConfig's lifecycle hook (``pre:``/``mid:``/
# ``post:`` of its strategy's params), whose ``execNewPod`` runs once per rollout.
JOBS_KEY = lazy_compile(r"^\s*(jobs|execNewPod):\s*$")
ONE_OFF = lazy_compile(r"^kind:\s*(Job|CronJob)\b|helm\.sh/hook", re.M)
LIST_SYNTAX = lazy_compile(r"[\[\]\"',]")


# An Ansible task's cron module (``cron:``, ``ansible.builtin.cron:``), its job, and a
# removal (``state: absent``), which installs nothing.
ANSIBLE_CRON = lazy_compile(r"^(?P<indent>\s*)(-\s+)?(ansible\.builtin\.)?cron:\s*$")
ANSIBLE_JOB = lazy_compile(r"^\s+job:\s*(?P<job>.+)$")
ANSIBLE_ABSENT = lazy_compile(r"^\s+state:\s*[\"']?absent\b")
DJANGO_COMMAND = lazy_compile(r"\bmanage\.py\b|\bdjango-admin\b")
ANSIBLE_CRON_JOB = (
    "cron job installed by provisioning: every host the role provisions runs it "
    "(a second web host runs it twice)"
)
# An Ansible task's systemd module, the ``.timer`` unit it names, and whether it turns the
# unit on (``enabled: yes``, ``state: started``). A role that also deploys the Django app
# (its server or ``manage.py``) puts the timer on every web host it provisions.
ANSIBLE_SYSTEMD = lazy_compile(
    r"^(?P<indent>\s*)(-\s+)?(ansible\.builtin\.)?systemd(_service)?:\s*$"
)
ANSIBLE_TIMER = lazy_compile(r"^\s+name:\s*[\"']?[\w@.{}\s-]+\.timer[\"']?\s*$")
ANSIBLE_TURNED_ON = lazy_compile(
    r"^\s+(enabled:\s*[\"']?(yes|true)\b|state:\s*[\"']?(started|restarted)\b)", re.I
)
DJANGO_APP_ROLE = lazy_compile(r"\bmanage\.py\b|\bgunicorn\b|\buwsgi\b|\bdjango-admin\b", re.I)
ANSIBLE_TIMER_JOB = (
    "systemd timer enabled by provisioning that also deploys the web app: every web host "
    "the role provisions runs its job (a second host runs it twice)"
)
ANSIBLE_TIMER_FIX = (
    "Enable the timer on one host only (a 'when:' on one inventory host), or register the "
    "command as a @job and run 'manage.py runjob NAME' from every host."
)


def find_provisioned_crons(path: str, text: str) -> Iterator[Finding]:
    """A provisioning role's ``cron:`` task that runs a Django command: installed on every
    host the role is applied to."""
    for index, line, block in _task_blocks(text, ANSIBLE_CRON):
        jobs = [(n, m.group("job")) for n, t in block if (m := ANSIBLE_JOB.match(t))]
        if any(ANSIBLE_ABSENT.match(t) for _, t in block):
            continue
        for number, job in jobs:
            if DJANGO_COMMAND.search(job):
                yield Finding(
                    path,
                    index + 1,
                    "image-cron",
                    ANSIBLE_CRON_JOB,
                    line.strip(),
                    related=(Location(path, number),),
                )


def find_provisioned_jobs(path: str, text: str) -> Iterator[Finding]:
    """What an Ansible task file installs on every host: cron jobs and timers."""
    if "cron:" in text:
        yield from find_provisioned_crons(path, text)
    if ".timer" in text:
        yield from find_provisioned_timers(path, text)


def find_provisioned_timers(path: str, text: str) -> Iterator[Finding]:
    """The systemd timers a role that deploys the Django app turns on: one finding at the
    first, the others related (one role, one root cause)."""
    if not DJANGO_APP_ROLE.search(text):
        return
    timers: list[Location] = []
    for _index, _line, block in _task_blocks(text, ANSIBLE_SYSTEMD):
        named = [(n, t) for n, t in block if ANSIBLE_TIMER.match(t)]
        if named and any(ANSIBLE_TURNED_ON.match(t) for _, t in block):
            number, unit = named[0]  # the finding names the unit the task turns on
            timers.append(Location(path, number, unit.strip()))
    if timers:
        first, *others = timers
        yield Finding(
            path,
            first.line,
            "image-cron",
            ANSIBLE_TIMER_JOB,
            first.source,
            related=tuple(others),
            fix_text=ANSIBLE_TIMER_FIX,
        )


def _task_blocks(
    text: str, module: re.Pattern[str]
) -> Iterator[tuple[int, str, list[tuple[int, str]]]]:
    """Each line that opens an Ansible ``module`` (its pattern has an ``indent`` group),
    by index, with the numbered lines of its arguments (indented deeper)."""
    lines = text.splitlines()
    for index, line in enumerate(lines):
        opened = module.match(line)
        if opened is None:
            continue
        indent = len(opened.group("indent"))
        block: list[tuple[int, str]] = []
        for number, following in enumerate(lines[index + 1 :], index + 2):
            if following.strip() and len(following) - len(following.lstrip()) <= indent:
                break
            block.append((number, following))
        yield index, line, block


def find_in_manifest(path: str, text: str) -> Iterator[Finding]:
    """A Deployment's (or StatefulSet's) container or initContainer that migrates: every
    pod runs it. A Job, or a Helm hook, runs once per release: the right place. An
    Ansible task's cron that runs a Django command runs on every host it provisions."""
    if "cron:" in text:
        yield from find_provisioned_crons(path, text)
    if HELM_VALUES.search(path):
        yield from _embedded_beats(path, text, 0)
        return
    offset = 0
    for document in text.split("\n---"):
        for start, manifest in _objects(document):
            if REPLICATED_KIND.search(manifest) and not ONE_OFF.search(manifest):
                for number in sorted(_migrating_lines(manifest) - _job_lines(manifest)):
                    line = manifest.splitlines()[number - 1].strip()
                    yield Finding(path, number + start + offset, "boot-migrate", BOOT_MIGRATE, line)
                yield from _embedded_beats(path, manifest, start + offset)
        offset += document.count("\n") + 1


# A Helm chart's values (``charts/app/values.yaml``, ``helm/values-production.yaml``):
# the commands its templates give the pods.
HELM_VALUES = lazy_compile(r"(^|/)(charts?|helm)/(.+/)?values[\w.-]*\.ya?ml$")
BEAT_FLAG = lazy_compile(r"(^|[\s\"'\[,-])(-B|--beat)\b")
POD_BEAT = (
    "the pod's celery worker embeds beat (-B/--beat): with N replicas, N schedulers send "
    "every periodic task N times"
)


def _embedded_beats(path: str, text: str, offset: int) -> Iterator[Finding]:
    """A ``command:``/``args:`` value (a line, a flow list, one word per line) that runs a
    celery worker with beat embedded, at the line that embeds it (``- --beat``). A
    container's ``command:`` and ``args:`` are read together, in order."""
    lines = text.splitlines()
    blocks = list(command_blocks(lines))
    words = " ".join(
        LIST_SYNTAX.sub(" ", item.strip().removeprefix("- "))
        for _, block in blocks
        for item in block
    )
    if not EMBEDDED_BEAT.search(words):
        return
    for start, block in blocks:
        at = next((i for i, item in enumerate(block) if BEAT_FLAG.search(item)), None)
        if at is not None:
            number = start + at
            yield Finding(path, number + offset, "scheduler", POD_BEAT, lines[number - 1].strip())
            return


def _job_lines(manifest: str) -> set[int]:
    """Lines under a ``jobs:`` key (a ClowdApp's one-off jobs, run by an invocation) or a
    lifecycle hook's ``execNewPod:``: once per release, as a Job is."""
    found: set[int] = set()
    key_indent: int | None = None
    for number, line in enumerate(manifest.splitlines(), start=1):
        indent = len(line) - len(line.lstrip())
        # YAML may write a key's list at the key's own indentation (``jobs:\n- name:``).
        in_list = indent == key_indent and line.lstrip().startswith("- ")
        if key_indent is not None and line.strip() and indent <= key_indent and not in_list:
            key_indent = None
        if key_indent is not None:
            found.add(number)
        elif JOBS_KEY.match(line):
            key_indent = indent
    return found


def _objects(document: str) -> Iterator[tuple[int, str]]:
    """The manifests of a document, each with the number of lines before it: the document
    itself, or each object of an OpenShift Template's ``objects:`` (a ``List``'s
    ``items:``), dedented so that its ``kind:`` starts the line."""
    if not OBJECT_LIST.search(document):
        yield 0, document
        return
    lines = document.splitlines()
    starts = [i + 1 for i, line in enumerate(lines) if LIST_KEY.match(line)]
    for first in starts:
        item_indent: int | None = None
        current: list[str] = []
        current_start = first
        for index in range(first, len(lines)):
            line = lines[index]
            indent = len(line) - len(line.lstrip())
            if line.strip() and indent == 0 and not line.startswith("-"):
                break  # the next top-level key
            if line.lstrip().startswith("- ") and item_indent in (None, indent):
                item_indent = indent
                if current:
                    yield current_start, "\n".join(current)
                current, current_start = [], index
                line = line.replace("- ", "  ", 1)
            current.append(line[(item_indent or 0) + 2 :] if line.strip() else "")
        if current:
            yield current_start, "\n".join(current)


def _migrating_lines(document: str) -> set[int]:
    """Lines of a manifest whose command migrates: a one-line command, or a ``command:``/
    ``args:`` list of one word per line (``- python``, ``- manage.py``, ``- migrate``),
    reported at its ``migrate`` line."""
    found = {
        line.number
        for line in logical_lines(document)
        if runs_migrations(LIST_SYNTAX.sub(" ", line.text))
    }
    for start, block in command_blocks(document.splitlines()):
        words = [LIST_SYNTAX.sub(" ", item.strip().removeprefix("- ")) for item in block]
        if runs_migrations(" ".join(words)):
            at = next((i for i, item in enumerate(block) if "migrate" in item), 0)
            if not found & set(range(start, start + len(block))):
                found.add(start + at)
    return found
