"""A settings module that reads its key from a JSON file the image ships or the platform
mounts, and never writes it: the same key on every instance."""

from __future__ import annotations

import json
import os

SECRETS_FILE = os.environ.get(
    "NO_SUCH_SECRETS_FILE", os.path.join(os.path.dirname(__file__), "shipped_secrets.json")
)
with open(SECRETS_FILE) as handle:
    _secrets = json.load(handle)
SECRET_KEY = _secrets["SECRET_KEY"]
