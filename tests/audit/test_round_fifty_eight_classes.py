"""Classes of the fifty-eighth round (issue 14), each with a true case and a safe twin.

They came from the hundred-and-ninth labelled group (cove-oc4ids, govready-q,
model-my-watershed, pressfreedomtracker.us, open-apparel-registry), measured once after
the fifty-seventh round and before any of these was written.

- A module that parses its command line at its top level (``args =
  parser.parse_args()``) is a tool someone runs (``python lint.py file.yaml``): what it
  writes is its operator's.
- A shell script named for the image it starts (``dockerfile_exec_gunicorn.sh``) is read
  as a shell script, not as a Dockerfile.
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

LINT = """\
import argparse

parser = argparse.ArgumentParser(description="Lint some YAML files.")
parser.add_argument("files", nargs="+")
{parse}


def lint(args):
    for fn in args.files:
        with open(fn + ".linted", "w") as f:
            f.write("linted")
"""


def test_a_tool_that_parses_its_command_line_at_import_is_by_hand(tmp_path: Path) -> None:
    files = {"q-files/blank/utils/lint.py": LINT.format(parse="lint(parser.parse_args())")}
    assert scan(tmp_path, files, "file-write") == []


def test_a_module_that_parses_arguments_in_a_function_is_judged(tmp_path: Path) -> None:
    text = LINT.format(parse="") + "\n\ndef view(request):\n    lint(parser.parse_args([]))\n"
    found = scan(tmp_path, {"q-files/blank/utils/lint.py": text}, "file-write")
    assert where(found) == [("q-files/blank/utils/lint.py", 10)]


ENTRYPOINT = """\
#!/bin/bash
# The main entry point, process zero, of the container.
set -euf -o pipefail
python3.6 manage.py migrate
exec supervisord -n
"""


def test_a_start_script_named_for_its_image_is_a_shell_script(tmp_path: Path) -> None:
    files = {"deployment/docker/dockerfile_exec_gunicorn.sh": ENTRYPOINT}
    found = scan(tmp_path, files, "boot-migrate")
    assert where(found) == [("deployment/docker/dockerfile_exec_gunicorn.sh", 4)]


def test_a_dockerfile_with_a_suffix_is_still_a_dockerfile(tmp_path: Path) -> None:
    image = "FROM python:3.12\nCOPY . /app\nRUN python manage.py check\nCMD {command}\n"
    files = {
        "docker/Dockerfile.prod": image.format(command="python manage.py migrate && gunicorn app")
    }
    assert where(scan(tmp_path, files, "boot-migrate")) == [("docker/Dockerfile.prod", 4)]
    files = {"docker/Dockerfile.prod": image.format(command="gunicorn app")}
    assert scan(tmp_path / "b", files, "boot-migrate") == []
