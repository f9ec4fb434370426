"""The path of earlier releases, kept working for settings modules that import it:
``horizontal.storage_env.storages_from_env`` is ``horizontal.storage.storages_from_env``.

``horizontal.storage.env`` is stdlib only; importing it loads the ``horizontal.storage``
face too, which imports Django's storage modules but reads no setting, so a settings
module may import either path.
"""

from __future__ import annotations

from horizontal.storage import env
from horizontal.storage.env import *  # noqa: F403

__all__ = env.__all__
