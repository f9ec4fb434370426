"""The base module of a settings package: its SECRET_KEY is random per process."""

from __future__ import annotations

import uuid

SECRET_KEY = str(uuid.uuid4())
