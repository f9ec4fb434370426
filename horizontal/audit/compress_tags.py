"""Whether a project's templates use django-compressor's ``{% compress %}`` tag.

An installed django-compressor writes nothing at run time unless a template asks it to:
without a ``{% compress %}`` block, compression on request harms nobody. The audit
(W109, on the templates in the scanned tree) and the deploy check W067 (on the
templates of ``TEMPLATES`` ``DIRS`` and of the project's own apps) ask the same question.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from horizontal.audit.patterns import lazy_compile

__all__ = ["TEMPLATE_SUFFIXES", "is_template", "templates_use_compress"]

# Django and Jinja2 templates, by the names projects give them.
TEMPLATE_SUFFIXES = (".html", ".htm", ".jinja", ".jinja2", ".djhtml", ".jhtml")
# ``{% compress css %}``, Jinja2's ``{%- compress js -%}``.
COMPRESS_TAG = lazy_compile(r"\{%-?\s*compress\b")


def is_template(name: str) -> bool:
    return name.lower().endswith(TEMPLATE_SUFFIXES)


def templates_use_compress(templates: Iterable[Path]) -> bool | None:
    """True when one of ``templates`` uses the tag (read until the first that does),
    False when some were read and none does, None when there were none to read."""
    read_any = False
    for template in templates:
        try:
            text = template.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        read_any = True
        if "compress" in text and COMPRESS_TAG.search(text):
            return True
    return False if read_any else None
