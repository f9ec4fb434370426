"""A program that migrates in its own process and then serves there (``python_starts``):
a product's console script, ``openslides start`` or ``label-studio``, is how every
replica starts, so each migrates at its start. Found on an outside trial (issue 14)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.test_outside_measurements import scan, where

START = """\
import sys

from django.core.management import call_command


def _migrate():
    call_command("migrate", interactive=False)


def start(args):
    _migrate()
    {serve}


def main():
    start(sys.argv[1:])
"""


@pytest.mark.parametrize(
    "serve",
    [
        'call_command("runserver", "0.0.0.0:8000", use_reloader=False)',
        'import uvicorn\n    uvicorn.run("shop.asgi:application", host="0.0.0.0")',
        "from waitress import serve\n    serve(application, port=8080)",
    ],
    ids=["runserver", "uvicorn", "waitress"],
)
def test_a_console_script_that_migrates_then_serves_is_found(tmp_path: Path, serve: str) -> None:
    files = {"shop/cli.py": START.format(serve=serve)}
    found = scan(tmp_path, files, "boot-migrate")
    assert where(found) == [("shop/cli.py", 7)]
    assert found[0].related[0].path == "shop/cli.py"  # where it serves


@pytest.mark.parametrize(
    "serve",
    [
        # A migration step alone: judged where it runs, not here.
        "pass",
        # Another command, not a server.
        'call_command("collectstatic", interactive=False)',
    ],
    ids=["migrate-only", "not-a-server"],
)
def test_a_program_that_migrates_and_serves_nothing_is_silent(tmp_path: Path, serve: str) -> None:
    assert scan(tmp_path, {"shop/cli.py": START.format(serve=serve)}, "boot-migrate") == []


def test_migrate_and_a_server_in_unrelated_functions_are_silent(tmp_path: Path) -> None:
    # ``setup`` migrates (an installer step), ``serve`` serves: no function does both.
    source = (
        "from django.core.management import call_command\n\n\n"
        "def setup():\n    call_command('migrate')\n\n\n"
        "def serve():\n    call_command('runserver', '0.0.0.0:8000')\n"
    )
    assert scan(tmp_path, {"shop/cli.py": source}, "boot-migrate") == []


def test_subcommands_in_the_arms_of_one_if_are_silent(tmp_path: Path) -> None:
    # ``shop migrate`` and ``shop start`` are two commands of one CLI, not one start
    # (found by a review); the same calls on one path are a start that migrates.
    source = (
        "import sys\n\nfrom django.core.management import call_command\n\n\n"
        "def main():\n    command = sys.argv[1]\n"
        "    if command == 'migrate':\n        call_command('migrate')\n"
        "    elif command == 'start':\n        call_command('runserver', '0.0.0.0:8000')\n"
    )
    assert scan(tmp_path, {"shop/cli.py": source}, "boot-migrate") == []
    # Its twin: migrate on every run, then the server under a branch: one start.
    one_path = source.replace(
        "    if command == 'migrate':\n        call_command('migrate')\n"
        "    elif command == 'start':\n",
        "    call_command('migrate')\n    if command == 'start':\n",
    )
    found = scan(tmp_path / "b", {"shop/cli.py": one_path}, "boot-migrate")
    assert where(found) == [("shop/cli.py", 8)]
