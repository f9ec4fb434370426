"""A base settings module whose SECRET_KEY is random per process."""

from __future__ import annotations

import secrets

SECRET_KEY: str = secrets.token_urlsafe(50)
