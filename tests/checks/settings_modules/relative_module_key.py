"""A settings module whose SECRET_KEY a helper module it imports relatively makes up."""

from __future__ import annotations

from . import key_helpers

SECRET_KEY = key_helpers.read_key("NO_SUCH_SECRET_KEY_VARIABLE")
