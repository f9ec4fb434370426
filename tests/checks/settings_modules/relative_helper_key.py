"""A settings module whose SECRET_KEY a helper it imports relatively makes up."""

from __future__ import annotations

import os

from .key_helpers import make_key

SECRET_KEY = os.environ.get("NO_SUCH_SECRET_KEY_VARIABLE") or make_key()
