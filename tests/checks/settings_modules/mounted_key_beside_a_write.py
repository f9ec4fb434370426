"""A settings module that writes a version file at first import and reads its key from a
mounted secret: the key is not generated (the handle ``f`` of the read is the secret's)."""

from __future__ import annotations

import os

VERSION_FILE = os.environ.get("NO_SUCH_VERSION_FILE", os.devnull)
KEY_FILE = os.environ.get("NO_SUCH_KEY_FILE", os.devnull)
if not os.path.exists(VERSION_FILE):
    with open(VERSION_FILE, "w") as f:
        f.write("dev")
with open(KEY_FILE) as f:
    SECRET_KEY = f.read().strip()
