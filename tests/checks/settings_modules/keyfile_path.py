"""A settings module that writes a random key file at first import, through pathlib."""

from __future__ import annotations

import os
from pathlib import Path

from django.core.management.utils import get_random_secret_key

# os.devnull exists: importing this writes nothing, and reads an empty key.
KEY_FILE = Path(os.environ.get("NO_SUCH_KEY_FILE", os.devnull))
if not KEY_FILE.exists():
    KEY_FILE.write_text(get_random_secret_key())
SECRET_KEY = KEY_FILE.read_text().strip()
