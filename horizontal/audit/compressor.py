"""django-compressor on several instances: when it writes its output on request, and
whether templates ask it to.

It writes compressed (or precompiled) CSS and JS into its storage while serving pages;
with that storage a folder on this host, a page one instance renders links a file only
that instance has. The deploy check W067 asks from the live settings, the audit (W109)
from the settings modules' source; both use ``writes_on_request`` and the template test
here, and the catalogue's ``known.COMPRESSOR_LOCAL_OUTPUT``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

from horizontal.audit.findings import Finding, Location
from horizontal.audit.known import COMPRESSOR_LOCAL_OUTPUT, LOCAL_STORAGES
from horizontal.audit.patterns import lazy_compile
from horizontal.audit.source import string_value

__all__ = [
    "TEMPLATE_SUFFIXES",
    "compresses_on_request",
    "first_compress_tag",
    "is_template",
    "templates_use_compress",
    "with_compress_tag",
    "writes_on_request",
]

# Django and Jinja2 templates, by the names projects give them.
TEMPLATE_SUFFIXES = (".html", ".htm", ".jinja", ".jinja2", ".djhtml", ".jhtml")
# ``{% compress css %}``, Jinja2's ``{%- compress js -%}``.
COMPRESS_TAG = lazy_compile(r"\{%-?\s*compress\b")


def is_template(name: str) -> bool:
    return name.lower().endswith(TEMPLATE_SUFFIXES)


def templates_use_compress(templates: Iterable[Path]) -> bool | None:
    """True when one of ``templates`` uses the tag (read until the first that does),
    False when some were read and none does, None when there were none to read."""
    found = first_compress_tag(templates)
    return found if isinstance(found, bool) or found is None else True


def first_compress_tag(templates: Iterable[Path]) -> tuple[Path, int] | bool | None:
    """The first template of ``templates`` that uses the tag and the tag's line; False
    when some were read and none does, None when there were none to read."""
    read_any = False
    for template in templates:
        try:
            text = template.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        read_any = True
        if "compress" in text and (tag := COMPRESS_TAG.search(text)):
            return template, text.count("\n", 0, tag.start()) + 1
    return False if read_any else None


def writes_on_request(*, enabled: bool, offline: bool, precompiles: bool) -> bool:
    """Whether django-compressor writes output while serving: compression on and not
    offline (offline, ``manage.py compress`` does it all at build time), or compression
    off with ``COMPRESS_PRECOMPILERS``, which still compile SCSS or LESS on request."""
    return (enabled and not offline) or (precompiles and not enabled)


def compresses_on_request(settings: dict[str, list[ast.stmt]], everything: set[str]) -> bool:
    """django-compressor, installed by this module, writes its output on request into a
    folder on this host, as the deploy check W067 judges it. It writes when compression
    is on (not ``COMPRESS_ENABLED = False`` here) and ``COMPRESS_OFFLINE`` is set by no
    production module (or to ``False`` here); and, compression on or off, when
    ``COMPRESS_PRECOMPILERS`` compile SCSS or LESS on request. Its storage is
    ``STORAGES[COMPRESS_STORAGE_ALIAS]`` when this module names that alias, else
    ``COMPRESS_STORAGE``, else its local default. A storage the scan cannot read counts
    as the project's choice; an unread ``COMPRESS_ENABLED`` as on, its default."""
    enabled = _last_constant(settings, "COMPRESS_ENABLED") is not False
    precompiles = "COMPRESS_PRECOMPILERS" in everything and bool(
        _last_constant(settings, "COMPRESS_PRECOMPILERS", default=True)
    )
    offline = "COMPRESS_OFFLINE" in everything and (
        _last_constant(settings, "COMPRESS_OFFLINE") is not False
    )
    if not writes_on_request(enabled=enabled, offline=offline, precompiles=precompiles):
        return False
    local = {entry.path for entry in (*COMPRESSOR_LOCAL_OUTPUT, *LOCAL_STORAGES)}
    alias = _last_constant(settings, "COMPRESS_STORAGE_ALIAS") or "compressor"
    backend = _storages_backend(settings, str(alias))
    if backend is not None:  # django-compressor 4.5+ takes the alias first
        return backend in local
    storage = _last_constant(settings, "COMPRESS_STORAGE")
    return "COMPRESS_STORAGE" not in everything or storage in local


def _last_constant(
    settings: dict[str, list[ast.stmt]], name: str, default: object = None
) -> object:
    """The literal the module's last assignment of ``name`` gives (a container literal:
    whether it is empty), or ``default``."""
    statements = settings.get(name)
    value = getattr(statements[-1], "value", None) if statements else None
    if isinstance(value, ast.Tuple | ast.List | ast.Dict | ast.Set):
        return bool(value.keys if isinstance(value, ast.Dict) else value.elts)
    return value.value if isinstance(value, ast.Constant) else default


def _storages_backend(settings: dict[str, list[ast.stmt]], alias: str) -> str | None:
    """The ``BACKEND`` a ``STORAGES`` literal of this module gives ``alias`` (an unread
    value is ""), or None when it names no such alias."""
    for statement in reversed(settings.get("STORAGES", [])):
        # STORAGES["compressor"] = {"BACKEND": …}: the alias is the subscript.
        targets = statement.targets if isinstance(statement, ast.Assign) else []
        if any(isinstance(t, ast.Subscript) and string_value(t.slice) == alias for t in targets):
            return _backend_of(getattr(statement, "value", None))
        for node in ast.walk(statement):
            if not isinstance(node, ast.Dict):
                continue
            for key, value in zip(node.keys, node.values, strict=True):
                if key is not None and string_value(key) == alias:
                    return _backend_of(value)
    return None


def _backend_of(options: ast.AST | None) -> str:
    """The literal ``BACKEND`` of a storage's options dict, or "" when unread."""
    if not isinstance(options, ast.Dict):
        return ""
    for key, value in zip(options.keys, options.values, strict=True):
        if key is not None and string_value(key) == "BACKEND":
            return string_value(value) or ""
    return ""


def with_compress_tag(finding: Finding, tag: Location | None) -> Finding:
    """django-compressor's finding with the template tag that asks for it related: where
    a page's CSS is compressed on request."""
    if tag is None or not finding.message.startswith(OFFLINE_OFF) or tag in finding.related:
        return finding
    return finding._replace(related=(*finding.related, tag))


OFFLINE_OFF = "COMPRESS_OFFLINE is off"
