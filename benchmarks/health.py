"""What one readiness probe costs, on a real gunicorn instance of testproject.

    .venv/bin/python -m benchmarks.health [--requests N]

One instance (one sync worker) on a scratch PostgreSQL database, its own Redis
(``horizontal.sessions``) and moto's S3 server: the dependencies readiness probes. For
``/horizontal/live/``, ``/horizontal/ready/`` answered from the reuse interval (the
default, 1 s) and ``/horizontal/ready/`` probed on every request
(``HORIZONTAL_HEALTH_CACHE_SECONDS=0``), it prints the median and p99 latency over
loopback and the worker's CPU time per request (user + system, from /proc), which is
what a fleet of balancers asking every second costs the instance.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
import urllib.request
from pathlib import Path


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def worker_pid(master: int) -> int:
    for task in Path(f"/proc/{master}/task").iterdir():
        children = (task / "children").read_text().split()
        if children:
            return int(children[0])
    raise RuntimeError("no worker")


def measure(url: str, worker: int, requests: int) -> tuple[float, float, float]:
    for _ in range(20):  # warm up: connections, clients, the first probe
        urllib.request.urlopen(url, timeout=10).close()
    timings = []
    cpu_before = cpu_seconds(worker)
    for _ in range(requests):
        started = time.perf_counter()
        with urllib.request.urlopen(url, timeout=10) as answer:
            answer.read()
            assert answer.status == 200, answer.status
        timings.append(time.perf_counter() - started)
    cpu = (cpu_seconds(worker) - cpu_before) / requests
    ordered = sorted(timings)
    return (
        statistics.median(timings) * 1000,
        ordered[int(0.99 * (len(ordered) - 1))] * 1000,
        cpu * 1000,
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=300)
    args = parser.parse_args()

    from tests.support.databases import ScratchDatabase
    from tests.support.processes import start_gunicorn
    from tests.support.redis_server import RedisServer
    from tests.support.s3 import start_moto_server

    database = ScratchDatabase("postgresql").create()
    redis_server = RedisServer().start()
    moto = start_moto_server()
    env = {
        **database.env,
        **moto.project_env(moto.create_bucket("health")),
        "REDIS_URL": redis_server.url,
    }
    instances = []
    try:
        for cache in ("1.0", "0"):
            instances.append(
                start_gunicorn(
                    {**env, "HORIZONTAL_HEALTH_CACHE_SECONDS": cache},
                    ready_path="/horizontal/live/",
                )
            )
        cached, probed = instances
        print(f"{args.requests} sequential requests per row, one sync worker, loopback")
        print(f"{'endpoint':46} {'p50 ms':>8} {'p99 ms':>8} {'CPU ms/req':>11}")
        rows = [
            ("/horizontal/live/", cached),
            ("/horizontal/ready/ (answer reused, 1 s)", cached),
            ("/horizontal/ready/ (probed every request)", probed),
        ]
        for label, instance in rows:
            path = label.split(" ")[0]
            p50, p99, cpu = measure(
                instance.url + path, worker_pid(instance.process.pid), args.requests
            )
            print(f"{label:46} {p50:8.2f} {p99:8.2f} {cpu:11.2f}")
    finally:
        for instance in instances:
            instance.stop()
        moto.stop()
        redis_server.stop()
        database.drop()


if __name__ == "__main__":
    main()
