"""Whether an address is this host: ``localhost``, loopback, the unspecified address, a
unix socket, an in-process transport. A service found there is per instance.

Both tools read it: the deploy checks judge the live settings (``live=True`` also takes
this machine's own name), the audit the values written in source.
Standard library only: the audit stays importable without Django.
"""

from __future__ import annotations

import functools
import ipaddress
import re
import socket
from collections.abc import Iterator, Mapping
from urllib.parse import urlsplit

__all__ = ["is_kept_here", "is_this_host", "this_host_addresses", "without_password"]

# Names and addresses that mean "this host": a service found there is per instance.
# ``localhost6`` (and ``localhost6.localdomain6``) is ``::1`` in RHEL and Fedora's hosts file.
LOCAL_HOST_NAMES = frozenset(
    {
        "localhost",
        "localhost.localdomain",
        "localhost6",
        "localhost6.localdomain6",
        "ip6-localhost",
        "ip6-loopback",
    }
)
SOCKET_SCHEMES = frozenset({"unix", "redis+socket", "socket", "rediss+socket"})
# Kombu's in-memory transport and Celery's in-memory result cache: this process only.
IN_PROCESS_SCHEMES = frozenset({"memory", "cache+memory"})


def is_this_host(host: str, *, live: bool = False) -> bool:
    """Whether a host name or IP address is this machine (loopback or unspecified; with
    ``live``, for a value built at run time, also this machine's own name: the static
    audit's verdict must not depend on the machine it runs on)."""
    # A trailing dot is the root zone: ``localhost.`` is ``localhost``.
    host = host.strip().strip("[]").lower().rstrip(".")
    if not host:
        return False
    if host in LOCAL_HOST_NAMES or host.endswith(".localhost"):
        return True
    address: ipaddress.IPv4Address | ipaddress.IPv6Address | None
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        address = _short_ipv4(host)
    if address is None:
        return live and host == _own_host_name()
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped  # ::ffff:127.0.0.1
    return address.is_loopback or address.is_unspecified


def _short_ipv4(host: str) -> ipaddress.IPv4Address | None:
    """The classic IPv4 forms every resolver accepts (``127.1``, ``0x7f.0.0.1``,
    ``2130706433``: ``inet_aton``'s), which ``ipaddress`` refuses."""
    if not _short_ipv4_form().fullmatch(host):
        return None
    try:
        return ipaddress.IPv4Address(socket.inet_aton(host))
    except OSError:
        return None


@functools.cache
def _short_ipv4_form() -> re.Pattern[str]:
    # Compiled on first use, here rather than through audit.patterns: every web worker
    # imports this module, and none should load the scanner's modules.
    return re.compile(r"(?:0x[0-9a-f]+|[0-9]+)(?:\.(?:0x[0-9a-f]+|[0-9]+)){0,3}")


@functools.cache
def _own_host_name() -> str:
    """This machine's name: an address built from ``socket.gethostname()`` is this host."""
    return socket.gethostname().lower()


DATABASE_SCHEMES = ("postgres", "postgis", "pgsql", "mysql", "mariadb")


@functools.cache
def _redis_host_port_db() -> re.Pattern[str]:
    # ``host:port:db``: django-redis's LOCATION before it took URLs (``127.0.0.1:6379:1``).
    # Compiled on first use, as ``_short_ipv4_form``.
    return re.compile(r"^([\w.-]+):\d+:(\d+|x)$")


def _address_host(text: str) -> str | None:
    """The host a service address names, ``""`` for a unix socket, None if unparsable."""
    text = text.strip()
    if not text:
        return None
    if text.startswith("unix:") or (text.startswith("/") and _socket_path(text)):
        return ""
    if "://" in text:
        try:
            parts = urlsplit(text)
            host = parts.hostname
        except ValueError:
            return None
        scheme = parts.scheme.lower()
        if scheme in SOCKET_SCHEMES or _file_scheme(scheme) or scheme in IN_PROCESS_SCHEMES:
            return ""
        if host is None:
            # redis:///0 or amqp:// with no host: the client's default, localhost;
            # postgres:///app or mysql:///app: the server's socket on this host (also
            # behind Celery's SQLAlchemy result store, ``db+postgresql:///celery``).
            if scheme.startswith(("redis", "amqp", "pyamqp", "librabbitmq")):
                return "localhost"
            database = scheme.removeprefix("db+").startswith(DATABASE_SCHEMES)
            return "" if database and text.count("/") >= 3 else None
        return host
    # host:port, [v6]:port, bare v6, or a host name (Memcached's LOCATION).
    if text.startswith("["):
        return text[1 : text.find("]")] if "]" in text else None
    if (old_form := _redis_host_port_db().match(text)) is not None:
        return old_form[1]  # django-redis's "127.0.0.1:6379:1" before URLs
    if text.count(":") > 1:
        return text
    # ":x@" (a piece of a URL being built) names no host; "" would mean a socket.
    return text.partition(":")[0] or None


