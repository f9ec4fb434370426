"""Deploy checks for file storage: ``horizontal.W060`` to ``W069`` (docs/checks.md).

Every ``STORAGES`` alias is looked at except ``staticfiles``: static files are built
into every identical image, and collectstatic overwriting them is intended. Backends
are matched by class (subclasses count). S3 options are read from the storage object
as Django builds it (``storages[alias]``), so ``OPTIONS``, ``AWS_*`` settings and the
environment are all taken into account exactly as at run time; building it does no
network I/O.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Tags, register
from django.core.checks import Warning as CheckWarning
from django.core.files.storage import FileSystemStorage, InMemoryStorage, storages
from django.utils.module_loading import import_string

STATIC_ALIAS = "staticfiles"
PUBLIC_ACLS = frozenset({"public-read", "public-read-write", "authenticated-read"})
# A request worker blocked longer than this by one S3 call is an outage, not a blip.
MAX_BLOCKING_SECONDS = 60.0
DOCS = "see docs/checks.md#file-storage-horizontalw060w069"

W060 = (
    "STORAGES[{alias!r}] is {backend}: files saved on one instance cannot be read "
    "through any other."
)
W060_HINT = (
    "Use horizontal.storage.S3Storage (STORAGES = storages_from_env() with "
    f"AWS_STORAGE_BUCKET_NAME set) or another shared store; {DOCS}."
)
W061 = (
    "STORAGES[{alias!r}] is S3 with file_overwrite=True: two instances saving the "
    "same name keep only the last one."
)
W061_HINT = f"Use horizontal.storage.S3Storage, or set OPTIONS file_overwrite=False; {DOCS}."
W062 = "STORAGES[{alias!r}] sets endpoint_url ({endpoint}) but no region_name."
W062_HINT = (
    "Set OPTIONS region_name (or AWS_S3_REGION_NAME / AWS_REGION): without it signed "
    f"URLs and SigV4 requests can fail with AuthorizationQueryParametersError; {DOCS}."
)
W063 = "STORAGES[{alias!r}] writes objects with the public ACL {acl!r}."
W063_HINT = (
    "Leave default_acl unset and drop ACL from object_parameters: objects stay private "
    f"and are served through signed URLs; {DOCS}."
)
W064 = (
    "STORAGES[{alias!r}] checks a name is free and then writes it: two instances "
    "saving the same name at once can still overwrite each other."
)
W064_HINT = (
    "Use horizontal.storage.S3Storage with conditional_writes=True (the default): the "
    f"write itself refuses an existing object; {DOCS}."
)
W065 = (
    "STORAGES[{alias!r}]: one S3 call can block a worker for up to {seconds:.0f} s "
    "when the endpoint stops answering."
)
W065_HINT = (
    "Use horizontal.storage.S3Storage (2 s connect, 5 s read, 3 attempts) or set "
    f"connect_timeout, read_timeout and retries in client_config; {DOCS}."
)


def _warning(template: str, hint: str, number: str, **values: Any) -> CheckWarning:
    return CheckWarning(template.format(**values), hint=hint, id=f"horizontal.{number}")


def _backend_class(alias: str) -> type | None:
    backend = settings.STORAGES[alias].get("BACKEND", "")
    try:
        found = import_string(backend)
    except ImportError:
        return None  # Django reports an unimportable backend when the storage is used
    return found if isinstance(found, type) else None


def _shared_aliases() -> Iterator[str]:
    """Aliases that application code writes to at run time."""
    yield from (alias for alias in settings.STORAGES if alias != STATIC_ALIAS)


def _s3_class() -> type | None:
    try:
        from storages.backends.s3 import S3Storage
    except ImportError:
        return None
    return S3Storage


def _s3_storages(aliases: Iterator[str] | list[str]) -> Iterator[tuple[str, Any]]:
    """(alias, storage object) for each alias whose backend is an S3Storage."""
    s3_class = _s3_class()
    if s3_class is None:
        return
    for alias in aliases:
        backend = _backend_class(alias)
        if backend is None or not issubclass(backend, s3_class):
            continue
        try:
            storage = storages[alias]
        except Exception:
            continue  # a broken configuration fails loudly at first use instead
        yield alias, storage


@register(Tags.files, "horizontal", deploy=True)
def check_local_storage(**kwargs: Any) -> list[CheckMessage]:
    messages: list[CheckMessage] = []
    for alias in _shared_aliases():
        backend = _backend_class(alias)
        if backend is not None and issubclass(backend, (FileSystemStorage, InMemoryStorage)):
            messages.append(
                _warning(W060, W060_HINT, "W060", alias=alias, backend=backend.__name__)
            )
    return messages


@register(Tags.files, "horizontal", deploy=True)
def check_s3_overwrite(**kwargs: Any) -> list[CheckMessage]:
    return [
        _warning(W061, W061_HINT, "W061", alias=alias)
        for alias, storage in _s3_storages(list(_shared_aliases()))
        if storage.file_overwrite
    ]


@register(Tags.files, "horizontal", deploy=True)
def check_s3_endpoint_region(**kwargs: Any) -> list[CheckMessage]:
    return [
        _warning(W062, W062_HINT, "W062", alias=alias, endpoint=storage.endpoint_url)
        for alias, storage in _s3_storages(list(settings.STORAGES))
        if storage.endpoint_url and not storage.region_name
    ]


def _public_acl(storage: Any) -> str | None:
    acls = [(storage.object_parameters or {}).get("ACL"), storage.default_acl]
    return next((acl for acl in acls if acl in PUBLIC_ACLS), None)


@register(Tags.files, "horizontal", deploy=True)
def check_s3_public_acl(**kwargs: Any) -> list[CheckMessage]:
    messages: list[CheckMessage] = []
    for alias, storage in _s3_storages(list(_shared_aliases())):
        acl = _public_acl(storage)
        if acl is not None:
            messages.append(_warning(W063, W063_HINT, "W063", alias=alias, acl=acl))
    return messages


@register(Tags.files, "horizontal", deploy=True)
def check_s3_check_then_write(**kwargs: Any) -> list[CheckMessage]:
    # Only when overwrite is off: with it on, W061 already names the bigger problem.
    return [
        _warning(W064, W064_HINT, "W064", alias=alias)
        for alias, storage in _s3_storages(list(_shared_aliases()))
        if not storage.file_overwrite and not getattr(storage, "refuses_overwrite", False)
    ]


@register(Tags.files, "horizontal", deploy=True)
def check_s3_timeouts(**kwargs: Any) -> list[CheckMessage]:
    messages: list[CheckMessage] = []
    for alias, storage in _s3_storages(list(settings.STORAGES)):
        # Imported only once an S3 storage is configured: without the [s3] extra there
        # is no boto3, and nothing to check.
        from horizontal.storage import worst_case_seconds

        seconds = worst_case_seconds(storage.client_config)
        if seconds > MAX_BLOCKING_SECONDS:
            messages.append(_warning(W065, W065_HINT, "W065", alias=alias, seconds=seconds))
    return messages
