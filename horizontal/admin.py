"""The Django admin for horizontal's tables: runs and their attempts, leases, effect keys, jobs
and the fleet registry.

Everything is read-only: the tables are written through the gate and the lease API,
never by hand. The operator's levers are admin actions, each behind its own permission
(``Meta.permissions`` on ``JobControl`` and ``JobRun``), never merely ``is_staff``:

- on Jobs: "Run now" (``horizontal.run_job_now``: the due slot, through the gate, trigger
  ``manual``), "Pause" (``horizontal.pause_job``), "Resume" (``horizontal.resume_job``);
- on Job runs: "Re-run" of a failed or abandoned slot (``horizontal.rerun_jobrun``).

A user without a permission does not see its action. Loaded by the admin's own
autodiscovery, so a project without ``django.contrib.admin`` never imports it.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.contrib import admin, messages
from django.db.models import DurationField, ExpressionWrapper, F, QuerySet
from django.db.models.functions import Now
from django.http import HttpRequest, HttpResponse

from horizontal import fleet
from horizontal.conf import conf
from horizontal.exceptions import HorizontalError
from horizontal.jobs.control import ensure_controls, pause_job, resume_job
from horizontal.jobs.registry import registry
from horizontal.jobs.report import OutcomeStatus
from horizontal.jobs.runner import run_job
from horizontal.models import Effect, Instance, JobAttempt, JobControl, JobRun, Lease

# How each outcome of an action is shown.
_LEVELS = {
    OutcomeStatus.SUCCEEDED: messages.SUCCESS,
    OutcomeStatus.FAILED: messages.ERROR,
    OutcomeStatus.LOST: messages.ERROR,
    OutcomeStatus.INTERRUPTED: messages.WARNING,
    OutcomeStatus.MISSED: messages.WARNING,
    OutcomeStatus.SKIPPED_OVERLAP: messages.WARNING,
}


def _has(request: HttpRequest, codename: str) -> bool:
    return bool(request.user.has_perm(f"horizontal.{codename}"))


def _who(request: HttpRequest) -> str:
    return f"{request.user.get_username()} (admin)"


class _ReadOnly:
    """Rows written by the gate and the lease API only: never added or changed by hand, and
    read from ``HORIZONTAL_DATABASE``."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        queryset: QuerySet[Any] = super().get_queryset(request)  # type: ignore[misc]
        return queryset.using(conf.DATABASE)


class ReadOnlyAdmin(_ReadOnly, admin.ModelAdmin):  # type: ignore[type-arg]
    """Viewable with the view permission; never added, changed or deleted by hand."""

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class JobAttemptInline(_ReadOnly, admin.TabularInline):  # type: ignore[type-arg]
    model = JobAttempt
    fields = (
        "attempt",
        "token",
        "owner",
        "trigger",
        "claimed_at",
        "finished_at",
        "outcome",
        "error",
    )
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True


def _first_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[-1][:120] if lines else ""


@admin.register(JobRun)
class JobRunAdmin(ReadOnlyAdmin):
    list_display = [
        "job",
        "slot",
        "status",
        "owner",
        "token",
        "attempt",
        "trigger",
        "claimed_at",
        "finished_at",
        "error_line",
    ]
    list_filter = ["job", "status", "owner", "trigger"]
    search_fields = ["job", "slot", "owner"]
    ordering = ["-claimed_at"]
    inlines = [JobAttemptInline]
    actions = ["rerun"]

    @admin.display(description="error")
    def error_line(self, run: JobRun) -> str:
        return _first_line(run.error)

    def has_rerun_permission(self, request: HttpRequest) -> bool:
        return _has(request, "rerun_jobrun")

    @admin.action(permissions=["rerun"], description="Re-run the selected failed slots")
    def rerun(self, request: HttpRequest, queryset: QuerySet[JobRun]) -> None:
        for run in queryset:
            if run.status not in (JobRun.Status.FAILED, JobRun.Status.ABANDONED):
                self.message_user(
                    request, f"{run.job}@{run.slot}: {run.status}, not re-run", messages.WARNING
                )
                continue
            _run_and_report(self, request, run.job, slot=run.slot, retry=True)


def _run_and_report(
    model_admin: admin.ModelAdmin,  # type: ignore[type-arg]
    request: HttpRequest,
    name: str,
    **options: Any,
) -> None:
    try:
        outcomes = run_job(name, **options)
    except HorizontalError as exc:
        model_admin.message_user(request, f"{name}: {exc}", messages.ERROR)
        return
    for outcome in outcomes:
        level = _LEVELS.get(outcome.status, messages.INFO)
        model_admin.message_user(request, outcome.message, level)


@admin.register(JobAttempt)
class JobAttemptAdmin(ReadOnlyAdmin):
    list_display = [
        "job",
        "slot",
        "attempt",
        "token",
        "owner",
        "trigger",
        "claimed_at",
        "finished_at",
        "outcome",
        "error_line",
    ]
    list_filter = ["job", "outcome", "owner", "trigger"]
    search_fields = ["job", "slot", "owner"]
    ordering = ["-claimed_at"]

    @admin.display(description="error")
    def error_line(self, attempt: JobAttempt) -> str:
        return _first_line(attempt.error)


