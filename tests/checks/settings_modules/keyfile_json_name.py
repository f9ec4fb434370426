"""A settings module that writes a JSON secrets file at first import, loads it into a
module-level name and takes the key from that name (files left open, as such modules
do)."""

from __future__ import annotations

import json
import os
import secrets

SECRETS_FILE = os.environ.get(
    "NO_SUCH_SECRETS_FILE", os.path.join(os.path.dirname(__file__), "shipped_secrets.json")
)
if not os.path.exists(SECRETS_FILE):
    json.dump({"SECRET_KEY": secrets.token_urlsafe(50)}, open(SECRETS_FILE, "w"))  # noqa: SIM115
_secrets = json.load(open(SECRETS_FILE))  # noqa: SIM115
SECRET_KEY = _secrets["SECRET_KEY"]
