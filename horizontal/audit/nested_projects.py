"""Python projects kept in the tree beside the Django one.

A folder with a packaging manifest of its own (``themefinder/pyproject.toml``,
``utils/bassins_versants/requirements.txt``) is a project of its own: a library, a data
tool, a notebook's helpers. When none of its Python modules mentions Django, it is not
the Django application that runs as N replicas, and what its modules write or keep is
that tool's business. The folder's other files (a Dockerfile, a start script) are still
judged. Paths only, and whether each module's text names Django.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Set

from horizontal.audit.findings import Finding

__all__ = ["MANIFESTS", "outside_django_projects", "without_other_projects_code"]

MANIFESTS = frozenset({"pyproject.toml", "setup.py", "setup.cfg", "requirements.txt"})


def outside_django_projects(paths: Iterable[str], django_folders: Set[str]) -> list[str]:
    """Folders below the root with a manifest whose Python modules never name Django.
    ``django_folders``: the folders of the modules that do."""
    roots = {
        posixpath.dirname(path)
        for path in paths
        if posixpath.basename(path) in MANIFESTS and "/" in path
    }
    return sorted(
        root
        for root in roots
        if not any(folder == root or folder.startswith(root + "/") for folder in django_folders)
    )


def without_other_projects_code(findings: list[Finding], roots: list[str]) -> list[Finding]:
    if not roots:
        return findings
    return [
        f
        for f in findings
        if not (f.path.endswith(".py") and any(f.path.startswith(root + "/") for root in roots))
    ]
