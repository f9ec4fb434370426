"""Issue 5 figure: what horizontal's checks add to ``manage.py check --deploy``.

    python -m benchmarks.checks [ROUNDS]

1. Whole command, side by side in one run: ``manage.py check --deploy`` on testproject's
   production settings (PostgreSQL, Redis, S3 from the environment), and the same
   command on the same settings without ``horizontal`` in ``INSTALLED_APPS``. Runs are
   interleaved; the figure is the difference of the medians, and the budget is 50 ms.
   The median of the per-round differences is printed too: both runs of a round share
   the load of that moment, which the medians of a loaded machine do not cancel.
   The difference also contains importing horizontal and its apps' start-up, so it is an
   upper bound on the checks' share.
2. In process, the checks alone: horizontal's registered checks (``--tag horizontal``,
   deploy included) against all of Django's deploy checks, median over many runs, and
   the five slowest of horizontal's check functions.

3. ``--instructions``: the same two commands under valgrind's callgrind, which counts
   the instructions each executes. Wall and CPU time move with the machine and its load
   (the same code measured +1 ms, +55 ms and +105 ms on three VMs); an instruction count
   does not, beyond a few percent that address-space layout moves. The added share of
   the command, and the milliseconds it comes to at this machine's CPU time per
   instruction, are printed; so is a third command with horizontal but its code checks
   silenced, which skips the code scan. Needs ``valgrind`` (Debian's package); about two
   minutes.

Nothing here needs a running server: checks read settings, and no ``--database`` is
given, so the budget check that asks the server is not run.
"""

from __future__ import annotations

import functools
import json
import os
import resource
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BUDGET_MS = 50.0

PRODUCTION_ENV = {
    "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
    "DJANGO_ALLOWED_HOSTS": "app.example.com",
    "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/postgres",
    "REDIS_URL": "redis://127.0.0.1:6379/15",
    "AWS_STORAGE_BUCKET_NAME": "bench-media",
    "AWS_S3_REGION_NAME": "us-east-1",
}

# The peer: the same production settings with horizontal (and what only horizontal
# provides) taken out, written to a temporary module.
WITHOUT_HORIZONTAL = """
from testproject.settings_production import *  # noqa: F403
from testproject.settings_production import INSTALLED_APPS, MIDDLEWARE

INSTALLED_APPS = [app for app in INSTALLED_APPS if app != "horizontal"]
# Both paths of horizontal's session middleware: the documented one and the old one.
HORIZONTAL_SESSION_MIDDLEWARE = {
    "horizontal.sessions.middleware.SessionMiddleware",
    "horizontal.middleware.SessionMiddleware",
}
MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware"
    if m in HORIZONTAL_SESSION_MIDDLEWARE
    else m
    for m in MIDDLEWARE
]
SESSION_ENGINE = "django.contrib.sessions.backends.cache"
ROOT_URLCONF = "bench_urls_without_horizontal"
"""
# The same production settings with every code check silenced: `check_code` then skips the
# scan (docs/checks.md), which leaves what the rest of horizontal adds.
WITHOUT_CODE_SCAN = """
from testproject.settings_production import *  # noqa: F403

SILENCED_SYSTEM_CHECKS = [f"horizontal.W{number}" for number in range(101, 112)]
"""
# testproject's URLs without horizontal's (health views, HTTP trigger, metrics).
WITHOUT_HORIZONTAL_URLS = """
from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("testproject.accounts.urls")),
    path("files/", include("testproject.files.urls")),
]
"""


def _env(settings_module: str, scratch: str, extra_path: str = "") -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("DJANGO_SETT") and k != "PYTHONDONTWRITEBYTECODE"
    }
    env.update(PRODUCTION_ENV)
    env["DJANGO_SETTINGS_MODULE"] = settings_module
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), extra_path) if p)
    # A deployed image has its bytecode compiled; without this, every run would compile
    # the project's modules from source. The cache lives outside the repository.
    env["PYTHONPYCACHEPREFIX"] = str(Path(scratch, "pycache"))
    return env


