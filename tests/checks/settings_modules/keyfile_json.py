"""A settings module that writes a JSON secrets file at first import and reads the key
from it with ``json.load``: a key made on first boot, on each host that boots."""

from __future__ import annotations

import json
import os

from django.core.management.utils import get_random_secret_key

# The shipped file exists: importing this writes nothing.
SECRETS_FILE = os.environ.get(
    "NO_SUCH_SECRETS_FILE", os.path.join(os.path.dirname(__file__), "shipped_secrets.json")
)
if not os.path.exists(SECRETS_FILE):
    with open(SECRETS_FILE, "w") as handle:
        json.dump({"SECRET_KEY": get_random_secret_key()}, handle)
with open(SECRETS_FILE) as handle:
    SECRET_KEY = json.load(handle)["SECRET_KEY"]
