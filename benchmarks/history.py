"""Issue 15 target 2: the gate's cost is flat in the size of its history.

    python -m benchmarks.history                 (PostgreSQL, MariaDB, SQLite; 1M rows)
    BENCH_HISTORY_SIZES=1000000,10000000 python -m benchmarks.history
    BENCH_HISTORY_VENDORS=sqlite python -m benchmarks.history

For each vendor, one database per history size (an empty one is the anchor), each
migrated and bulk-loaded in the server (``generate_series`` on PostgreSQL, the
``seq_1_to_N`` sequence engine on MariaDB, a recursive CTE on SQLite): the run history
of ten jobs (one of them the job being claimed), one idempotency key and one attempt
per run.
Then, in interleaved rounds across the databases (so that the load of this shared
machine hits every size alike), the median latency of:

- claim: ``gate.claim_slot`` of a new slot of the job that owns a tenth of the history;
- finish: the fenced completion of that claim;
- jobs: ``inventory.job_summaries()`` (what ``manage.py jobs`` prints);
- last slot: ``gate.last_recorded_slot`` (catch-up's "last slot on record");
- rerun: ``gate.slots_to_rerun`` (the crashed and retryable slots a poll re-claims).

Each is printed as a ratio to the empty database's figure in the same round (median of
the per-round ratios; target <= 1.1x), with the query plans of the reads on the largest
database, so a sequential scan shows.

History tables are a parameter (``HISTORY_TABLES``): a table added later (the job
attempts of issue 13) is one more ``HistoryTable`` with its INSERT … SELECT per vendor.
"""

from __future__ import annotations

import datetime as dt
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PG_SERVER = os.environ.get("BENCH_POSTGRES_SERVER", "postgres://postgres@127.0.0.1:5432")
MYSQL_SERVER = os.environ.get("BENCH_MYSQL_SERVER", "mysql://root@127.0.0.1:3306")
SIZES = [int(s) for s in os.environ.get("BENCH_HISTORY_SIZES", "1000000").split(",")]
VENDORS = os.environ.get("BENCH_HISTORY_VENDORS", "postgresql,mysql,sqlite").split(",")
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "15"))
PER_ROUND = int(os.environ.get("BENCH_PER_ROUND", "20"))
TARGET = 1.1
JOBS = 10  # the history is spread over this many jobs; "bench" is one of them
BENCH_JOB = "bench"


@dataclass(frozen=True)
class HistoryTable:
    """A table of history and how each vendor fills it with ``n`` rows in the server.

    ``sql[vendor]`` is an INSERT … SELECT with one ``{n}`` placeholder (row count) and
    ``{job}`` (the job column expression for row number ``g``, spread over ``JOBS``).
    """

    name: str
    sql: dict[str, str]