def _run_check(env: dict[str, str], *python_flags: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, *python_flags, str(ROOT / "manage.py"), "check", "--deploy"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise SystemExit(f"check --deploy failed:\n{done.stdout}\n{done.stderr}")
    return done


def _time_command(env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds of one command.

    CPU time is the steadier figure on a shared machine: waiting for a core is not in it.
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    _run_check(env)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def _import_self_ms(env: dict[str, str]) -> dict[str, float]:
    """Import time of each module in one run, without its children (``-X importtime``)."""
    stderr = _run_check(env, "-X", "importtime").stderr
    found = {}
    for line in stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            own, _, name = (part.strip() for part in line.split("|"))
            if own.removeprefix("import time:").strip().isdigit():
                found[name] = int(own.removeprefix("import time:")) / 1000
    return found


def imports_only_with_horizontal(
    with_env: dict[str, str], without_env: dict[str, str]
) -> dict[str, float]:
    """Modules the command imports only when horizontal is installed, with their own ms.

    Median of three runs per module. Libraries both sides load (redis through
    django-redis, boto3 through the URLconf) are not charged to horizontal.
    """
    runs = [(_import_self_ms(with_env), _import_self_ms(without_env)) for _ in range(3)]
    extra = set.intersection(*(set(w) - set(wo) for w, wo in runs))
    return {name: statistics.median(w[name] for w, _ in runs) for name in extra}


@dataclass
class Side:
    """Runs of one side of the comparison."""

    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)

    def add(self, wall_and_cpu: tuple[float, float]) -> None:
        self.wall.append(wall_and_cpu[0])
        self.cpu.append(wall_and_cpu[1])


def whole_command(rounds: int) -> tuple[Side, Side, dict[str, float]]:
    """``check --deploy`` with and without horizontal, interleaved; and imports."""
    with tempfile.TemporaryDirectory() as scratch:
        Path(scratch, "bench_settings_without_horizontal.py").write_text(WITHOUT_HORIZONTAL)
        Path(scratch, "bench_urls_without_horizontal.py").write_text(WITHOUT_HORIZONTAL_URLS)
        with_env = _env("testproject.settings_production", scratch)
        without_env = _env("bench_settings_without_horizontal", scratch, scratch)
        _time_command(with_env)  # warm the file system cache and write the bytecode
        _time_command(without_env)
        with_side, without_side = Side(), Side()
        for _ in range(rounds):
            with_side.add(_time_command(with_env))
            without_side.add(_time_command(without_env))
        imports = imports_only_with_horizontal(with_env, without_env)
    return with_side, without_side, imports


def _instructions(env: dict[str, str]) -> int:
    """Instructions one ``check --deploy`` executes, counted by callgrind."""
    env = {**env, "PYTHONHASHSEED": "0"}  # the same dict and set orders on both sides
    done = subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            "--callgrind-out-file=/dev/null",
            sys.executable,
            str(ROOT / "manage.py"),
            "check",
            "--deploy",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    for line in done.stderr.splitlines():
        if "Collected :" in line:
            return int(line.rsplit(":", 1)[1])
    raise SystemExit(f"callgrind gave no count:\n{done.stderr[-2000:]}")


def instructions(rounds: int = 3) -> None:
    """Added instructions, median of ``rounds`` counts per side, and their cost here.

    A third side has horizontal with the code checks' ids silenced, which skips the code
    scan (``horizontal.checks.code``): what the rest of horizontal adds."""
    with tempfile.TemporaryDirectory() as scratch:
        Path(scratch, "bench_settings_without_horizontal.py").write_text(WITHOUT_HORIZONTAL)
        Path(scratch, "bench_urls_without_horizontal.py").write_text(WITHOUT_HORIZONTAL_URLS)
        Path(scratch, "bench_settings_without_code_scan.py").write_text(WITHOUT_CODE_SCAN)
        with_env = _env("testproject.settings_production", scratch)
        without_env = _env("bench_settings_without_horizontal", scratch, scratch)
        no_scan_env = _env("bench_settings_without_code_scan", scratch, scratch)
        for env in (with_env, without_env, no_scan_env):
            _run_check(env)  # the bytecode, written once
        counts = [
            (_instructions(with_env), _instructions(without_env), _instructions(no_scan_env))
            for _ in range(rounds)
        ]
        cpu = statistics.median(_time_command(without_env)[1] for _ in range(5))
    with_count = statistics.median(w for w, _, _ in counts)
    without_count = statistics.median(wo for _, wo, _ in counts)
    no_scan_count = statistics.median(n for _, _, n in counts)
    print(f"manage.py check --deploy, instructions (callgrind, median of {rounds} per side)")
    print(f"  without horizontal  {without_count / 1e6:8.1f} M   ({cpu * 1000:.0f} ms of CPU here)")
    print(f"  with horizontal     {with_count / 1e6:8.1f} M")
    print(f"  code ids silenced   {no_scan_count / 1e6:8.1f} M   (no code scan)")
    for label, count in (("added", with_count), ("added, no code scan", no_scan_count)):
        added = count - without_count
        print(
            f"  {label:20s}{added / 1e6:8.1f} M   {added / without_count:.1%} of the command,"
            f" {added * cpu / without_count * 1000:.0f} ms at this machine's speed"
            f" (budget < {BUDGET_MS:.0f})"
        )


def _median_seconds(func: Callable[[], Any], runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        func()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def in_process(
    runs: int = 200,
) -> tuple[dict[str, float], float, float, list[tuple[float, str]]]:
    """Run in a child started by ``in_child`` with the production environment."""
    import django

    django.setup()
    from django.core.checks import run_checks
    from django.core.checks.registry import registry

    def ours() -> None:
        run_checks(include_deployment_checks=True, tags=["horizontal"], databases=[])

    def djangos_deploy() -> None:
        run_checks(include_deployment_checks=True, databases=[])

    own = [
        check
        for check in registry.get_checks(include_deployment_checks=True)
        if "horizontal" in check.tags
    ]
    # The first run is what one `check --deploy` pays: lazy imports, parsed sources.
    first: dict[str, float] = {}
    for check in own:
        started = time.perf_counter()
        check(app_configs=None, databases=[])
        elapsed = time.perf_counter() - started
        first[check.__module__] = first.get(check.__module__, 0.0) + elapsed
    slowest = sorted(
        (
            (
                _median_seconds(functools.partial(check, app_configs=None, databases=[]), runs),
                f"{check.__module__}.{check.__name__}",
            )
            for check in own
        ),
        reverse=True,
    )[:5]
    return first, _median_seconds(ours, runs), _median_seconds(djangos_deploy, runs), slowest


IN_PROCESS_FLAG = "--in-process"


def in_child() -> tuple[dict[str, float], float, float, list[tuple[float, str]]]:
    """``in_process`` in a fresh interpreter: `python -m benchmarks` may already have set
    Django up with other settings in this one."""
    with tempfile.TemporaryDirectory() as scratch:
        # Twice, the first to write the bytecode: the second's first run is what a
        # deployed image's `check --deploy` pays (no module compiled from source).
        for _ in range(2):
            done = subprocess.run(
                [sys.executable, "-m", "benchmarks.checks", IN_PROCESS_FLAG],
                cwd=ROOT,
                env=_env("testproject.settings_production", scratch),
                capture_output=True,
                text=True,
                check=True,
            )
    first, ours, djangos, slowest = json.loads(done.stdout)
    return first, ours, djangos, [(seconds, name) for seconds, name in slowest]


def main() -> None:
    if IN_PROCESS_FLAG in sys.argv:
        print(json.dumps(in_process()))
        return
    if "--instructions" in sys.argv:
        instructions()
        return
    # `python -m benchmarks.checks 31`; under `python -m benchmarks checks` argv is a name.
    numbers = [arg for arg in sys.argv[1:] if arg.isdigit()]
    rounds = int(numbers[0]) if numbers else 21
    with_side, without_side, imports = whole_command(rounds)
    print(f"manage.py check --deploy on testproject production settings, {rounds} runs each")
    for figure in ("wall", "cpu"):
        with_runs, without_runs = getattr(with_side, figure), getattr(without_side, figure)
        with_ms = statistics.median(with_runs) * 1000
        without_ms = statistics.median(without_runs) * 1000
        low, _, high = (q * 1000 for q in statistics.quantiles(without_runs, n=4))
        print(f"  {figure} time, median")
        print(f"    without horizontal  {without_ms:7.1f} ms   (quartiles {low:.0f}-{high:.0f})")
        print(f"    with horizontal     {with_ms:7.1f} ms")
        print(
            f"    added               {with_ms - without_ms:7.1f} ms   (budget < {BUDGET_MS:.0f})"
            f"   ratio {with_ms / without_ms:.2f}x"
        )
        # The two runs of one round share the machine's load of that moment.
        paired = statistics.median(w - wo for w, wo in zip(with_runs, without_runs, strict=True))
        print(f"    added, paired       {paired * 1000:7.1f} ms   (median of round differences)")
    by_package: dict[str, float] = {}
    for name, ms in imports.items():
        package = ".".join(name.split(".")[:2]) if name.startswith("horizontal.") else name
        by_package[package] = by_package.get(package, 0.0) + ms
    print(
        f"  modules imported only with horizontal: {len(imports)}, "
        f"{sum(imports.values()):.1f} ms of their own import time (median of 3 runs)"
    )
    for package, ms in sorted(by_package.items(), key=lambda item: -item[1])[:8]:
        print(f"    {ms:8.1f} ms  {package}")

    first, ours, djangos, slowest = in_child()
    print("in process (checks only, no start-up)")
    total_first = sum(first.values())
    print(f"  horizontal's checks {total_first * 1000:7.2f} ms   first run, as in one command:")
    for module, seconds in sorted(first.items(), key=lambda item: -item[1]):
        print(f"    {seconds * 1000:8.2f} ms  {module}")
    print(f"  horizontal's checks {ours * 1000:7.2f} ms   median of 200 warm runs")
    print(f"  all deploy checks   {djangos * 1000:7.2f} ms   warm, Django's and horizontal's")
    print(f"  share               {ours / djangos:7.0%}")
    print("  slowest of horizontal's check functions:")
    for seconds, name in slowest:
        print(f"    {seconds * 1e6:8.0f} µs  {name}")


if __name__ == "__main__":
    main()
