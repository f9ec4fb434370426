"""Retention of the run history: ``manage.py prune_runs --older-than DAYS``.

Deletes finished runs (with their attempts and effect keys) that nothing needs any more,
in batches, and never touches leases. Kept whatever their age:

- every run still ``running`` (claimed, or crashed and waiting to be re-claimed);
- the newest cron slot of every job: catch-up continues from it (``last_recorded_slot``);
- for a registered job, every run inside its catch-up ``window``: re-runs, ``catchup=
  "all"`` and the gate's "already done" answer look there;
- the newest ``keep`` runs of every job, so ``manage.py jobs`` still shows history.

An effect key is an idempotency key: once its run's row is gone, that old slot could be
run again only on purpose (``runjob --slot``), and its keys would no longer stop the
effects being redone. That is why runs inside the window are never pruned.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Max

from horizontal.conf import conf
from horizontal.db import db_now
from horizontal.jobs.registry import registry
from horizontal.models import Effect, JobAttempt, JobRun

__all__ = ["BATCH", "Pruned", "delete_runs", "prunable", "prune_runs"]

# Rows deleted per transaction: each batch is short, so it holds its locks briefly.
BATCH = 500


@dataclass(frozen=True)
class Pruned:
    runs: int
    attempts: int
    effects: int

    def __str__(self) -> str:
        return f"{self.runs} runs, {self.attempts} attempts, {self.effects} effect keys"


def prune_runs(older_than: dt.timedelta, *, keep: int = 5, dry_run: bool = False) -> Pruned:
    """Delete finished runs older than ``older_than`` that catch-up and ``jobs`` do not need.

    "Older" is by the run's last moment (finished, else claimed) on the database clock.
    Returns what was deleted (or, with ``dry_run``, would be).
    """
    chosen = prunable(older_than, keep=keep)
    if dry_run:
        attempts = effects = 0
        for start in range(0, len(chosen), BATCH):
            batch = [pk for pk, _ in chosen[start : start + BATCH]]
            attempts += JobAttempt.objects.using(conf.DATABASE).filter(job_run_id__in=batch).count()
            effects += Effect.objects.using(conf.DATABASE).filter(job_run_id__in=batch).count()
        return Pruned(len(chosen), attempts, effects)
    return delete_runs(chosen)


def prunable(older_than: dt.timedelta, *, keep: int = 5) -> list[tuple[int, int]]:
    """The ``(id, token)`` of every run ``prune_runs`` would delete now (nothing is locked)."""
    if older_than < dt.timedelta(0):
        raise ValueError("older_than must not be negative")
    using = conf.DATABASE
    now = db_now(using)
    runs = JobRun.objects.using(using)
    newest = dict(
        runs.filter(slot__endswith="Z").values_list("job").annotate(Max("slot")).order_by()
    )
    doomed: list[tuple[int, int]] = []
    for job_name in runs.values_list("job", flat=True).distinct().order_by():
        job = registry.get(job_name)
        cutoff = now - older_than
        if job is not None:
            cutoff = min(cutoff, now - job.window)
        candidates = (
            runs.filter(job=job_name, claimed_at__lt=cutoff)
            .exclude(status=JobRun.Status.RUNNING)
            .exclude(finished_at__gte=cutoff)
            .order_by("-slot")
            .values_list("pk", "slot", "token")
        )
        recent = set(
            runs.filter(job=job_name).order_by("-claimed_at").values_list("pk", flat=True)[:keep]
        )
        for pk, slot, token in candidates.iterator():
            if pk in recent or slot == newest.get(job_name):
                continue
            doomed.append((pk, token))
    return doomed


def delete_runs(chosen: list[tuple[int, int]]) -> Pruned:
    """Delete the runs ``prunable`` chose, with their attempts and effect keys, in batches.

    Each batch first locks its rows and keeps only those no claim has touched since they
    were chosen: a re-claim (``--retry`` of an old failed slot, an operator's ``--slot``
    of an old missed one) raises the token and marks the run running, and its run, its
    new attempt and the effect keys it is writing must stay.
    """
    using = conf.DATABASE
    runs = JobRun.objects.using(using)
    deleted = attempts = effects = 0
    for start in range(0, len(chosen), BATCH):
        tokens = dict(chosen[start : start + BATCH])
        with transaction.atomic(using=using):
            current = (
                runs.select_for_update()
                .filter(pk__in=list(tokens))
                .values_list("pk", "token", "status")
            )
            batch = [
                pk
                for pk, token, status in current
                if token == tokens[pk] and status != JobRun.Status.RUNNING
            ]
            if not batch:
                continue
            effects += Effect.objects.using(using).filter(job_run_id__in=batch).delete()[0]
            attempts += JobAttempt.objects.using(using).filter(job_run_id__in=batch).delete()[0]
            deleted += runs.filter(pk__in=batch).delete()[1].get(JobRun._meta.label, 0)
    return Pruned(deleted, attempts, effects)
