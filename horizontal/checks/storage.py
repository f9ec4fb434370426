"""Placeholder until this module's checks land (see horizontal/checks/__init__.py)."""

from __future__ import annotations