@admin.register(Lease)
class LeaseAdmin(ReadOnlyAdmin):
    list_display = ["name", "owner", "token", "expires_in", "expires_at", "acquired_at"]
    search_fields = ["name", "owner"]
    list_filter = ["owner"]
    ordering = ["name"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        # xact_lock's rows share the table on MySQL/SQLite: they are not leases.
        remaining = ExpressionWrapper(F("expires_at") - Now(), output_field=DurationField())
        leases: QuerySet[Any] = (
            super()
            .get_queryset(request)
            .exclude(name__startswith="xact:")
            .annotate(remaining=remaining)
        )
        return leases

    @admin.display(description="expires in", ordering="expires_at")
    def expires_in(self, lease: Lease) -> str:
        remaining: dt.timedelta | None = getattr(lease, "remaining", None)
        if remaining is None:
            return "-"
        seconds = remaining.total_seconds()
        return f"{seconds:.1f} s" if seconds > 0 else f"expired {-seconds:.1f} s ago"


@admin.register(Effect)
class EffectAdmin(ReadOnlyAdmin):
    list_display = ["key", "job_run", "token", "created_at"]
    list_filter = ["job_run__job"]
    search_fields = ["key"]
    ordering = ["-created_at"]
    list_select_related = ["job_run"]


@admin.register(JobControl)
class JobControlAdmin(ReadOnlyAdmin):
    """Every registered job, paused or not, with the actions that steer it."""

    list_display = ["job", "schedule", "paused", "changed_by", "changed_at", "note", "last_run"]
    list_filter = ["paused"]
    search_fields = ["job"]
    ordering = ["job"]
    actions = ["run_now", "pause", "resume"]

    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        ensure_controls()  # a row per registered job, so every job is listed
        return super().changelist_view(request, extra_context)

    @admin.display(description="schedule")
    def schedule(self, control: JobControl) -> str:
        job = registry.get(control.job)
        if job is None:
            return "(not registered here)"
        return f"{job.schedule} ({job.timezone})" if job.schedule else "manual (--slot)"

    @admin.display(description="last run")
    def last_run(self, control: JobControl) -> str:
        run = (
            JobRun.objects.using(conf.DATABASE)
            .filter(job=control.job)
            .order_by("-claimed_at")
            .first()
        )
        return "-" if run is None else f"{run.slot} {run.status} on {run.owner}"

    def has_run_now_permission(self, request: HttpRequest) -> bool:
        return _has(request, "run_job_now")

    def has_pause_permission(self, request: HttpRequest) -> bool:
        return _has(request, "pause_job")

    def has_resume_permission(self, request: HttpRequest) -> bool:
        return _has(request, "resume_job")

    @admin.action(permissions=["run_now"], description="Run now (the due slot, through the gate)")
    def run_now(self, request: HttpRequest, queryset: QuerySet[JobControl]) -> None:
        for control in queryset:
            job = registry.get(control.job)
            if job is not None and job.schedule is None:
                self.message_user(
                    request,
                    f"{control.job}: no schedule, so no slot is due: run it with "
                    "`manage.py runjob --slot`",
                    messages.WARNING,
                )
                continue
            _run_and_report(self, request, control.job, trigger=JobRun.Trigger.MANUAL)

    @admin.action(permissions=["pause"], description="Pause (every instance)")
    def pause(self, request: HttpRequest, queryset: QuerySet[JobControl]) -> None:
        for control in queryset:
            self._switch(request, control.job, pause=True)

    @admin.action(permissions=["resume"], description="Resume")
    def resume(self, request: HttpRequest, queryset: QuerySet[JobControl]) -> None:
        for control in queryset:
            self._switch(request, control.job, pause=False)

    def _switch(self, request: HttpRequest, name: str, *, pause: bool) -> None:
        try:
            if pause:
                pause_job(name, by=_who(request))
            else:
                resume_job(name, by=_who(request))
        except HorizontalError as exc:
            self.message_user(request, f"{name}: {exc}", messages.ERROR)
            return
        self.message_user(request, f"{name}: {'paused' if pause else 'resumed'}", messages.SUCCESS)


@admin.register(Instance)
class InstanceAdmin(ReadOnlyAdmin):
    """Live and recent processes; the list says which settings live instances disagree on."""

    list_display = (
        "instance_id",
        "kind",
        "host",
        "pid",
        "release",
        "horizontal_version",
        "django_version",
        "fingerprint",
        "started_at",
        "last_seen",
    )
    list_filter = ("kind", "release", "host")
    search_fields = ("instance_id", "host", "release")
    ordering = ("-last_seen",)

    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        for item in fleet.drift(fleet.live_instances()):
            messages.warning(request, item.describe())
        return super().changelist_view(request, extra_context)
