"""module-state: true and false cases."""

import re
import threading
from collections import defaultdict

from django.conf import settings

# A per-process hit counter: each instance counts its own share.
_HITS = defaultdict(int)  # expect: module-state

# Password-reset tokens already used: a replay on another instance succeeds.
_USED_TOKENS = set()  # expect: module-state

# Read-only lookup table: the same on every instance.
COLORS = {"up": "green", "down": "red"}  # ok: constant

# Filled by a decorator while modules import: the same on every instance.
_HANDLERS = {}  # ok: registry filled at import


def register(name):
    def decorator(func):
        _HANDLERS[name] = func
        return func

    return decorator


@register("ping")
def ping():
    return COLORS["up"]


# Compiled patterns memoised: pure, identical everywhere.
_PATTERNS = {}  # ok: pure memo


def pattern(text):
    if text not in _PATTERNS:
        _PATTERNS[text] = re.compile(text)
    return _PATTERNS[text]


_last_sync = None
_client = None


def count_hit(request):
    _HITS[request.path] += 1
    return COLORS.get("up")


def use_token(token):
    if token in _USED_TOKENS:
        return False
    _USED_TOKENS.add(token)
    return True


def mark_synced(when):
    global _last_sync  # expect: module-state
    _last_sync = when


def client():
    global _client  # ok: lazy construction of a client from configuration
    if _client is None:
        _client = object()
    return _client


_engine = None


def engine():
    global _engine  # ok: build once behind a guard clause
    if _engine is not None:
        return _engine
    _engine = object()
    return _engine


_js = None
_js_hash = None


def widget_js():
    global _js, _js_hash  # ok: built together, once
    if _js is None:
        _js = b"console.log(1)"
        _js_hash = hash(_js)
    return _js, _js_hash


def reset_engine():
    global _engine  # ok: a reset to None
    _engine = None


def local_only(rows):
    items = []  # ok: a local list
    for row in rows:
        items.append(row)
    return items


class Notifier:
    # Shared by every Notifier in the process, appended per request.
    subscribers = []  # expect: module-state

    def subscribe(self, user):
        self.subscribers.append(user)


class Basket:
    items = []  # ok: shadowed by the instance attribute set in __init__

    def __init__(self):
        self.items = []

    def add(self, item):
        self.items.append(item)


class Config:
    registry = {}  # ok: filled in ready(), at start-up, on every instance alike

    def ready(self):
        self.registry["x"] = settings.DEBUG


_lock = threading.Lock()
