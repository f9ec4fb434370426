"""A settings module that falls back to the kernel's random bytes, read as a file."""

from __future__ import annotations

import os

SECRET_KEY = os.environ.get("NO_SUCH_SECRET_KEY_VARIABLE") or (
    open("/dev/urandom", "rb").read(32).hex()  # noqa: SIM115
)
