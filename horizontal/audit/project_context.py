"""What the project as a whole says about a finding that no single file can.

Noted file by file during the walk, applied once every file has been read: Celery beat
with nothing scheduled anywhere (beat_schedules.py), code of a Python project of its own
that never names Django (nested_projects.py), what a ``Vagrantfile`` provisions the
developer's VM from (vagrant.py), a served folder that ships in the source tree
(served_folders.py), and s6-overlay services no bundle starts (s6_services.py). Each drops
findings of what no replica runs.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping, Set
from pathlib import Path

from horizontal.audit import vagrant
from horizontal.audit.beat_schedules import defines_periodic_tasks, without_idle_beats
from horizontal.audit.findings import Finding, line_of
from horizontal.audit.nested_projects import outside_django_projects, without_other_projects_code
from horizontal.audit.served_folders import serves_a_shipped_folder
from horizontal.audit.settings_files import is_settings_path
from horizontal.audit.tree import read_text

__all__ = ["ProjectContext"]


class ProjectContext:
    """The notes one scan takes of the whole project (a plain class: ``check --deploy``
    imports the scanner)."""

    def __init__(self) -> None:
        self.schedules_periodic = False  # some module schedules a periodic task
        self.saw_settings = False  # some module is a settings module by its path
        self.django_folders: set[str] = set()  # folders of the modules that name Django
        self.vagrant_provisioned: list[str] = []  # what a Vagrantfile provisions from

    def note_python(self, name: str, text: str) -> None:
        if not self.schedules_periodic:
            self.schedules_periodic = defines_periodic_tasks(text)
        if not self.saw_settings:
            self.saw_settings = is_settings_path(name)
        if "django" in text:
            self.django_folders.add(posixpath.dirname(name))

    def note_vagrantfile(self, name: str, text: str) -> None:
        self.vagrant_provisioned += vagrant.provisioned_paths(name, text)

    def without_what_no_replica_runs(
        self,
        findings: list[Finding],
        texts: Mapping[str, list[str]],
        paths: Set[str],
        base: str,
    ) -> list[Finding]:
        # Only a scan that read the project's settings can tell that nothing is scheduled.
        schedules = self.schedules_periodic or not self.saw_settings
        findings = without_idle_beats(findings, texts, schedules)
        findings = without_other_projects_code(
            findings, outside_django_projects(paths, self.django_folders)
        )
        findings = vagrant.without_vagrant_provisioning(findings, self.vagrant_provisioned)
        if any("s6-rc.d/" in path for path in paths):
            # Imported here: few trees hold s6-overlay services, and check --deploy scans.
            from horizontal.audit.s6_services import without_unstarted_services

            findings = without_unstarted_services(
                findings, paths, lambda path: read_text(Path(base, path))
            )
        return [
            f
            for f in findings
            if not serves_a_shipped_folder(f, line_of(texts, f.path, f.line), base, texts)
        ]
