"""django-split-settings: components run in this module's namespace by ``include()``."""

from __future__ import annotations

try:
    from split_settings.tools import include, optional
except ImportError:  # the check reads the source; the library need not be installed here

    def include(*paths: object) -> None:
        return None

    def optional(path: str) -> str:
        return path


base_settings = ["components/base.py", "components/secret.py"]
include(*base_settings, optional("local_settings.py"))
