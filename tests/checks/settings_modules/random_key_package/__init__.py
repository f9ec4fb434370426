"""A settings package whose ``__init__`` takes everything from its own ``base`` module."""

from __future__ import annotations

from .base import *  # noqa: F403
