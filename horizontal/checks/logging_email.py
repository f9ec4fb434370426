"""Deploy warnings ``horizontal.W051``-``W059``: logs and mail written to local files.

``W051``: a ``LOGGING`` handler that writes a file (``logging.FileHandler`` and its
subclasses). ``W052``: the file-based email backend, in ``EMAIL_BACKEND`` or a Django 6.1
``MAILERS`` entry. Both are the catalogue's (``horizontal.audit.known``), matched by class.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from django.apps import AppConfig
from django.conf import settings
from django.core import checks
from django.core.checks import CheckMessage

from horizontal.audit import known
from horizontal.checks._base import TAG, register
from horizontal.checks._classes import backends, is_a, is_overridden

__all__ = [
    "FILE_EMAIL",
    "FILE_LOG_HANDLERS",
    "W051",
    "W052",
    "check_file_email",
    "check_file_logging",
]

FILE_LOG_HANDLERS = known.paths(known.FILE_LOG_HANDLERS)
# A file handler on the process's own output writes what the platform collects, not a file.
PROCESS_STREAMS = frozenset({"/dev/stdout", "/dev/stderr", "/dev/null"})

FILE_EMAIL = known.paths(known.FILE_EMAIL_BACKENDS)


def W051(handler: str) -> checks.Warning:
    return checks.Warning(
        f"Log handler {handler!r} writes a local file: logs split across hosts.",
        hint="Log to stdout/stderr (logging.StreamHandler) and collect every instance's.",
        obj=f"LOGGING['handlers'][{handler!r}]",
        id="horizontal.W051",
    )


def W052(setting: str) -> checks.Warning:
    return checks.Warning(
        "Email goes to local files: no instance ever sends it.",
        hint="Use the SMTP backend or your email provider's backend.",
        obj=setting,
        id="horizontal.W052",
    )


def _handler_class(config: Mapping[str, Any]) -> object:
    # dictConfig takes "class", or a factory under "()" (a dotted path or a callable).
    return config.get("class") or config.get("()")


def _email_backends() -> Iterator[tuple[str, object]]:
    """(setting, BACKEND) for every configured way of sending mail."""
    mailers = getattr(settings, "MAILERS", None)  # Django 6.1+
    if isinstance(mailers, Mapping):
        for alias, backend in backends(mailers):
            yield f"MAILERS[{alias!r}]", backend
        return
    # Django 6.1 warns on every read of EMAIL_BACKEND: read it only when the project set
    # it (Django's default is SMTP), and leave the deprecation warning to Django.
    if is_overridden("EMAIL_BACKEND"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield "EMAIL_BACKEND", settings.EMAIL_BACKEND


@register(TAG, deploy=True)
def check_file_logging(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    if not settings.LOGGING_CONFIG or not isinstance(settings.LOGGING, Mapping):
        return []
    # dictConfig opens every declared handler's file, used by a logger or not.
    logging: Mapping[str, Any] = settings.LOGGING
    handlers: Mapping[str, Any] = logging.get("handlers") or {}
    return [
        W051(str(name))
        for name, config in handlers.items()
        if isinstance(config, Mapping)
        and is_a(_handler_class(config), FILE_LOG_HANDLERS)
        and not _process_stream(config.get("filename"))
    ]


def _process_stream(filename: object) -> bool:
    """A file name that is this process's (or the container's) own output stream."""
    text = str(filename)
    if text in PROCESS_STREAMS:
        return True
    # /proc/self/fd/1, and /proc/1/fd/1: PID 1's output, the container's log stream.
    parts = text.split("/")
    return (
        len(parts) == 5
        and parts[:2] == ["", "proc"]
        and (parts[2] == "self" or parts[2].isdigit())
        and parts[3] == "fd"
        and parts[4] in {"1", "2"}
    )


@register(TAG, deploy=True)
def check_file_email(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    return [W052(setting) for setting, backend in _email_backends() if is_a(backend, FILE_EMAIL)]
