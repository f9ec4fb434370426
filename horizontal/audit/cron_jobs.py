"""image-cron: a cron whose every job keeps this host's own files is right on every host.

Rotating this container's logs, deleting its ``/tmp`` files or refreshing its copy of a
signature database must run on each replica: nothing is shared, so nothing runs twice.
A cron job is project work when it runs the project (``manage.py``, ``django-admin``, a
Python script, Celery), calls a service (``curl``, ``psql``, ``redis-cli``) or runs a
script the tree does not hold (its content unknown). The jobs of an image are the
crontab files beside the Dockerfile or start script that starts cron, and the lines a
Dockerfile there writes into ``/etc/cron.d`` or ``/etc/crontab``.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable

from horizontal.audit import deploy
from horizontal.audit.file_kinds import is_dockerfile, text_detector
from horizontal.audit.findings import Finding, Location
from horizontal.audit.patterns import lazy_compile
from horizontal.audit.script_lines import logical_lines

__all__ = ["without_host_housekeeping"]

PROJECT_WORK = lazy_compile(
    r"manage\.py|django-admin|\bcelery\b|\bpython[\d.]*\b|\.py\b|\bcurl\b|\bwget\b"
    r"|\bpsql\b|\bmysql\b|\bredis-cli\b|\brunjob\b|\bhttps?://|\buwsgi\b|\bgunicorn\b"
)
SCRIPT = lazy_compile(r"[\w./-]+\.(?:sh|bash)\b")
# ``echo "0 3 * * * root find /tmp …" > /etc/cron.d/cleanup`` in a Dockerfile's RUN.
ECHOED_JOB = lazy_compile(r"""echo\s+(["'])(?P<job>.+?)\1\s*>>?\s*/etc/cron""")
CRONTAB_ENTRY_MESSAGE = "crontab entry:"
INSTALLED_CRONTAB = lazy_compile(r"/etc/cron\.d/([\w.-]+)")


def without_host_housekeeping(
    findings: list[Finding], texts: dict[str, list[str]]
) -> list[Finding]:
    """``findings`` without the image-cron ones whose jobs all keep this host's files."""
    kept: list[Finding] = []
    for finding in findings:
        if finding.category == "image-cron":
            named = _crontabs_named("\n".join(texts.get(finding.path, [finding.source])), texts)
            if finding.message.startswith(CRONTAB_ENTRY_MESSAGE):
                jobs = [finding.source]
            elif named:
                # ``mv deploy/conf/crontab /etc/cron.d/app``: the crontabs the file installs.
                jobs = [job for path in named for job in _crontab_jobs(texts[path])]
                if not jobs:
                    continue  # an empty crontab: nothing runs
                finding = _with_jobs_related(finding, named, texts)
            else:
                jobs = list(_image_jobs(posixpath.dirname(finding.path), texts))
            if jobs and not any(_project_work(job, texts) for job in jobs):
                continue
        kept.append(finding)
    return kept


def may_be_installed_crontab(path: str) -> bool:
    """``scripts/app-crontasks``, ``deploy/cronjobs``: named for cron, with no suffix, so
    no rule reads it; it matters only where a hook installs it by name."""
    name = posixpath.basename(path).lower()
    return "cron" in name and "." not in name


def _crontabs_named(source: str, texts: dict[str, list[str]]) -> list[str]:
    """The crontab files of the tree whose path ``source`` (a start file's text) names, or
    that it installs under their own name (``/etc/cron.d/app-crontasks``)."""
    installed = {match.group(1) for match in INSTALLED_CRONTAB.finditer(source)}
    return [
        path
        for path in texts
        if (path in source and text_detector(path) is deploy.find_in_crontab)
        or (
            posixpath.basename(path) in installed
            and may_be_installed_crontab(path)
            and any(_crontab_jobs(texts[path]))
        )
    ]


def _crontab_jobs(lines: list[str]) -> Iterable[str]:
    for line in logical_lines("\n".join(lines)):
        if deploy.CRON_ENTRY.match(line.text + " "):
            yield line.text


def _with_jobs_related(finding: Finding, named: list[str], texts: dict[str, list[str]]) -> Finding:
    """The install with the jobs of the crontabs it installs by name as related places (a
    crontab file read as one reports its own jobs)."""
    jobs = [
        Location(path, line.number)
        for path in named
        if text_detector(path) is not deploy.find_in_crontab
        for line in logical_lines("\n".join(texts[path]))
        if deploy.CRON_ENTRY.match(line.text + " ")
    ]
    new = [place for place in jobs if place not in finding.related]
    return finding._replace(related=(*finding.related, *new)) if new else finding


def _image_jobs(folder: str, texts: dict[str, list[str]]) -> Iterable[str]:
    prefix = f"{folder}/" if folder else ""
    for path, lines in texts.items():
        if not path.startswith(prefix):
            continue  # the image's own folder and the folders under it
        if text_detector(path) is deploy.find_in_crontab:
            yield from _crontab_jobs(lines)
        elif is_dockerfile(path):
            for text in lines:
                for match in ECHOED_JOB.finditer(text):
                    yield match.group("job")


def _project_work(job: str, texts: dict[str, list[str]], depth: int = 0) -> bool:
    if PROJECT_WORK.search(job):
        return True
    for script in SCRIPT.findall(job):
        name = posixpath.basename(script)
        found = [lines for path, lines in texts.items() if posixpath.basename(path) == name]
        if not found or depth >= 2:
            return True  # a script the tree does not hold may do anything
        if any(_project_work("\n".join(lines), texts, depth + 1) for lines in found):
            return True
    return False
