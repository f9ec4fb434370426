"""What the project's code uses, noted file by file for the passes that judge settings.

A per-process cache harms only where code keeps shared state in it, a channel layer only
where code sends through it, a local media folder only where code stores files: each
module read says which of these it does (``feature_use``), and where (the first few
places, related to the setting's finding).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from horizontal.audit import feature_use, import_admins, private_media, settings_unread
from horizontal.audit.patterns import lazy_compile
from horizontal.audit.settings_files import is_settings_path, looks_like_settings

if TYPE_CHECKING:
    from horizontal.audit.runner import Scan

__all__ = ["note_uses"]

MODELS_MODULE = lazy_compile(r"/models(\.py$|/)")


def note_uses(scan: Scan, name: str, text: str, by_hand: bool) -> None:
    """Note on ``scan`` what module ``name`` uses: the cache (and its writes), a channel
    layer, django-privates, stored files, admins that import, and the settings it reads."""
    result = scan.result
    if "settings" in text:
        scan.settings_read |= settings_unread.names_read(text)
    if not result.gates_in_cache:
        state, gates = feature_use.cache_uses(text, by_hand)
        result.uses_cache |= state
        result.gates_in_cache = gates
    if any(word in text for word in feature_use.THROTTLE_WORDS) and is_settings_path(name):
        throttles = feature_use.throttle_lines(name, text)
        if throttles:
            result.uses_cache = result.gates_in_cache = True
            scan.cache_writes[:0] = throttles  # before code's writes: they decide
    room = feature_use.CACHE_WRITES_SHOWN - len(scan.cache_writes)
    if room > 0 and not is_settings_path(name):
        writes = feature_use.cache_write_lines(name, text)
        if writes and not by_hand:
            scan.cache_writes += writes[:room]
    if not result.uses_channel_layer and feature_use.uses_channel_layer(text):
        result.uses_channel_layer = True
    if private_media.USES in text and not by_hand and not is_settings_path(name):
        result.uses_private_media = True
        room = private_media.USES_SHOWN - len(scan.private_media_uses)
        scan.private_media_uses += private_media.use_lines(name, text)[: max(room, 0)]
    if "IMPORT_EXPORT_SKIP" in text and import_admins.SKIPPED_IN_SETTINGS.search(text):
        scan.import_confirm_skipped = True
    if not by_hand and import_admins.uses_import_admins(text):
        scan.import_admins += import_admins.import_admins(name, text)
    if not result.stores_files:
        # A command's own file handling (an import that reads MEDIA_ROOT) says nothing
        # about what requests store; a settings module found by its content
        # (``conf/base.py``) names MEDIA_ROOT to configure it.
        settings = is_settings_path(name) or looks_like_settings(text)
        result.stores_files = not by_hand and feature_use.stores_files(name, text, settings)
    if not result.read_models and MODELS_MODULE.search(f"/{name}"):
        result.read_models = True
