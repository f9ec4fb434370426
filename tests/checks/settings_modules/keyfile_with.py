"""A settings module that writes a random key file at first import, read with ``with``."""

from __future__ import annotations

import os

from django.core.management.utils import get_random_secret_key

# os.devnull exists: importing this writes nothing, and reads an empty key.
KEY_FILE = os.environ.get("NO_SUCH_KEY_FILE", os.devnull)
if not os.path.exists(KEY_FILE):
    with open(KEY_FILE, "w") as handle:
        handle.write(get_random_secret_key())
with open(KEY_FILE) as handle:
    SECRET_KEY = handle.read().strip()
