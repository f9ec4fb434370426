from __future__ import annotations

INSTALLED_APPS = ["shop"]
