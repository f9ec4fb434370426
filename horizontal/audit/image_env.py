"""What a production image's ``ENV`` lines choose: a SQLite ``DATABASE_URL``, or any
single-box backend by its path (``ENV CHANNEL_LAYERS_BACKEND=channels.layers.
InMemoryChannelLayer``) or cache URL (``locmemcache://``). Every replica of the image
starts with that value; ``dockerfiles.find_in_dockerfile`` reports it as a settings finding.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from horizontal.audit import known
from horizontal.audit.findings import Finding
from horizontal.audit.patterns import lazy_compile

__all__ = ["single_box_environment", "single_box_values"]

# ENV DATABASE_URL="sqlite:////data/app.db": the image points every replica at its own file.
DATABASE_URL_NAME = lazy_compile(r"^([A-Z0-9]+_)*(DATABASE|DB)_(URL|URI)$|^(CELERY_)?BROKER_URL$")
SQLITE_URL = lazy_compile(r"^[\"']?(sqlite|spatialite|sqla\+sqlite|db\+sqlite):", re.I)
ENV_PAIR = lazy_compile(r"([A-Za-z_]\w*)=(\"[^\"]*\"|'[^']*'|\S+)")
SQLITE_SET = (
    "{setter} sets {name} to SQLite: each replica has its own database file on its own disk"
)
# The backends an image's environment can choose that only work on one box: caches,
# session engines, upload storages, databases, channel layers, task backends, email.
IMAGE_BACKENDS = {
    backend.path: backend
    for backend in (
        *known.LOCMEM_CACHES,
        *known.FILE_CACHES,
        *known.DUMMY_CACHES,
        *known.FILE_SESSION_ENGINES,
        *known.LOCAL_STORAGES,
        *known.SQLITE_ENGINES,
        *known.IN_MEMORY_CHANNEL_LAYERS,
        *known.IMMEDIATE_TASKS,
        *known.DUMMY_TASKS,
        *known.FILE_EMAIL_BACKENDS,
    )
}


def single_box_environment(path: str, number: int, text: str) -> Iterator[Finding]:
    """The settings finding of one ``ENV`` line (``text``, at line ``number``), if any."""
    return single_box_values(path, number, text, _env_pairs(text), "the image")


def single_box_values(
    path: str, number: int, text: str, pairs: list[tuple[str, str]], setter: str
) -> Iterator[Finding]:
    """The settings finding of the variables one line sets (``setter``: who sets them for
    every replica, ``the image`` or a compose stack's service), if any."""
    for name, value in pairs:
        if DATABASE_URL_NAME.match(name) and SQLITE_URL.match(value) and ":memory:" not in value:
            yield Finding(
                path,
                number,
                "settings",
                SQLITE_SET.format(setter=setter, name=name),
                text,
                fix_text=f"Leave {name} out of {setter}'s environment and "
                "set it at deploy time to the PostgreSQL or MySQL server every replica shares "
                "(horizontal.W030).",
            )
            return
    for name, value in pairs:
        backend = IMAGE_BACKENDS.get(value) or known.cache_url_backend(value)
        if backend is not None:
            yield Finding(
                path,
                number,
                "settings",
                f"{setter} sets {name} to {backend.path}: {backend.why}",
                text,
                fix_text=f"Leave {name} out of {setter}'s environment, "
                f"or set it to a backend every replica shares ({backend.setting}: see the "
                "horizontal.W0xx checks).",
            )
            return


def _env_pairs(text: str) -> list[tuple[str, str]]:
    """An ``ENV`` line's variables and values (``ENV A=1 B="x"``, or ``ENV A 1``)."""
    rest = text.split(None, 1)[1] if " " in text else ""
    pairs = ENV_PAIR.findall(rest) or ([tuple(rest.split(None, 1))] if " " in rest else [])
    return [(str(name), str(value).strip("\"'")) for name, value in pairs]