# Row number g -> job "bench" (g % 10 = 0) or "hist-<g % 10>", slot = 2000-01-01 + g min.
_JOB = {
    "postgresql": f"CASE WHEN g % {JOBS} = 0 THEN '{BENCH_JOB}' ELSE 'hist-' || (g % {JOBS}) END",
    "mysql": f"IF(seq % {JOBS} = 0, '{BENCH_JOB}', CONCAT('hist-', seq % {JOBS}))",
    "sqlite": f"CASE WHEN g % {JOBS} = 0 THEN '{BENCH_JOB}' ELSE 'hist-' || (g % {JOBS}) END",
}
_JOBRUN_COLUMNS = (
    "job, slot, status, owner, token, attempt, triggered_by, claimed_at, heartbeat_at,"
    " expires_at, finished_at, error"
)
JOBRUN = HistoryTable(
    "horizontal_jobrun",
    {
        "postgresql": f"""
            INSERT INTO horizontal_jobrun ({_JOBRUN_COLUMNS})
            SELECT {_JOB["postgresql"]},
                to_char(timestamp '2000-01-01' + g * interval '1 minute',
                        'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
                CASE WHEN g % 50 = 0 THEN 'failed' ELSE 'succeeded' END,
                'bench-history', 1, 1, 'schedule', now(), now(), now(), now(), ''
            FROM generate_series({{start}}, {{stop}}) AS g""",
        "mysql": f"""
            INSERT INTO horizontal_jobrun ({_JOBRUN_COLUMNS})
            SELECT {_JOB["mysql"]},
                DATE_FORMAT(TIMESTAMP '2000-01-01 00:00:00' + INTERVAL seq MINUTE,
                            '%Y-%m-%dT%H:%i:%sZ'),
                IF(seq % 50 = 0, 'failed', 'succeeded'),
                'bench-history', 1, 1, 'schedule', NOW(6), NOW(6), NOW(6), NOW(6), ''
            FROM seq_{{start}}_to_{{stop}}""",
        "sqlite": f"""
            WITH RECURSIVE s(g) AS (SELECT {{start}} UNION ALL SELECT g + 1 FROM s
                                    WHERE g < {{stop}})
            INSERT INTO horizontal_jobrun ({_JOBRUN_COLUMNS})
            SELECT {_JOB["sqlite"]},
                strftime('%Y-%m-%dT%H:%M:%SZ', '2000-01-01', '+' || g || ' minutes'),
                CASE WHEN g % 50 = 0 THEN 'failed' ELSE 'succeeded' END,
                'bench-history', 1, 1, 'schedule', datetime('now'), datetime('now'),
                datetime('now'), datetime('now'), ''
            FROM s""",
    },
)
# One idempotency key per run, for the runs inserted by the last JOBRUN batch.
_EFFECT_SELECT = (
    "SELECT {key}, id, 1, {now} FROM horizontal_jobrun WHERE id > {{first_id}}"
    " AND owner = 'bench-history'"
)
EFFECT = HistoryTable(
    "horizontal_effect",
    {
        "postgresql": 'INSERT INTO horizontal_effect ("key", job_run_id, token, created_at) '
        + _EFFECT_SELECT.format(key="'effect:' || id", now="now()"),
        "mysql": "INSERT INTO horizontal_effect (`key`, job_run_id, token, created_at) "
        + _EFFECT_SELECT.format(key="CONCAT('effect:', id)", now="NOW(6)"),
        "sqlite": 'INSERT INTO horizontal_effect ("key", job_run_id, token, created_at) '
        + _EFFECT_SELECT.format(key="'effect:' || id", now="datetime('now')"),
    },
)
# One attempt per run (issue 13's table), for the runs inserted by the last JOBRUN batch:
# what every claim inserts into and every finish updates.
_ATTEMPT_SELECT = (
    "SELECT id, job, slot, token, attempt, owner, triggered_by, claimed_at, claimed_at,"
    " finished_at, status, '' FROM horizontal_jobrun WHERE id > {first_id}"
    " AND owner = 'bench-history'"
)
_ATTEMPT_INSERT = (
    "INSERT INTO horizontal_jobattempt (job_run_id, job, slot, token, attempt, owner,"
    " triggered_by, claimed_at, started_at, finished_at, outcome, error) "
)
ATTEMPT = HistoryTable(
    "horizontal_jobattempt",
    {vendor: _ATTEMPT_INSERT + _ATTEMPT_SELECT for vendor in ("postgresql", "mysql", "sqlite")},
)
HISTORY_TABLES: list[HistoryTable] = [JOBRUN, EFFECT, ATTEMPT]
# Rows per INSERT … SELECT: one transaction each, so no batch needs a huge undo log.
BATCH = 500_000


def _databases(vendor: str, tmp: str) -> dict[str, dict[str, Any]]:
    sys.path.insert(0, str(ROOT))
    from testproject.dburl import database_from_url

    aliases = {"default": 0} | {f"h{n}": n for n in SIZES}
    out = {}
    tag = uuid.uuid4().hex[:6]
    for alias in aliases:
        if vendor == "sqlite":
            url = f"sqlite:///{tmp}/{alias}.sqlite3"
        elif vendor == "postgresql":
            url = f"{PG_SERVER}/hz_hist_{tag}_{alias}"
        else:
            url = f"{MYSQL_SERVER}/hz_hist_{tag}_{alias}"
        out[alias] = database_from_url(url)
    return out


