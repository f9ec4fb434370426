"""Which of Django's features the project's code uses: the cache, channel layers, stored
files. A setting whose feature nothing uses harms nobody however it is set (an
in-memory channel layer no code sends to, a local ``MEDIA_ROOT`` nothing is stored in).

Text only, one pass per file: the runner asks for each file it reads and keeps the answer
once it is yes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from horizontal.audit.findings import Finding, Location
from horizontal.audit.patterns import lazy_compile

__all__ = [
    "CACHE_WRITES_SHOWN",
    "UPLOAD_SETTINGS",
    "cache_uses",
    "cache_write_lines",
    "keeps_state_in_cache",
    "stores_files",
    "throttle_lines",
    "uses_channel_layer",
    "with_cache_writes",
]

# Code that keeps shared state in Django's cache: only then is the implicit LocMemCache a
# problem. A memo (``get`` then ``set``, ``cache_page``) on a per-process cache recomputes
# what another process cached; an invalidation (``delete``), a counter (``incr``), a gate
# or lock (``add``) or a rate limit counts on every process seeing the same entry.
STATE_METHODS = frozenset({"add", "incr", "decr", "delete", "delete_many", "clear", "touch"})
# A flag set to a constant (``cache.set(key, True, 3600)``): a throttle or a marker another
# request looks for, not a computed value kept for reuse.
FLAG_ARGUMENT = lazy_compile(r"[^,\n]+,\s*(True|False|None|-?\d+|\"[^\"]*\"|'[^']*')\s*[,)]")
RATE_LIMIT_USE = ("django_ratelimit", "ratelimit(", "RateThrottle")
# Any write: from a command or a script it is state for other processes to read (a cache
# a management command fills for the requests), since the command's own process ends.
SET_METHODS = frozenset({"set", "set_many", "get_or_set"})
# A write of shared state through the cache (a throttle flag, a counter, a lock, an
# invalidation): where a per-process cache shows. Related locations of the CACHES
# finding, the first few.
WRITE_METHODS = STATE_METHODS | SET_METHODS
# A call on the cache, found by its literal first (a regex that starts with a word test
# tries it at every word of a file); the name before it is checked in ``_cache_calls``.
CACHE_CALL = lazy_compile(r"cache(?:s\[[^\]]+\])?\.(\w+)\(")
CACHE_WRITES_SHOWN = 10
# Django REST framework's throttles count requests in the default cache: a rate there is
# shared state the cache must hold for every instance (its settings lines are related).
# So do django-allauth's login-attempt and rate limits set in settings (a value of
# ``None``, ``False`` or ``0`` alone is off, as is ``ACCOUNT_RATE_LIMITS = False`` for
# all; allauth's defaults with nothing set are not read: sixteen findings on the tuning
# projects, none labelled) and django-axes' cache handler.
THROTTLE_RATES = lazy_compile(
    r"[\"']DEFAULT_THROTTLE_(RATES|CLASSES)[\"']|"
    r"^\s*ACCOUNT_(LOGIN_ATTEMPTS_LIMIT|RATE_LIMITS)\s*=(?!\s*(None|False|0)\s*(#.*)?$)|"
    r"^\s*AXES_HANDLER\s*=\s*[\"']axes\.handlers\.cache\."
)
RATE_LIMITS_OFF = lazy_compile(r"^\s*ACCOUNT_RATE_LIMITS\s*=\s*False\s*(#.*)?$", re.M)
# The words that send a settings module to ``throttle_lines``.
THROTTLE_WORDS = (
    "DEFAULT_THROTTLE_",
    "ACCOUNT_LOGIN_ATTEMPTS_LIMIT",
    "ACCOUNT_RATE_LIMITS",
    "AXES_HANDLER",
)
# A channel layer's API: without it an in-memory channel layer harms nobody. Judged only
# once the scan has read the project's models (a settings file scanned alone is reported).
CHANNEL_LAYER_USE = ("channel_layer", "group_send", "group_add", "WebsocketConsumer")
# Stored files: without any of these in the project's code, and with no installed app
# that stores uploads (UPLOAD_APPS, read in settings), MEDIA_ROOT and the default storage
# hold nothing, and a local default harms nobody. Reading the request's upload
# (``request.FILES``, an ``UploadedFile``) stores nothing: code that keeps it does so
# through a field, a storage or a path under MEDIA_ROOT, which these find.
UPLOAD_USE = (
    "FileField",
    "ImageField",
    "default_storage",
    "storages[",
    "get_storage_class",
    "FileSystemStorage",
    "MEDIA_ROOT",
)
# Libraries whose models store uploads on the default storage.
UPLOAD_LIBRARIES = (
    r"wagtail|filer|easy_thumbnails|sorl\.thumbnail|imagekit|attachments|"
    r"django_summernote|martor|markdownx|ckeditor_uploader|django_ckeditor_5|photologue|"
    r"avatar|cms|djangocms_\w+|mezzanine|wiki|machina|private_storage|filebrowser|"
    r"django_drf_filepond|django_file_form|tinymce"
)
# Installed (a settings module's INSTALLED_APPS names one).
UPLOAD_APPS = lazy_compile(rf"[\"'](?:{UPLOAD_LIBRARIES})(?:[.\"'])")
# Used in code (``from attachments.models import Attachment``): the app is installed
# where the settings do not show it (a library's base settings, an app's own list).
UPLOAD_IMPORT = lazy_compile(rf"^[ \t]*(?:from|import)[ \t]+(?:{UPLOAD_LIBRARIES})[. ]", re.M)
# A form's or serializer's file field reads the request's upload; it stores nothing.
FORM_FILE_FIELD = lazy_compile(r"\b(forms|serializers)\.\w*(FileField|ImageField)\b")
# The settings a project with no stored files leaves unused (as findings name them).
UPLOAD_SETTINGS = frozenset({"MEDIA_ROOT", "STORAGES['default']"})


# What a cache that stores nothing (``DummyCache``) breaks: a gate taken with ``add()``, a
# counter. An invalidation (``delete``) has nothing to invalidate there.
GATE_METHODS = frozenset({"add", "incr", "decr"})


def keeps_state_in_cache(text: str, by_hand: bool = False) -> bool:
    """Whether this code keeps shared state in the cache (``STATE_METHODS``, a flag set),
    limits a rate there, or (``by_hand``: a command, a script) fills it for other
    processes."""
    return cache_uses(text, by_hand)[0]


def cache_uses(text: str, by_hand: bool = False) -> tuple[bool, bool]:
    """(keeps shared state in the cache, takes gates or counts there), in one pass: a
    gate (``GATE_METHODS``, a flag set, a rate limit) is state too."""
    if any(marker in text for marker in RATE_LIMIT_USE):
        return True, True
    state = False
    for _, method, end in _cache_calls(text):
        if method in GATE_METHODS or (method == "set" and FLAG_ARGUMENT.match(text, end)):
            return True, True
        if method in STATE_METHODS or (by_hand and method in SET_METHODS):
            state = True
    return state, False


def _cache_calls(text: str) -> Iterator[tuple[int, str, int]]:
    """(position, method, end) of each call on the cache: ``cache.delete(``,
    ``caches["default"].incr(``, ``django_cache.set(`` (a name that ends in ``_cache``),
    not ``self._cache.clear(``, ``self.cache.pop(`` or ``mycache.add(``."""
    if "cache" not in text:
        return
    # ``django_cache`` is Django's cache under another name only where the module imports
    # it; elsewhere ``old_cache`` is anything (a row of a model named for a cache).
    renamed = "django.core.cache" in text
    for match in CACHE_CALL.finditer(text):
        start = match.start()
        before = text[start - 1] if start else " "
        if before == "_":
            # ``django_cache``: a word before the underscore; not ``._cache``.
            if (
                not renamed
                or start < 2
                or not (text[start - 2].isalnum() or text[start - 2] == "_")
            ):
                continue
        elif before.isalnum():
            continue
        elif before == "." and text[max(0, start - 6) : start] != "cache.":
            # ``self.cache.clear()``: an object's own attribute, not Django's cache (which
            # an attribute reaches only as ``django.core.cache.cache``).
            continue
        yield start, match.group(1), match.end()
    if "caches[" in text:
        yield from _calls_on_local_aliases(text)
    if renamed and " as " in text:
        yield from _calls_on_imported_aliases(text)


# ``from django.core.cache import cache as shared`` (or in parentheses, over lines):
# Django's cache under the module's own name.
CACHE_IMPORT = lazy_compile(
    r"^[ \t]*from[ \t]+django\.core\.cache[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)", re.M
)
CACHE_AS = lazy_compile(r"\bcache[ \t\n]+as[ \t\n]+(\w+)")


def _calls_on_imported_aliases(text: str) -> Iterator[tuple[int, str, int]]:
    """Calls on the name a module imports Django's cache as (``shared.add(``); not a name
    the module binds again (``c = set()``), nor one that ends in ``_cache`` (found by
    ``_cache_calls`` already)."""
    for imported in CACHE_IMPORT.finditer(text):
        for alias in CACHE_AS.finditer(imported.group(1)):
            name = alias.group(1)
            if name == "cache" or name.endswith("_cache"):
                continue
            if re.search(rf"(?<![\w.]){re.escape(name)}[ \t]*(?::[^=\n]*)?=(?!=)", text):
                continue  # bound again somewhere: which one a call means is not told here
            for call in re.finditer(rf"(?<![\w.]){re.escape(name)}\.(\w+)\(", text):
                yield call.start(), call.group(1), call.end()


# ``c = caches["default"]`` (then ``c.incr(key)``): the cache under a local name.
CACHE_ALIAS = lazy_compile(r"^([ \t]*)([A-Za-z_]\w*)\s*=\s*caches\[[^\]\n]+\]", re.M)
# Where the function that binds it ends: the next ``def`` or ``class`` at its level or out.
NEXT_DEFINITION = "(?:async\\s+)?def|class"


def _calls_on_local_aliases(text: str) -> Iterator[tuple[int, str, int]]:
    """Calls on a name bound to ``caches[alias]``, from the binding to the end of the
    function that binds it (the next definition indented as its ``def`` or less)."""
    for binding in CACHE_ALIAS.finditer(text):
        indent, name = len(binding.group(1)), binding.group(2)
        if name == "cache":
            continue  # ``cache = caches["x"]``: ``cache.…(`` is found already
        end_of_scope = re.compile(rf"^[ \t]{{0,{max(indent - 1, 0)}}}(?:{NEXT_DEFINITION})\b", re.M)
        stop = end_of_scope.search(text, binding.end())
        region_end = stop.start() if stop else len(text)
        for call in re.finditer(rf"\b{re.escape(name)}\.(\w+)\(", text[binding.end() : region_end]):
            position = binding.end() + call.start()
            yield position, call.group(1), binding.end() + call.end()


def uses_channel_layer(text: str) -> bool:
    return any(marker in text for marker in CHANNEL_LAYER_USE)


def stores_files(name: str, text: str, settings: bool) -> bool:
    """Whether this file shows that the project stores files: code that declares or saves
    them, or (``settings``) an installed app that stores uploads."""
    if settings:
        return bool(UPLOAD_APPS.search(text))
    if "forms." in text or "serializers." in text:
        text = FORM_FILE_FIELD.sub("", text)
    found = [marker for marker in UPLOAD_USE if marker in text and _in_code(text, marker)]
    if "import" in text and UPLOAD_IMPORT.search(text):
        found.append("import")
    # urls.py's ``static(settings.MEDIA_URL, document_root=settings.MEDIA_ROOT)`` is the
    # project template's, there whether or not anything is stored.
    if name.endswith("urls.py") and "MEDIA_ROOT" in found:
        found.remove("MEDIA_ROOT")
    return bool(found)


def _in_code(text: str, marker: str) -> bool:
    """Whether ``marker`` appears outside a comment (``# the Django ImageField max path
    size`` names a field; it declares none) and outside a string (``field.__class__.
    __name__ == 'FileField'`` compares a name)."""
    position = text.find(marker)
    while position != -1:
        line_start = text.rfind("\n", 0, position) + 1
        quoted = (
            position > 0
            and text[position - 1] in "'\""
            and text[position + len(marker) : position + len(marker) + 1] in ("'", '"')
        )
        if "#" not in text[line_start:position] and not quoted:
            return True
        position = text.find(marker, position + 1)
    return False


# A view's own DRF throttle (``throttle_classes = [WebhookRateThrottle]``, ``class
# WebhookRateThrottle(SimpleRateThrottle)``): its counts are kept in the default cache.
VIEW_THROTTLE = lazy_compile(
    r"\bthrottle_classes\s*=\s*[\[(]\s*\w|^class \w+\([\w.]*RateThrottle\)", re.M
)


def throttle_lines(name: str, text: str) -> list[Location]:
    """A settings module's lines that name DRF throttles or a library's rate limits:
    counts kept in the cache."""
    allauth_off = bool(RATE_LIMITS_OFF.search(text))  # every allauth limit switched off
    return [
        Location(name, number)
        for number, line in enumerate(text.splitlines(), 1)
        if THROTTLE_RATES.search(line) and not (allauth_off and "ACCOUNT_" in line)
    ]


NOT_CODE = ("#", ">>>", "...")


def cache_write_lines(name: str, text: str) -> list[Location]:
    """The lines of code that write shared state through the cache, and the rate limits
    that count there (``@ratelimit(rate="30/m")``)."""
    positions = [p for p, method, _ in _cache_calls(text) if method in WRITE_METHODS]
    if "ratelimit(" in text:
        positions = sorted([*positions, *_rate_limits(text)])
    if "hrottle" in text:
        positions = sorted([*positions, *(m.start() for m in VIEW_THROTTLE.finditer(text))])
    lines: list[Location] = []
    number, counted = 1, 0  # the line at ``counted``; positions come in order
    for position in positions:
        number += text.count("\n", counted, position)
        counted = position
        start = text.rfind("\n", 0, position) + 1
        if text[start:position].lstrip().startswith(NOT_CODE):
            continue  # a comment, or a docstring's example (``>>> cache.set(…)``)
        if not lines or lines[-1].line != number:
            lines.append(Location(name, number))
    return lines


def _rate_limits(text: str) -> Iterator[int]:
    start = text.find("@ratelimit(")
    while start != -1:
        yield start
        start = text.find("@ratelimit(", start + 1)


def with_cache_writes(finding: Finding, writes: list[Location]) -> Finding:
    """A per-process or per-host ``CACHES``, with the code whose shared state it splits."""
    if finding.category != "settings" or not finding.message.startswith("CACHES") or not writes:
        return finding
    return finding._replace(related=(*finding.related, *writes))
