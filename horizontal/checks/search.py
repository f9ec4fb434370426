"""Deploy warning ``horizontal.W054``: a search index kept in a folder on this host.

django-haystack's Whoosh and Xapian engines keep the index as files in the connection's
``PATH``: each instance indexes what it saved and searches its own copy. The engines are
the catalogue's (``horizontal.audit.known``), matched by class, as the audit reads them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.apps import AppConfig
from django.conf import settings
from django.core import checks
from django.core.checks import CheckMessage

from horizontal.audit import known
from horizontal.checks._base import TAG, register
from horizontal.checks._classes import is_a

__all__ = ["LOCAL_INDEXES", "W054", "check_search_index"]

LOCAL_INDEXES = known.paths(known.LOCAL_SEARCH_INDEXES)


def W054(alias: str) -> checks.Warning:
    return checks.Warning(
        f"HAYSTACK_CONNECTIONS[{alias!r}] keeps its search index in a folder on this "
        "host: each instance searches its own copy.",
        hint="Point the connection at a search server every instance shares "
        "(Elasticsearch, OpenSearch or Solr).",
        obj=f"HAYSTACK_CONNECTIONS[{alias!r}]",
        id="horizontal.W054",
    )


@register(TAG, deploy=True)
def check_search_index(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    connections: object = getattr(settings, "HAYSTACK_CONNECTIONS", None)
    if not isinstance(connections, Mapping):
        return []
    return [
        W054(str(alias))
        for alias, config in connections.items()
        if isinstance(config, Mapping) and is_a(config.get("ENGINE"), LOCAL_INDEXES)
    ]
