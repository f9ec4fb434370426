"""Helpers a settings module imports relatively."""

from __future__ import annotations

import os
import secrets


def make_key() -> str:
    return secrets.token_urlsafe(64)


def read_key(name: str) -> str:
    return os.environ.get(name) or secrets.token_urlsafe(64)
