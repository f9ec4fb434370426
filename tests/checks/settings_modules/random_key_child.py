"""Production settings that inherit the random SECRET_KEY of their base module."""

from __future__ import annotations

from .random_key_base import *  # noqa: F403

DEBUG = False