def is_kept_here(address: str) -> bool:
    """A store in a file or in this process (``db+sqlite:///…``, ``filesystem://``,
    ``memory://``, a SQLite queue's file, ``/srv/huey.db``): there is no server to point
    at or to proxy."""
    text = address.strip()
    scheme, separator, _ = text.partition("://")
    if separator:
        return _file_scheme(scheme.lower()) or scheme.lower() in IN_PROCESS_SCHEMES
    # A bare path is a socket (``/var/run/redis/redis``) unless named as a database file.
    return text.startswith("/") and text.endswith((".db", ".sqlite", ".sqlite3"))


def _file_scheme(scheme: str) -> bool:
    """Celery's brokers and result stores in a local file: ``db+sqlite:``, ``filesystem:``."""
    return scheme.endswith("+sqlite") or scheme == "filesystem"


def _socket_path(text: str) -> bool:
    """``/run/redis/redis.sock``, ``/var/run/mysqld/``: a file path, not ``/`` or ``/vhost``."""
    return text.endswith((".sock", ".socket")) or text.strip("/").count("/") >= 1


@functools.cache
def _password_parameter() -> re.Pattern[str]:
    # A password given as a URL's parameter (``redis://localhost/0?password=…``).
    # Compiled on first use, as ``_short_ipv4_form``.
    return re.compile(r"(?i)([?&](?:password|passwd|pass)=)[^&#]*")


def without_password(address: str) -> str:
    """``address`` with the password of its user part masked (``redis://:***@localhost``,
    ``amqp://shop:***@localhost//``, ``?password=***``): what a check or the audit prints
    ends in CI logs. A lone user part is masked too: Redis URLs put the password there
    (``redis://s3cr3t@localhost``). The user part ends at the last ``@`` before the
    query, as URL parsers read it, so a password holding ``@`` or ``/`` is masked whole."""
    address = _password_parameter().sub(r"\1***", address)
    scheme, separator, rest = address.partition("://")
    if not separator:
        return address
    authority_and_path, query_mark, query = rest.partition("?")
    user_part, at, host_part = authority_and_path.rpartition("@")
    if not at:
        return address
    user, has_password, _ = user_part.partition(":")
    masked = f"{user}:***" if has_password else "***"
    return f"{scheme}://{masked}@{host_part}{query_mark}{query}"


def this_host_addresses(value: object, *, live: bool = False) -> Iterator[str]:
    """Each address in ``value`` (a URL, ``host:port``, a list of them, a channels_redis
    ``(host, port)`` pair or ``{"address": …}`` mapping, a comma-separated list) that
    points at this host or a unix socket; the address as written, its password masked."""
    if isinstance(value, str):
        # Several servers in one string: Django's caches split on ";" and ",", Celery's
        # failover brokers on ";", Memcached's and libpq's host lists on ",".
        for part in re.split("[;,]", value) if ";" in value or "," in value else [value]:
            host = _address_host(part)
            if host is not None and (host == "" or is_this_host(host, live=live)):
                yield without_password(part.strip())
    elif isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], str):
        if isinstance(value[1], int):
            if is_this_host(value[0], live=live):
                yield f"{value[0]}:{value[1]}"
            return
        for item in value:
            yield from this_host_addresses(item, live=live)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from this_host_addresses(item, live=live)
    elif isinstance(value, Mapping):
        for key in ("address", "url", "URL", "location", "LOCATION"):
            if key in value:
                yield from this_host_addresses(value[key], live=live)
        for key in ("sentinels", "SENTINELS"):  # [("localhost", 26379)]
            if key in value:
                yield from this_host_addresses(value[key], live=live)
        host = value.get("host", value.get("HOST"))
        if isinstance(host, str):
            host_name = _address_host(host)
            if host_name is not None and (host_name == "" or is_this_host(host_name, live=live)):
                yield without_password(host)
        socket_path = value.get("unix_socket_path", value.get("UNIX_SOCKET_PATH"))
        if isinstance(socket_path, str) and socket_path:
            yield socket_path
