"""``horizontal.storage.S3Storage`` against plain boto3, same bytes, same endpoint.

    .venv/bin/python -m benchmarks.storage [--rounds N]

Starts moto's server on loopback (a real HTTP endpoint; both sides pay its cost), then
for 1 KiB, 1 MiB and 20 MiB: ``storage.save()`` + ``storage.open().read()`` against
``put_object`` + ``get_object()["Body"].read()``. Rounds alternate which side goes
first, and the medians (ms per save+open) are compared, because the endpoint's latency drifts with
whatever else the machine runs. A ratio is our throughput over boto3's (1.00 = same;
the issue asks for >= 0.90 at 1 MiB and above).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
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
    return rounds if size <= 1024 * 1024 else max(5, rounds // 4)


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
                pair = [
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=40, help="rounds per size up to 1 MiB")
    args = parser.parse_args(argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")
    os.environ["REDIS_URL"] = ""  # the benchmark needs no cache or sessions
    import django

    django.setup()
    return 0 if run(args.rounds) else 1


if __name__ == "__main__":
    sys.exit(main())
