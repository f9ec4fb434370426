"""horizontal.W054: django-haystack's index kept in a folder on one host."""

from __future__ import annotations

from horizontal.checks import search
from tests.checks.baseline import assert_registered_deploy_only, deploy_messages

WHOOSH = "haystack.backends.whoosh_backend.WhooshEngine"


def ids(**changes: object) -> list[str]:
    return [m.id for m in deploy_messages([search], **changes) if m.id]


def test_a_whoosh_or_xapian_index_is_w054() -> None:
    whoosh = {"default": {"ENGINE": WHOOSH, "PATH": "/srv/app/whoosh_index"}}
    assert ids(HAYSTACK_CONNECTIONS=whoosh) == ["horizontal.W054"]
    xapian = {"default": {"ENGINE": "xapian_backend.XapianEngine", "PATH": "/srv/x"}}
    assert ids(HAYSTACK_CONNECTIONS=xapian) == ["horizontal.W054"]


def test_each_local_alias_is_named() -> None:
    connections = {
        "default": {"ENGINE": WHOOSH, "PATH": "/srv/a"},
        "archive": {"ENGINE": WHOOSH, "PATH": "/srv/b"},
    }
    objects = [m.obj for m in deploy_messages([search], HAYSTACK_CONNECTIONS=connections)]
    assert objects == ["HAYSTACK_CONNECTIONS['default']", "HAYSTACK_CONNECTIONS['archive']"]


def test_a_search_server_or_no_haystack_is_silent() -> None:
    shared = {
        "default": {
            "ENGINE": "haystack.backends.elasticsearch7_backend.Elasticsearch7SearchEngine",
            "URL": "http://search.internal:9200/",
        }
    }
    assert ids(HAYSTACK_CONNECTIONS=shared) == []
    assert ids() == []


def test_registered_for_deploy_only() -> None:
    assert_registered_deploy_only(search)
