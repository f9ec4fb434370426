"""Custom settings nothing reads: a default of this host there reaches no client.

``REDIS_HOST = env("REDIS_HOST")`` (default ``127.0.0.1``) in a project whose code never
reads ``settings.REDIS_HOST``, and whose settings never build another setting from it, is
a leftover: no instance talks to that server. Settings that installed apps read by name
(Celery's, sorl-thumbnail's ``THUMBNAIL_REDIS_HOST``, …) are read whatever the project's
code says, and are kept; so is every setting of a settings file scanned without its
project (nothing tells what reads it).
"""

from __future__ import annotations

import ast
import re

from horizontal.audit.findings import Finding
from horizontal.audit.patterns import lazy_compile
from horizontal.audit.source import PythonModule

__all__ = ["names_read", "without_unread_settings"]

# ``settings.REDIS_HOST``, ``CONFIG.REDIS_HOST``, ``getattr(settings, "REDIS_HOST", …)``,
# ``from config.settings import REDIS_HOST``: three patterns, each led by a literal (one
# pattern of three alternatives cost 70 ms on Django's source, these 3 ms).
READ_ATTRIBUTE = lazy_compile(r"\.([A-Z][A-Z0-9_]{2,})\b")
READ_BY_GETATTR = lazy_compile(r"getattr\(\s*\w+\s*,\s*[\"']([A-Z][A-Z0-9_]{2,})[\"']")
READ_BY_IMPORT = lazy_compile(r"import\s+\(?([A-Z][A-Z0-9_, \n]+)")
THIS_HOST = lazy_compile(r"^([A-Z][A-Z0-9_]+): .* (is this host|keeps its data in this process)")
# A custom name for a service's host (``REDIS_HOST``, ``SEARCH_SERVER``) that no library
# reads by that name.
CUSTOM_SERVICE = lazy_compile(r"_?(HOST|HOSTNAME|ADDRESS|SERVER|ADDR)S?$")
READ_BY_LIBRARIES = lazy_compile(
    r"^(CELERY|BROKER|CACHEOPS|CONSTANCE|HAYSTACK|RQ|HUEY|Q_CLUSTER|CHANNEL|SESSION_REDIS|"
    r"DJANGO_REDIS|EMAIL|DATABASE|DB|POSTGRES|ELASTICSEARCH|OPENSEARCH|THUMBNAIL|AXES|"
    r"RABBIT|AMQP|DRAMATIQ|SENTRY|STATSD|GRAPHITE)",
    re.I,
)


def names_read(text: str) -> set[str]:
    """Upper-case names this module reads off settings: as attributes, by ``getattr`` or
    by import."""
    found = set(READ_ATTRIBUTE.findall(text))
    if "getattr" in text:
        found.update(READ_BY_GETATTR.findall(text))
    if " import" in text:
        for names in READ_BY_IMPORT.findall(text):
            found.update(n.strip() for n in names.split(","))
    return found - {""}


def without_unread_settings(
    findings: list[Finding], read: set[str], settings: list[PythonModule]
) -> list[Finding]:
    """``findings`` without those on a custom service setting that neither code reads nor
    another setting is built from."""
    loaded = {
        node.id
        for module in settings
        for node in ast.walk(module.tree)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
    }
    kept = []
    for finding in findings:
        named = THIS_HOST.match(finding.message) if finding.category == "settings" else None
        name = named.group(1) if named else ""
        if (
            name
            and CUSTOM_SERVICE.search(name)
            and not READ_BY_LIBRARIES.match(name)
            and name not in read
            and name not in loaded
        ):
            continue
        kept.append(finding)
    return kept
