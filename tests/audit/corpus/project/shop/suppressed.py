"""Inline suppression: reviewed findings a team accepted."""

import threading

_SEEN = set()  # horizontal: ignore[module-state]
# horizontal: ignore
_ALSO_SEEN = set()
_WRONG = set()  # horizontal: ignore[cache]  # expect: module-state


def remember(key):
    _SEEN.add(key)
    _ALSO_SEEN.add(key)
    _WRONG.add(key)
    return threading.get_ident()
