"""Deploy warnings W051-W052 (horizontal/checks/logging_email.py), from the SHARED baseline."""

from __future__ import annotations

import os
import tempfile

import pytest
from django.core import checks

from horizontal.checks import logging_email
from tests.checks.baseline import (
    assert_follows_the_contract,
    assert_registered_deploy_only,
    deploy_ids,
    deploy_messages,
)

# A real file, not /dev/null (a handler on the process's own output is not a local file):
# Django 6.1 configures the overridden LOGGING, which opens it.
LOG_FILE = os.path.join(tempfile.gettempdir(), "horizontal-test-app.log")


def test_file_log_handlers_are_w051() -> None:
    logging = {
        "version": 1,
        "handlers": {
            "console": {"class": "logging.StreamHandler"},
            "file": {"class": "logging.FileHandler", "filename": LOG_FILE},
            "rotating": {
                "class": "tests.checks.backends.CompressingRotatingFileHandler",
                "filename": LOG_FILE,
            },
        },
    }
    assert deploy_ids(LOGGING=logging) == ["horizontal.W051", "horizontal.W051"]


@pytest.mark.parametrize(
    # /proc/<pid>/fd/2 by number (PID 1's in a container): this process's, which the test
    # may open wherever it runs.
    "stream",
    ["/dev/stdout", "/dev/stderr", "/proc/self/fd/1", f"/proc/{os.getpid()}/fd/2", os.devnull],
)
def test_a_file_handler_on_the_process_output_is_not_a_local_file(stream: str) -> None:
    logging = {
        "version": 1,
        "handlers": {"out": {"class": "logging.FileHandler", "filename": stream}},
    }
    assert deploy_ids(LOGGING=logging) == []


def test_logging_config_none_means_logging_is_not_ours() -> None:
    logging = {
        "version": 1,
        "handlers": {"f": {"class": "logging.FileHandler", "filename": os.devnull}},
    }
    assert deploy_ids(LOGGING=logging, LOGGING_CONFIG=None) == []


@pytest.mark.parametrize(
    "backend",
    [
        "django.core.mail.backends.filebased.EmailBackend",
        "tests.checks.backends.ArchivingEmailBackend",
    ],
)
@pytest.mark.filterwarnings("ignore:The EMAIL_BACKEND setting is deprecated")
def test_file_email_is_w052(backend: str) -> None:
    assert deploy_ids(EMAIL_BACKEND=backend) == ["horizontal.W052"]


def test_file_mailer_is_w052() -> None:
    """Django 6.1's MAILERS: one warning per mailer that writes files."""
    mailers = {
        "default": {"BACKEND": "django.core.mail.backends.smtp.EmailBackend"},
        "archive": {"BACKEND": "django.core.mail.backends.filebased.EmailBackend"},
    }
    [warning] = [m for m in deploy_messages(MAILERS=mailers) if m.id == "horizontal.W052"]
    assert warning.obj == "MAILERS['archive']"


def test_every_check_is_registered_deploy_only() -> None:
    assert_registered_deploy_only(logging_email)


@pytest.mark.parametrize(
    "message",
    [logging_email.W051("file"), logging_email.W052("EMAIL_BACKEND")],
    ids=lambda m: m.id,
)
def test_message_follows_the_contract(message: checks.CheckMessage) -> None:
    assert_follows_the_contract(message)


@pytest.mark.parametrize(
    ("filename", "stream"),
    [
        ("/proc/1/fd/1", True),  # PID 1's output: the container's log stream
        ("/proc/1/fd/2", True),
        ("/proc/self/fd/2", True),
        ("/proc/1/fd/3", False),  # another descriptor: a file
        ("/proc/1/environ", False),
        ("/var/log/app/proc/1/fd/1", False),
    ],
)
def test_a_process_output_stream_is_told_by_its_path(filename: str, stream: bool) -> None:
    assert logging_email._process_stream(filename) is stream