def _create(vendor: str, settings: dict[str, Any]) -> None:
    if vendor == "postgresql":
        import psycopg

        with psycopg.connect(f"{PG_SERVER}/postgres", autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{settings["NAME"]}"')
    elif vendor == "mysql":
        import pymysql

        conn = pymysql.connect(host="127.0.0.1", user="root", autocommit=True)
        with conn.cursor() as cursor:
            cursor.execute(
                f"CREATE DATABASE `{settings['NAME']}` CHARACTER SET utf8mb4"
                " COLLATE utf8mb4_unicode_ci"
            )
        conn.close()


def _drop(vendor: str, settings: dict[str, Any]) -> None:
    if vendor == "postgresql":
        import psycopg

        with psycopg.connect(f"{PG_SERVER}/postgres", autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{settings["NAME"]}" WITH (FORCE)')
    elif vendor == "mysql":
        import pymysql

        conn = pymysql.connect(host="127.0.0.1", user="root", autocommit=True)
        with conn.cursor() as cursor:
            cursor.execute(f"DROP DATABASE IF EXISTS `{settings['NAME']}`")
        conn.close()


def load_history(alias: str, vendor: str, rows: int) -> dict[str, float]:
    """Fill every ``HISTORY_TABLES`` table with ``rows`` rows; seconds per table."""
    from django.db import connections

    took = dict.fromkeys([t.name for t in HISTORY_TABLES] + ["analyze"], 0.0)
    with connections[alias].cursor() as cursor:
        for start in range(1, rows + 1, BATCH):
            stop = min(rows, start + BATCH - 1)
            cursor.execute("SELECT COALESCE(MAX(id), 0) FROM horizontal_jobrun")
            first_id = cursor.fetchone()[0]
            for table in HISTORY_TABLES:
                sql = table.sql[vendor].format(start=start, stop=stop, first_id=first_id)
                began = time.perf_counter()
                cursor.execute(sql)  # no parameters: no % interpolation either
                took[table.name] += time.perf_counter() - began
        began = time.perf_counter()
        if vendor == "postgresql":
            for table in HISTORY_TABLES:
                cursor.execute(f"ANALYZE {table.name}")
        elif vendor == "mysql":
            for table in HISTORY_TABLES:
                cursor.execute(f"ANALYZE TABLE {table.name}")
                cursor.fetchall()
        else:
            cursor.execute("ANALYZE")
        took["analyze"] = time.perf_counter() - began
    return took


def operations(alias: str) -> dict[str, Callable[[], Any]]:
    """The measured operations on ``alias`` (with HORIZONTAL_DATABASE set to it)."""
    from horizontal.db import run_statement
    from horizontal.jobs import gate, inventory
    from horizontal.jobs.registry import registry

    job = registry.jobs[BENCH_JOB]
    pending: list[gate.Attempt] = []
    counter = iter(range(10**9))
    base = dt.datetime(2100, 1, 1, tzinfo=dt.UTC)

    def claim() -> None:
        slot = (base + dt.timedelta(minutes=next(counter))).strftime("%Y-%m-%dT%H:%M:%SZ")
        attempt = gate.claim_slot(job, slot, trigger="manual")
        assert attempt is not None
        pending.append(attempt)

    def finish() -> None:
        attempt = pending.pop()
        claim_ = attempt.claim
        assert run_statement(
            alias, lambda c, d: d.finish_run(c, claim_.id, claim_.token, "succeeded", "")
        )

    now = dt.datetime.now(dt.UTC)
    return {
        "claim": claim,
        "finish": finish,
        "jobs": lambda: inventory.job_summaries(),
        "last slot": lambda: gate.last_recorded_slot(job),
        "rerun": lambda: gate.slots_to_rerun(job, now),
    }


def explain(alias: str, vendor: str) -> list[str]:
    """Plans of the history reads on ``alias``."""
    from django.db import connections
    from django.db.models import Q

    from horizontal.models import JobRun

    reads = {
        "last slot": JobRun.objects.using(alias)
        .filter(job=BENCH_JOB, slot__endswith="Z")
        .order_by("-slot")
        .values_list("slot", flat=True)[:1],
        "jobs": JobRun.objects.using(alias).filter(job=BENCH_JOB).order_by("-slot")[:5],
        "rerun": JobRun.objects.using(alias)
        .filter(
            Q(status="running", expires_at__lt=dt.datetime.now(dt.UTC)),
            job=BENCH_JOB,
            slot__gte="2099-01-01T00:00:00Z",
            slot__endswith="Z",
        )
        .order_by("slot")
        .values_list("slot", flat=True)[:100],
    }
    lines = []
    for name, queryset in reads.items():
        sql, params = queryset.query.sql_with_params()
        prefix = "EXPLAIN QUERY PLAN " if vendor == "sqlite" else "EXPLAIN "
        with connections[alias].cursor() as cursor:
            cursor.execute(prefix + sql, params)
            rows = cursor.fetchall()
        lines.append(f"  {name}: " + " | ".join(" ".join(str(c) for c in row) for row in rows))
    return lines


def measure(vendor: str) -> None:
    import django
    from django.conf import settings

    with tempfile.TemporaryDirectory() as tmp:
        databases = _databases(vendor, tmp)
        os.environ["DATABASE_URL"] = "sqlite:///unused.sqlite3"
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "testproject.settings")
        os.environ["DJANGO_DEBUG"] = "0"
        if vendor == "mysql":
            from testproject.dburl import use_pymysql

            use_pymysql()
        settings.DATABASES = databases
        for db in databases.values():
            _create(vendor, db)
        try:
            django.setup()
            _run(vendor, list(databases))
        finally:
            from django.db import connections

            connections.close_all()
            for db in databases.values():
                _drop(vendor, db)


def _run(vendor: str, aliases: list[str]) -> None:
    from django.conf import settings
    from django.core.management import call_command

    from horizontal.jobs.registry import Job, registry

    if BENCH_JOB not in registry.jobs:
        registry.jobs[BENCH_JOB] = Job(name=BENCH_JOB, func=lambda run: None, schedule="* * * * *")
    for alias in aliases:
        call_command("migrate", database=alias, verbosity=0)
    print(f"\n{vendor}:")
    for alias in aliases[1:]:
        rows = int(alias[1:])
        took = load_history(alias, vendor, rows)
        spent = ", ".join(f"{name} {seconds:.0f} s" for name, seconds in took.items())
        print(f"  loaded {rows:,} rows per history table into {alias}: {spent}", flush=True)
    ops = {alias: operations(alias) for alias in aliases}
    names = list(ops["default"])
    for alias in aliases:  # warm-up: connections, plans, caches
        settings.HORIZONTAL_DATABASE = alias
        for _ in range(3):
            for name in names:
                ops[alias][name]()
    rounds: dict[tuple[str, str], list[float]] = {}
    for _ in range(ROUNDS):
        for alias in aliases:
            settings.HORIZONTAL_DATABASE = alias  # what the gate and inventory use
            spent = dict.fromkeys(names, 0.0)
            for _ in range(PER_ROUND):
                # In turn, so that claim and finish alternate (overlap="skip": one
                # running slot at a time).
                for name in names:
                    started = time.perf_counter()
                    ops[alias][name]()
                    spent[name] += time.perf_counter() - started
            for name in names:
                rounds.setdefault((alias, name), []).append(spent[name] / PER_ROUND)
    header = "".join(f"{a if a != 'default' else 'empty':>20}" for a in aliases)
    print(f"  median latency per operation, ms ({ROUNDS} interleaved rounds of {PER_ROUND})")
    print(f"  {'':<10}{header}")
    for name in names:
        cells = []
        for alias in aliases:
            cell = f"{statistics.median(rounds[(alias, name)]) * 1000:.2f}"
            if alias != "default":
                ratio = statistics.median(
                    a / b
                    for a, b in zip(rounds[(alias, name)], rounds[("default", name)], strict=True)
                )
                mark = "" if ratio <= TARGET else " MISSED"
                cell += f" ({ratio:.2f}x{mark})"
            cells.append(f"{cell:>20}")
        print(f"  {name:<10}{''.join(cells)}")
    print(f"  target <= {TARGET}x the empty table; plans on {aliases[-1]}:")
    for line in explain(aliases[-1], vendor):
        print(line)


def main() -> None:
    import subprocess

    if len(sys.argv) > 1:
        measure(sys.argv[1])
        return
    for vendor in VENDORS:
        # One process per vendor: Django's settings are configured once per process.
        subprocess.run([sys.executable, "-m", "benchmarks.history", vendor], cwd=ROOT, check=False)


if __name__ == "__main__":
    main()
