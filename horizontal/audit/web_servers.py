"""Web server configs that serve uploads from this host's folder (nginx, Caddy, Apache).

A ``location /media/`` block that reads the files from a local ``alias`` or ``root``
answers 404 for an upload another instance received; so does Apache's ``Alias /media/
/srv/media/``, or ``ProxyPass /media/ !`` that leaves the path to the ``DocumentRoot``.
uWSGI's ``static-map`` is judged with the rest of a uWSGI config
(``deploy.find_in_server_config``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from horizontal.audit.deploy import MEDIA_MAP, UWSGI_SERVES_MEDIA
from horizontal.audit.findings import Finding, Location
from horizontal.audit.patterns import lazy_compile
from horizontal.audit.script_lines import Line, logical_lines

__all__ = [
    "MEDIA_FROM_DISK",
    "find_in_apache",
    "find_in_caddyfile",
    "find_in_nginx",
    "one_media_server",
]

MEDIA_FROM_DISK = (
    "the web server serves uploaded files from this host's folder: other instances have "
    "other files (serve them from the shared storage instead)"
)
# The block that maps a URL path (its path in group "path"), and what serves it from disk.
NGINX_LOCATION = lazy_compile(r"^location\s+(?:[=~^*]+\s*)?(?P<path>\S+)\s*\{?")
NGINX_FROM_DISK = lazy_compile(r"^(alias|root)\s")
CADDY_HANDLE = lazy_compile(r"^(handle_path|handle|route)\s+(?P<path>\S+)\s*\{")
CADDY_FROM_DISK = lazy_compile(r"^(file_server|root)\b")
# A build's own URL path, by a whole segment (``/assets/``, ``/static/``, ``/dist/``).
BUILT_PATH = lazy_compile(
    r"(^|/)(static|assets?|dist|build|css|js|fonts?)(/|\*|$)|favicon|robots", re.I
)
# An uploads folder by its own name, a word of it (``uploaded-files``, ``media``), not a
# piece of another word (``socialmedia``).
UPLOADS_FOLDER = lazy_compile(r"(?<![a-z])(media|uploads?|uploaded)(?![a-z])", re.I)


def _media_blocks_from_disk(
    path: str, text: str, block: re.Pattern[str], from_disk: re.Pattern[str]
) -> Iterator[Finding]:
    """A ``block`` for an uploads path (``MEDIA_MAP``) with ``from_disk`` directives
    inside it (nested braces counted): one finding, at the block's line, the directives
    that serve the folder (``file_server``, its ``root``) related."""
    opened: Line | None = None
    depth = inside_at = 0
    serving: list[Location] = []
    # Whether the open block's URL path names uploads (``/media/``); if not, the folder it
    # serves must (``location /extension-data/ { alias /srv/www/uploaded-files/; }``),
    # and a build's path (``/assets/``) serves none, whatever its folder is called.
    named = built = False
    for line in logical_lines(text):
        match = block.match(line.text)
        if match and (opened is None or not named):
            # An unnamed block holding this one is no uploads block: the inner one may be.
            opened, inside_at, serving = line, depth + 1, []
            named = bool(MEDIA_MAP.search(match.group("path")))
            built = not named and bool(BUILT_PATH.search(match.group("path")))
        elif opened is not None and depth >= inside_at and from_disk.match(line.text):
            serving.append(Location(path, line.number, line.text))
        depth += line.text.count("{") - line.text.count("}")
        if opened is not None and depth < inside_at:
            if _serves_uploads(serving, named, built):
                yield _served_from_disk(path, opened, serving)
            opened = None
    if opened is not None and _serves_uploads(serving, named, built):
        yield _served_from_disk(path, opened, serving)  # a block the file never closes


def _serves_uploads(serving: list[Location], named: bool, built: bool) -> bool:
    if named:
        return bool(serving)
    return not built and any(UPLOADS_FOLDER.search(_folder(place.source)) for place in serving)


def _folder(directive: str) -> str:
    """The last segment of the folder an ``alias``/``root`` directive serves."""
    return directive.split(None, 1)[-1].rstrip(" ;/}").rsplit("/", 1)[-1]


def _served_from_disk(path: str, block: Line, serving: list[Location]) -> Finding:
    return Finding(
        path, block.number, "file-write", MEDIA_FROM_DISK, block.text, related=tuple(serving)
    )


def find_in_nginx(path: str, text: str) -> Iterator[Finding]:
    """``location /media/ { alias /srv/media/; }``: uploads read from a local folder."""
    return _media_blocks_from_disk(path, text, NGINX_LOCATION, NGINX_FROM_DISK)


def find_in_caddyfile(path: str, text: str) -> Iterator[Finding]:
    """``handle_path /media/* { file_server { root /srv/media } }``."""
    return _media_blocks_from_disk(path, text, CADDY_HANDLE, CADDY_FROM_DISK)


# ``Alias /media/ /srv/app/media/``; ``ProxyPass /media/ !`` (not proxied: the
# ``DocumentRoot`` serves it).
APACHE_ALIAS = lazy_compile(r"^Alias(?:Match)?\s+[\"']?(?P<path>\S+?)[\"']?\s+\S", re.I)
APACHE_NOT_PROXIED = lazy_compile(r"^ProxyPass\s+[\"']?(?P<path>\S+?)[\"']?\s+!\s*$", re.I)
APACHE_DOCUMENT_ROOT = lazy_compile(r"^DocumentRoot\s", re.I)


def find_in_apache(path: str, text: str) -> Iterator[Finding]:
    """An Apache site that serves an uploads path (``MEDIA_MAP``) from a local folder."""
    lines = logical_lines(text)
    roots = [
        Location(path, line.number, line.text)
        for line in lines
        if APACHE_DOCUMENT_ROOT.match(line.text)
    ]
    for line in lines:
        alias = APACHE_ALIAS.match(line.text)
        if alias and MEDIA_MAP.search(alias.group("path")):
            yield Finding(path, line.number, "file-write", MEDIA_FROM_DISK, line.text)
        left = APACHE_NOT_PROXIED.match(line.text)
        if left and roots and MEDIA_MAP.search(left.group("path")):
            yield Finding(
                path, line.number, "file-write", MEDIA_FROM_DISK, line.text, related=tuple(roots)
            )


def one_media_server(findings: list[Finding], stores_files: bool = True) -> list[Finding]:
    """Uploads served from this host's folder are one cause however many server configs
    say so (a staging and a production nginx, uWSGI's ``static-map`` beside an nginx in
    front): one finding at the first, the others related. A project whose code stores no
    files (``feature_use.stores_files``) has no uploads there to miss: none."""
    serving = sorted(f for f in findings if f.message in {MEDIA_FROM_DISK, UWSGI_SERVES_MEDIA})
    if serving and not stores_files:
        return [f for f in findings if f not in serving]
    if len(serving) < 2:
        return findings
    first, rest = serving[0], serving[1:]
    related = tuple(
        place for f in rest for place in (Location(f.path, f.line, f.source), *f.related)
    )
    merged = first._replace(related=(*first.related, *related))
    return [merged if f is first else f for f in findings if f not in rest]
