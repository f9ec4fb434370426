"""Classes of the thirty-third round (issue 14), each with a true case and a safe twin.

They came from the fifty-eighth and fifty-ninth labelled groups (bramble, pto,
kitchensinkserver; yournextmp-popit, mapit.mysociety.org, blockstore), measured once
after the thirty-second round and before any of these was written.

- A crontab named as an example of itself (``crontab-example``) is not installed.
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

CRONTAB = "# m h dom mon dow command\n*/5 * * * * cd /srv/app && ./manage.py process_lookups\n"


def test_a_crontab_named_as_an_example_is_not_read(tmp_path: Path) -> None:
    assert scan(tmp_path, {"conf/crontab-example": CRONTAB}, "image-cron") == []


def test_the_crontab_itself_is_found(tmp_path: Path) -> None:
    assert where(scan(tmp_path, {"conf/crontab": CRONTAB}, "image-cron")) == [("conf/crontab", 2)]
