"""Real processes of testproject: ``manage.py`` commands and gunicorn instances.

Every multi-instance test goes through here, so each child gets the same environment
shape: its own ``DATABASE_URL`` and instance id, unbuffered output, and a timeout.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
_BIN = Path(PYTHON).parent


def _gunicorn_has_control_socket() -> bool:
    from importlib.metadata import version

    major, minor = (int(part) for part in version("gunicorn").split(".")[:2])
    return (major, minor) >= (25, 1)


_GUNICORN_CONTROL_SOCKET = _gunicorn_has_control_socket()


def child_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "DJANGO_SETT"))}
    env.update(
        DJANGO_SETTINGS_MODULE="testproject.settings",
        PYTHONUNBUFFERED="1",
        PYTHONPATH=str(ROOT),
    )
    env.update(extra or {})
    return env


def manage(
    *args: str, env: Mapping[str, str] | None = None, timeout: float = 120, check: bool = True
) -> subprocess.CompletedProcess[str]:
    """Run ``manage.py ARGS`` to completion; raise with its output if ``check`` fails."""
    done = subprocess.run(
        [PYTHON, str(ROOT / "manage.py"), *args],
        cwd=ROOT,
        env=child_env(env),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if check and done.returncode != 0:
        raise AssertionError(
            f"manage.py {' '.join(args)} exited {done.returncode}\n"
            f"stdout:\n{done.stdout}\nstderr:\n{done.stderr}"
        )
    return done


def spawn(*args: str, env: Mapping[str, str] | None = None) -> subprocess.Popen[str]:
    """Start ``manage.py ARGS`` without waiting (read ``.communicate()`` later)."""
    return subprocess.Popen(
        [PYTHON, str(ROOT / "manage.py"), *args],
        cwd=ROOT,
        env=child_env(env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Instance:
    """One gunicorn instance of testproject on loopback."""

    process: subprocess.Popen[str]
    port: int
    env: dict[str, str]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 15) -> int:
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode


def start_gunicorn(
    env: Mapping[str, str] | None = None,
    *,
    workers: int = 1,
    ready_path: str = "/admin/login/",
    timeout: float = 30,
    port: int | None = None,
    config: str | None = None,
    wait: bool = True,
    preload: bool = False,
    log: Path | None = None,
    args: Sequence[str] = (),
) -> Instance:
    """Start one gunicorn instance of testproject and wait until it answers HTTP.

    ``port``: a given port (a restarted instance in the balancer's list keeps its
    address); ``config``: gunicorn's ``-c``, e.g. ``python:horizontal.health.gunicorn``;
    ``wait=False``: return at once (the balancer's health check says when it is up);
    ``preload``: load Django once in the master before forking the workers;
    ``log``: append the instance's output to this file (else a pipe, read on failure).
    """
    port = free_port() if port is None else port
    full_env = child_env(env)
    process = subprocess.Popen(
        [
            str(_BIN / "gunicorn"),
            *(("-c", config) if config else ()),
            *(("--preload",) if preload else ()),
            "testproject.wsgi:application",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            str(workers),
            # gunicorn >= 25.1 opens a control socket at one path per user: instances
            # of one test would take it over from each other, and closing it costs each
            # stop seconds.
            *(("--no-control-socket",) if _GUNICORN_CONTROL_SOCKET else ()),
            "--graceful-timeout",
            "10",
            "--timeout",
            "60",
            *args,
        ],
        cwd=ROOT,
        env=full_env,
        stdout=subprocess.PIPE if log is None else open(log, "a"),  # noqa: SIM115
        stderr=subprocess.STDOUT,
        text=True,
    )
    instance = Instance(process, port, full_env)
    if not wait:
        return instance
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            output = process.stdout.read() if process.stdout else Path(str(log)).read_text()
            raise AssertionError(f"gunicorn exited {process.returncode}:\n{output}")
        try:
            urllib.request.urlopen(instance.url + ready_path, timeout=1).close()
            return instance
        except urllib.error.HTTPError:
            return instance  # it answered, with whatever status
        except OSError:
            time.sleep(0.1)
    instance.stop(signal.SIGKILL)
    raise AssertionError(f"gunicorn on port {port} did not answer within {timeout} s")


@contextmanager
def gunicorn_instances(
    count: int, env: Mapping[str, str] | None = None, **kwargs: object
) -> Iterator[list[Instance]]:
    """``count`` independent gunicorn instances (separate master processes) of testproject."""
    instances: list[Instance] = []
    try:
        for i in range(count):
            extra = {**(env or {}), "HORIZONTAL_INSTANCE_ID": f"web-{i}"}
            instances.append(start_gunicorn(extra, **kwargs))  # type: ignore[arg-type]
        yield instances
    finally:
        for instance in instances:
            instance.stop()
