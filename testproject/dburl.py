"""``DATABASE_URL`` → a Django ``DATABASES`` entry (the three vendors horizontal supports)."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit


def database_from_url(url: str) -> dict[str, Any]:
    parts = urlsplit(url)
    scheme = parts.scheme.split("+")[0]
    options = dict(parse_qsl(parts.query))
    if scheme == "sqlite":
        # sqlite:///relative/path or sqlite:////absolute/path
        path = unquote(parts.path[1:] if parts.path.startswith("//") else parts.path.lstrip("/"))
        if parts.path.startswith("//"):
            path = "/" + path.lstrip("/")
        return {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": path,
            # IMMEDIATE: a transaction takes the write lock when it begins, so two processes
            # never deadlock upgrading read locks; WAL lets readers run beside the writer.
            "OPTIONS": {
                "transaction_mode": "IMMEDIATE",
                "timeout": 20,
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            },
            "TEST": {"NAME": path.replace(".sqlite3", "") + "-test.sqlite3"},
            "CONN_MAX_AGE": _conn_max_age(options.get("conn_max_age", "0")),
        }
    common = {
        "NAME": unquote(parts.path.lstrip("/")),
        "USER": unquote(parts.username or ""),
        "PASSWORD": unquote(parts.password or ""),
        "HOST": parts.hostname or "",
        "PORT": str(parts.port or ""),
        "CONN_MAX_AGE": _conn_max_age(options.get("conn_max_age", "0")),
        "CONN_HEALTH_CHECKS": True,
    }
    if scheme in ("postgres", "postgresql"):
        return {
            **common,
            "ENGINE": "django.db.backends.postgresql",
            "OPTIONS": {"connect_timeout": int(options.get("connect_timeout", 5))},
        }
    if scheme in ("mysql", "mariadb"):
        return {
            **common,
            "ENGINE": "django.db.backends.mysql",
            "OPTIONS": {
                "charset": "utf8mb4",
                "connect_timeout": int(options.get("connect_timeout", 5)),
            },
        }
    raise ValueError(f"DATABASE_URL scheme {parts.scheme!r} is not sqlite, postgres or mysql")


def _conn_max_age(value: str) -> int | None:
    """``?conn_max_age=60`` keeps connections 60 s; ``none`` keeps them for good."""
    return None if value.lower() == "none" else int(value)


def use_pymysql() -> None:
    """Let Django's MySQL backend run on PyMySQL (pure Python, no client headers needed)."""
    import pymysql

    pymysql.version_info = (2, 2, 7, "final", 0)  # Django checks the mysqlclient version
    pymysql.install_as_MySQLdb()
