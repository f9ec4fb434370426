"""Folders a Vagrantfile provisions a developer's VM from.

``puppet.manifests_path = "puppet/manifests"``, ``puppet.module_path = "puppet/modules"``,
``ansible.playbook = "provisioning/site.yml"``, ``config.vm.provision "shell", path:
"bin/vagrant.sh"``: what these name builds the development box, not the production
hosts, whatever web server or cron it installs there. Text only.
"""

from __future__ import annotations

import posixpath

from horizontal.audit.findings import Finding
from horizontal.audit.patterns import lazy_compile

__all__ = ["provisioned_paths", "without_vagrant_provisioning"]

PROVISIONER_PATH = lazy_compile(
    r"""(?:manifests_path|module_path|playbook|\bpath:?)\s*(?:=|:)?\s*["']([^"'\s]+)["']"""
)


def provisioned_paths(path: str, text: str) -> list[str]:
    """The files and folders a ``Vagrantfile`` at ``path`` provisions from, relative to
    the scanned root."""
    folder = posixpath.dirname(path)
    return [
        posixpath.normpath(posixpath.join(folder, found).rstrip("/"))
        for found in PROVISIONER_PATH.findall(text)
    ]


def without_vagrant_provisioning(findings: list[Finding], provisioned: list[str]) -> list[Finding]:
    if not provisioned:
        return findings
    return [
        f
        for f in findings
        if not any(f.path == p or f.path.startswith(p + "/") for p in provisioned)
    ]
