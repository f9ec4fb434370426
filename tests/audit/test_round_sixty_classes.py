"""Classes of the sixtieth round (issue 14), each with a true case and a safe twin.

No group was labelled this session (the fetch tool looked up no new repository), so they
came from the tuning projects' labels and findings, read per class:

- A shell script named for the Celery processes it starts (``celery.sh``) runs on every
  worker replica, like a start script: a beat it embeds (``worker -B``) or backgrounds
  beside the workers is one scheduler per replica (dissemin, FuzzManager). A script that
  starts beat alone is the one scheduler a deployment chose, whatever its name.
- A memo given a cache object whose entries expire within a minute
  (``@cached(cache=TTLCache(maxsize=1000, ttl=60))``, ``TTLCache(100, 30)``) is as fresh
  as a cache read, like ``@memoize(ttl=20)`` (takahe).
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

EMBEDDED_BEAT = """\
#!/bin/bash
cd "$(dirname "$0")"
celery --app=proj.celery:app worker -B -l INFO
"""

BACKGROUNDED_BEAT = """\
#!/bin/sh -ex
celery -A proj beat &
celery -A proj worker -Q celery
"""


def test_a_celery_script_that_embeds_beat_is_one_scheduler_per_replica(tmp_path: Path) -> None:
    assert where(scan(tmp_path, {"celery.sh": EMBEDDED_BEAT}, "scheduler")) == [("celery.sh", 3)]


def test_a_celery_script_that_backgrounds_beat_is_one_too(tmp_path: Path) -> None:
    found = scan(tmp_path, {"server/celery.sh": BACKGROUNDED_BEAT}, "scheduler")
    assert where(found) == [("server/celery.sh", 2)]


def test_a_celery_script_without_beat_and_a_script_of_beat_alone_are_not(
    tmp_path: Path,
) -> None:
    plain = EMBEDDED_BEAT.replace(" -B", "")
    assert scan(tmp_path, {"celery.sh": plain}, "scheduler") == []
    # Beat alone is the one scheduler a deployment runs, by its own choice.
    beat_only = "#!/bin/sh\ncelery -A proj beat -l INFO\n"
    assert scan(tmp_path / "b", {"celery_beat.sh": beat_only}, "scheduler") == []


TTL_CACHED = """\
from cachetools import TTLCache, cached

from app.models import Emoji


class Emojis:
    @classmethod
    @cached(cache={cache})
    def get_by_domain(cls, shortcode):
        return Emoji.objects.get(shortcode=shortcode)
"""


def test_a_memo_with_a_cache_object_expiring_within_a_minute_is_not_reported(
    tmp_path: Path,
) -> None:
    for n, cache in enumerate(("TTLCache(maxsize=1000, ttl=60)", "TTLCache(100, 30)")):
        source = TTL_CACHED.format(cache=cache)
        assert scan(tmp_path / str(n), {"emoji.py": source}, "cache") == []


def test_a_memo_with_a_cache_object_kept_for_an_hour_is(tmp_path: Path) -> None:
    for n, cache in enumerate(("TTLCache(maxsize=1000, ttl=3600)", "LRUCache(maxsize=1000)")):
        source = TTL_CACHED.format(cache=cache)
        found = scan(tmp_path / str(n), {"emoji.py": source}, "cache")
        assert where(found) == [("emoji.py", 8)], cache
