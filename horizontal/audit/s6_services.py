"""s6-overlay services an image ships but never starts.

An ``s6-rc.d`` source folder holds one folder per service. s6-rc starts the services the
``user`` bundle names (``user/contents.d/NAME``, or lines of ``user/contents``) and those
they depend on (``NAME/dependencies.d/OTHER``, or lines of ``NAME/dependencies``), through
nested bundles too. A service no path from ``user`` reaches is never run: what its scripts
do happens in no replica. Nor does a crontab the start-up installs when the image's only
cron daemon is such a service (``crontab -`` in ``init/init.sh``, ``cron -f`` in a
``cron/run`` the bundle leaves out). A folder without a ``user`` bundle is not judged.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable, Set

from horizontal.audit.findings import Finding
from horizontal.audit.patterns import lazy_compile

__all__ = ["unstarted_services", "without_unstarted_services"]

SOURCE_FOLDER = "s6-rc.d"
TOP_BUNDLE = "user"
# ``cron -f``, ``crond -f``, ``exec cron``: a service whose run script is the cron daemon.
CRON_DAEMON = lazy_compile(r"(?:^|[\s;&|])(?:exec\s+)?(?:/usr/sbin/)?crond?(?:\s+-\w+)*\s*$", re.M)


def unstarted_services(paths: Iterable[str], read: Callable[[str], str | None]) -> set[str]:
    """The service folders (``docker/s6-rc.d/cron``) of every ``s6-rc.d`` folder in
    ``paths`` that its ``user`` bundle does not reach. ``read``: a file's text by path."""
    services: dict[str, dict[str, set[str]]] = {}  # source folder: service: its files
    for path in paths:
        parts = path.split("/")
        if SOURCE_FOLDER not in parts[:-2]:
            continue
        at = parts.index(SOURCE_FOLDER)
        folder = "/".join(parts[: at + 1])
        service, inner = parts[at + 1], "/".join(parts[at + 2 :])
        services.setdefault(folder, {}).setdefault(service, set()).add(inner)
    unstarted: set[str] = set()
    for folder, found in services.items():
        if TOP_BUNDLE not in found:
            continue

        def named(service: str, kind: str, folder: str = folder) -> set[str]:
            files = services[folder].get(service, set())
            names = {f.split("/", 1)[1] for f in files if f.startswith(f"{kind}.d/")}
            if kind in files:
                text = read(f"{folder}/{service}/{kind}") or ""
                names.update(line.strip() for line in text.splitlines() if line.strip())
            return names

        reached = {TOP_BUNDLE}
        waiting = [TOP_BUNDLE]
        while waiting:
            service = waiting.pop()
            for other in named(service, "contents") | named(service, "dependencies"):
                if other not in reached:
                    reached.add(other)
                    waiting.append(other)
        unstarted.update(f"{folder}/{name}" for name in found.keys() - reached)
    return unstarted


def without_unstarted_services(
    findings: list[Finding], paths: Set[str], read: Callable[[str], str | None]
) -> list[Finding]:
    """``findings`` without those in services no container starts, and without the
    crontabs installed under an ``s6-rc.d`` folder whose cron daemons never start."""
    unstarted = unstarted_services(paths, read)
    if not unstarted:
        return findings
    idle_cron = {
        posixpath.dirname(service)
        for service in unstarted
        if CRON_DAEMON.search(read(f"{service}/run") or "")
    }
    started_cron = {
        posixpath.dirname(posixpath.dirname(path))
        for path in paths
        if path.endswith("/run")
        and posixpath.dirname(path) not in unstarted
        and posixpath.basename(posixpath.dirname(posixpath.dirname(path))) == SOURCE_FOLDER
        and CRON_DAEMON.search(read(path) or "")
    }
    return [
        f
        for f in findings
        if not any(f.path.startswith(f"{service}/") for service in unstarted)
        and not (
            f.category == "image-cron"
            and any(
                f.path.startswith(f"{folder}/") and folder not in started_cron
                for folder in idle_cron
            )
        )
    ]
