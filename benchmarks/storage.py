"""``horizontal.storage.S3Storage`` against plain boto3, same bytes, same endpoint.

    .venv/bin/python -m benchmarks.storage [--rounds N] [--skip-faults]

Starts moto's server on loopback (a real HTTP endpoint; both sides pay its cost), then
for 1 KiB, 1 MiB and 20 MiB: ``storage.save()`` + ``storage.open().read()`` against
``put_object`` + ``get_object()["Body"].read()``. Rounds alternate which side goes
first, and the medians (ms per save+open) are compared, because the endpoint's latency
drifts with whatever else the machine runs. A ratio is our throughput over boto3's
(1.00 = same; the issue asks for >= 0.90 at 1 MiB and above).

Then, with the default options (2 s connect, 5 s read, 3 attempts), how long a call
takes to fail against an endpoint that is down, one that accepts and never answers, and
a missing bucket, next to the storage's bound; and what ``probe(timeout=2)`` says.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

SIZES = {"1 KiB": 1024, "1 MiB": 1024 * 1024, "20 MiB": 20 * 1024 * 1024}
TARGET = 0.9


@dataclass
class Timings:
    save: list[float] = field(default_factory=list)
    open: list[float] = field(default_factory=list)

    def both(self) -> list[float]:
        return [s + o for s, o in zip(self.save, self.open, strict=True)]


def _timed(action: Callable[[], Any]) -> tuple[float, Any]:
    started = time.perf_counter()
    result = action()
    return time.perf_counter() - started, result


def boto3_round(client: Any, bucket: str, key: str, data: bytes, into: Timings) -> None:
    seconds, _ = _timed(lambda: client.put_object(Bucket=bucket, Key=key, Body=data))
    into.save.append(seconds)
    seconds, read = _timed(lambda: client.get_object(Bucket=bucket, Key=key)["Body"].read())
    into.open.append(seconds)
    assert read == data, "boto3 read back different bytes"


def storage_round(storage: Any, name: str, data: bytes, into: Timings) -> None:
    from django.core.files.base import ContentFile

    seconds, stored = _timed(lambda: storage.save(name, ContentFile(data)))
    into.save.append(seconds)

    def read() -> bytes:
        with storage.open(stored, "rb") as file:
            return bytes(file.read())

    seconds, read_back = _timed(read)
    into.open.append(seconds)
    assert read_back == data, "S3Storage read back different bytes"


def rounds_for(size: int, rounds: int) -> int:
    # Enough small rounds for a stable median, fewer big ones to keep the run short.
    return rounds if size <= 1024 * 1024 else max(5, rounds // 2)


def ratio(ours: list[float], theirs: list[float]) -> float:
    return statistics.median(theirs) / statistics.median(ours)


def milliseconds(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def run(rounds: int) -> bool:
    from horizontal.storage import S3Storage
    from tests.support.s3 import start_moto_server

    server = start_moto_server()
    try:
        bucket = server.create_bucket("bench")
        client = server.client()
        storage = S3Storage(**server.storage_options(bucket))
        print(f"endpoint {server.url} (moto_server), bucket {bucket}")
        print(
            f"{'size':>7} {'rounds':>6} {'boto3 ms':>9} {'ours ms':>8} "
            f"{'save x':>7} {'open x':>7} {'save+open x':>11}"
        )
        passed = True
        for label, size in SIZES.items():
            data = os.urandom(size)
            # Warm both clients' connection pools and the server's code paths.
            boto3_round(client, bucket, f"warm/{size}/boto3", data, Timings())
            storage_round(storage, f"warm/{size}/ours", data, Timings())
            theirs, ours = Timings(), Timings()
            count = rounds_for(size, rounds)
            for i in range(count):
                pair: list[tuple[Callable[..., None], tuple[Any, ...]]] = [
                    (boto3_round, (client, bucket, f"boto3/{size}/{i}", data, theirs)),
                    (storage_round, (storage, f"ours/{size}/{i}.bin", data, ours)),
                ]
                # Alternate who goes first: neither side always meets a warmer server.
                for side, arguments in pair if i % 2 == 0 else pair[::-1]:
                    side(*arguments)
            overall = ratio(ours.both(), theirs.both())
            print(
                f"{label:>7} {count:>6} {milliseconds(theirs.both()):>9.1f} "
                f"{milliseconds(ours.both()):>8.1f} "
                f"{ratio(ours.save, theirs.save):>6.2f}x {ratio(ours.open, theirs.open):>6.2f}x "
                f"{overall:>10.2f}x"
            )
            if size >= 1024 * 1024 and overall < TARGET:
                passed = False
        verdict = "met" if passed else "NOT met"
        print(f"target >= {TARGET:.2f}x of boto3 at 1 MiB and above: {verdict}")
        return passed
    finally:
        server.stop()


def faults(server: Any) -> None:
    from horizontal.storage import S3Storage, probe
    from tests.support.processes import free_port
    from tests.support.s3 import REGION, SilentServer

    silent = SilentServer()
    try:
        endpoints = {
            "endpoint down": (f"http://127.0.0.1:{free_port()}", "bench-missing"),
            "never answers": (silent.url, "bench-missing"),
            "bucket missing": (server.url, "no-such-bucket"),
            "healthy": (server.url, server.create_bucket("probe")),
        }
        print(f"\n{'fault':>14} {'call':>5} {'seconds':>8} {'bound':>6}  outcome")
        for fault, (url, bucket) in endpoints.items():
            storage = S3Storage(
                **{**server.storage_options(bucket), "endpoint_url": url, "region_name": REGION}
            )
            calls: dict[str, Callable[[], Any]] = {
                "save": partial(_save_one, storage),
                "open": partial(_read_one, storage),
            }
            for call, action in calls.items() if fault != "healthy" else []:
                seconds, outcome = _fails(action)
                bound = storage.worst_case_seconds
                print(f"{fault:>14} {call:>5} {seconds:>8.2f} {bound:>6.0f}  {outcome}")
            result = probe(storage, timeout=2)
            print(
                f"{fault:>14} {'probe':>5} {result.seconds:>8.2f} {2:>6}  "
                f"ok={result.ok} problem={result.problem}"
            )
    finally:
        silent.close()


def _save_one(storage: Any) -> Any:
    from django.core.files.base import ContentFile

    return storage.save("bench/fault.txt", ContentFile(b"x"))


def _read_one(storage: Any) -> Any:
    return storage.open("bench/fault.txt").read()


def _fails(action: Callable[[], Any]) -> tuple[float, str]:
    started = time.monotonic()
    try:
        action()
    except Exception as error:
        return time.monotonic() - started, f"{type(error).__name__}: {str(error)[:60]}"
    return time.monotonic() - started, "no error"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=40, help="rounds per size up to 1 MiB")
    parser.add_argument("--skip-faults", action="store_true", help="only the throughput comparison")
    args = parser.parse_args(argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")
    os.environ["REDIS_URL"] = ""  # the benchmark needs no cache or sessions
    import django

    django.setup()
    passed = run(args.rounds)
    if not args.skip_faults:
        from tests.support.s3 import start_moto_server

        server = start_moto_server()
        try:
            faults(server)
        finally:
            server.stop()
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
