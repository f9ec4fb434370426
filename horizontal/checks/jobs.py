"""Reports ``horizontal.E010``–``E019`` (job registrations) on every ``check``.

The rules and their messages live with the jobs, in ``horizontal.jobs.validation``, where
``runjob`` applies them too; this module only hands them to Django's check framework.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.core import checks

from horizontal.checks._base import TAG, register
from horizontal.jobs.registry import registry
from horizontal.jobs.validation import job_errors


@register(TAG)
def check_jobs(app_configs: Iterable[Any] | None = None, **kwargs: Any) -> list[checks.Error]:
    errors: list[checks.Error] = []
    for name in registry.names():
        errors.extend(job_errors(registry.jobs[name]))
    return errors
