"""Classes of the fifty-fourth round (issue 14), each with a true case and a safe twin.

They came from the hundred-and-second to hundred-and-fourth labelled groups
(recommandations-collaboratives, euphrosyne, complements-alimentaires, portail-rse;
e-controle, mrs, gestion-des-subventions-locales, partaj; aides-territoires,
trackdechets-preparation-inspection, aigle-api), measured once after the fifty-third round
and before any of these was written.

- ``celery multi start worker1 --beat``: ``multi`` starts workers, and ``--beat`` embeds
  the scheduler in them.
- The project's manage.py installed as a console script (``mrs = mrs.manage:main``):
  ``mrs migrate`` in a start command is migrate.
- xhtml2pdf's ``link_callback(uri, rel)``, which maps a page's media and static URLs to
  files for the renderer, decides nothing about where uploads are.
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

UNIT = """\
[Service]
Type=forking
ExecStart=/opt/venv/bin/celery multi start worker1\\
        {beat}-A ecc -l info\\
        --pidfile=/var/run/celery.pid
"""


def test_celery_multi_with_beat_is_found(tmp_path: Path) -> None:
    found = scan(tmp_path, {"deploy/celery.service": UNIT.format(beat="--beat ")}, "scheduler")
    assert where(found) == [("deploy/celery.service", 3)]


def test_celery_multi_without_beat_is_silent(tmp_path: Path) -> None:
    assert scan(tmp_path, {"deploy/celery.service": UNIT.format(beat="")}, "scheduler") == []


SETUP = """\
from setuptools import setup

setup(
    name="mrs",
    entry_points={{
        "console_scripts": [
            "{entry}",
        ],
    }},
)
"""
DOCKERFILE = """\
FROM python:3.11
COPY . /app
RUN pip install /app
CMD /usr/bin/dumb-init bash -euxc "mrs migrate --noinput && uwsgi --http :8000"
"""


def test_a_console_script_that_is_manage_py_migrates(tmp_path: Path) -> None:
    files = {"setup.py": SETUP.format(entry="mrs = mrs.manage:main"), "Dockerfile": DOCKERFILE}
    found = scan(tmp_path, files, "boot-migrate")
    assert where(found) == [("Dockerfile", 4)]
    assert ("setup.py", 7) in [(r.path, r.line) for r in found[0].related]


def test_a_console_script_of_another_main_is_silent(tmp_path: Path) -> None:
    files = {"setup.py": SETUP.format(entry="mrs = mrs.cli:main"), "Dockerfile": DOCKERFILE}
    assert scan(tmp_path, files, "boot-migrate") == []


RENDERER = """\
import os

from django.conf import settings


def {name}({argument}, rel):
    if {argument}.startswith(settings.MEDIA_URL):
        return os.path.join(settings.MEDIA_ROOT, {argument}.replace(settings.MEDIA_URL, ""))
    if {argument}.startswith(settings.STATIC_URL):
        return os.path.join(settings.STATIC_ROOT, {argument}.replace(settings.STATIC_URL, ""))
    return {argument}
"""


def test_a_pdf_renderers_link_callback_is_silent(tmp_path: Path) -> None:
    source = RENDERER.format(name="link_callback", argument="uri")
    assert scan(tmp_path, {"invoices/pdf.py": source}, "file-write") == []


def test_the_same_paths_built_from_an_upload_name_are_found(tmp_path: Path) -> None:
    source = RENDERER.format(name="attachment_path", argument="name")
    found = scan(tmp_path, {"invoices/pdf.py": source}, "file-write")
    assert where(found) == [("invoices/pdf.py", 8)]
