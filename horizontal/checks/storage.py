"""Deploy checks for file storage: ``horizontal.W060`` to ``W069`` (docs/checks.md).

Every ``STORAGES`` alias is looked at except ``staticfiles``: static files are built
into every identical image, and collectstatic overwriting them is intended. Nor is
django-compressor's alias by W060: W067 judges it, with whether compression happens on
request (local output then breaks) or at build time (it is static files). Backends
are matched by class (subclasses count; the local ones are the catalogue's,
``horizontal.audit.known``).

S3 options are those the storage has at run time: ``OPTIONS``, then ``AWS_*`` settings
and the environment, then the class defaults. For a backend that is exactly one of the
known S3 classes (``horizontal.storage.S3Storage``, django-storages' ``S3Storage`` and
``S3Boto3Storage``) they are resolved from the settings as django-storages resolves
them (``horizontal.storage.s3_options.resolve``), without importing boto3, which would
cost ``check --deploy`` some 60 ms of start-up. Any other S3 backend (a project's
subclass may change class attributes), and the rare configuration only building can
tell, is built as Django builds it (``storages[alias]``), which does no network I/O.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from django.apps import AppConfig, apps
from django.conf import DEFAULT_STORAGE_ALIAS, settings
from django.core import checks
from django.core.checks import CheckMessage, Tags
from django.core.files.storage import storages

from horizontal.audit import known
from horizontal.checks._base import TAG, register
from horizontal.checks._classes import import_class, is_a, is_overridden
from horizontal.storage.env import (
    BOTOCORE_ENDPOINT_VARIABLES,
    BOTOCORE_REGION_VARIABLES,
    first_set,
)
from horizontal.storage.s3_options import RESOLVABLE_BACKENDS, ResolvedS3Options, resolve

__all__ = [
    "I060",
    "LOCAL_STORAGES",
    "W060",
    "W061",
    "W062",
    "W063",
    "W064",
    "W065",
    "W066",
    "W067",
    "check_compressor_output",
    "check_local_storage",
    "check_s3_check_then_write",
    "check_s3_endpoint_on_this_host",
    "check_s3_endpoint_region",
    "check_s3_overwrite",
    "check_s3_public_acl",
    "check_s3_timeouts",
]

STATIC_ALIAS = "staticfiles"
LOCAL_STORAGES = known.paths(known.LOCAL_STORAGES)
COMPRESSOR_LOCAL_OUTPUT = known.paths(known.COMPRESSOR_LOCAL_OUTPUT)
# django-compressor's defaults (compressor/settings.py): its alias, and the storage it
# falls back to when STORAGES has no such alias (the only way before its 4.5).
COMPRESSOR_ALIAS = "compressor"
COMPRESSOR_STORAGE = COMPRESSOR_LOCAL_OUTPUT[0]
# django-storages' class; ours and S3Boto3Storage subclass it.
S3_STORAGE_MODULE = "storages.backends.s3"
S3_STORAGES = (f"{S3_STORAGE_MODULE}.S3Storage",)
PUBLIC_ACLS = frozenset({"public-read", "public-read-write", "authenticated-read"})
# A request worker blocked longer than this by one S3 call is an outage, not a blip.
MAX_BLOCKING_SECONDS = 60.0


# -- messages ----------------------------------------------------------------------------


def W060(alias: str, backend: type, legacy: str = "") -> checks.Warning:
    return checks.Warning(
        f"STORAGES[{alias!r}] is {backend.__name__}: files saved on one instance cannot be "
        "read through any other.",
        hint=legacy
        + (
            "Use horizontal.storage.S3Storage (STORAGES = horizontal.storage."
            "storages_from_env() with AWS_STORAGE_BUCKET_NAME set) or another store every "
            "instance reads."
        ),
        obj=f"STORAGES[{alias!r}]",
        id="horizontal.W060",
    )


def I060(alias: str, backend: type, legacy: str = "") -> checks.Info:
    return checks.Info(
        f"STORAGES[{alias!r}] is Django's implicit {backend.__name__}; no file is stored.",
        hint=legacy
        + (
            "Nothing to do while nothing is uploaded or saved; before the first file field "
            "or default_storage write, set STORAGES = horizontal.storage.storages_from_env()."
        ),
        obj=f"STORAGES[{alias!r}]",
        id="horizontal.I060",
    )


def W061(alias: str) -> checks.Warning:
    return checks.Warning(
        f"STORAGES[{alias!r}] is S3 with file_overwrite=True: two instances saving the "
        "same name keep only the last one.",
        hint=(
            "Use horizontal.storage.S3Storage (never overwrites), or set OPTIONS "
            "file_overwrite=False. A thumbnail cache that rewrites the same names on "
            "purpose: horizontal.storage.S3Storage with deterministic_names=True."
        ),
        obj=f"STORAGES[{alias!r}]",
        id="horizontal.W061",
    )


def W062(alias: str, endpoint: str) -> checks.Warning:
    from horizontal.audit.this_host import without_password  # not at start-up

    return checks.Warning(
        f"STORAGES[{alias!r}] sets endpoint_url ({without_password(endpoint)}) but no region_name.",
        hint=(
            "Set OPTIONS region_name (or AWS_S3_REGION_NAME / AWS_REGION): without it signed "
            "URLs and SigV4 requests can fail with AuthorizationQueryParametersError."
        ),
        obj=f"STORAGES[{alias!r}]",
        id="horizontal.W062",
    )


def W063(alias: str, acl: str) -> checks.Warning:
    return checks.Warning(
        f"STORAGES[{alias!r}] writes objects with the public ACL {acl!r}.",
        hint=(
            "Leave default_acl unset and drop ACL from object_parameters: objects stay "
            "private and are served through signed URLs. Serve public assets from "
            "staticfiles."
        ),
        obj=f"STORAGES[{alias!r}]",
        id="horizontal.W063",
    )


def W064(alias: str) -> checks.Warning:
    return checks.Warning(
        f"STORAGES[{alias!r}] checks a name is free and then writes it: two instances "
        "saving the same name at once can still overwrite each other.",
        hint=(
            "Use horizontal.storage.S3Storage with conditional_writes=True (the default): "
            "the write itself refuses an existing object. Only if your server rejects "
            "If-None-Match: unique upload_to paths, and silence this id."
        ),
        obj=f"STORAGES[{alias!r}]",
        id="horizontal.W064",
    )


def W065(alias: str, seconds: float) -> checks.Warning:
    return checks.Warning(
        f"STORAGES[{alias!r}]: one S3 call can block a worker for up to {seconds:.0f} s "
        "when the endpoint stops answering.",
        hint=(
            "Use horizontal.storage.S3Storage (2 s connect, 5 s read, 3 attempts, 10 s "
            "deadline per call), or lower connect_timeout, read_timeout and retries in "
            "client_config."
        ),
        obj=f"STORAGES[{alias!r}]",
        id="horizontal.W065",
    )


def W066(alias: str, endpoint: str) -> checks.Warning:
    from horizontal.audit.this_host import without_password  # not at start-up

    return checks.Warning(
        f"STORAGES[{alias!r}] is an object store on this host ({without_password(endpoint)}): "
        "each instance keeps its own uploads.",
        hint=(
            "Point endpoint_url at the object store every instance shares. Behind a sidecar "
            "proxy to it, silence horizontal.W066."
        ),
        obj=f"STORAGES[{alias!r}]",
        id="horizontal.W066",
    )


def W067(storage: str) -> checks.Warning:
    return checks.Warning(
        "django-compressor writes its output on request (COMPRESS_OFFLINE is off, or "
        f"COMPRESS_PRECOMPILERS compile) into {storage}, a folder on this host: a page one "
        "instance renders links CSS and JS that only that instance wrote, a 404 through "
        "every other.",
        hint=(
            "Set COMPRESS_OFFLINE = True and run 'manage.py compress' when the image is "
            "built, after collectstatic; or send the output to storage every instance "
            "shares (COMPRESS_STORAGE, or STORAGES['compressor'])."
        ),
        obj="COMPRESS_OFFLINE",
        id="horizontal.W067",
    )


# -- helpers -----------------------------------------------------------------------------


def _project_templates() -> Iterator[Path]:
    """The template files of ``TEMPLATES`` ``DIRS`` and of the project's own apps
    (installed packages are theirs to configure), as the audit reads a tree's."""
    from horizontal.audit.compressor import is_template
    from horizontal.checks.code import project_app_paths

    folders: list[Path] = []
    for config in settings.TEMPLATES:
        dirs = config.get("DIRS") if isinstance(config, Mapping) else None
        if isinstance(dirs, list | tuple):
            folders += [Path(folder) for folder in dirs]
    for app in project_app_paths():
        folders += [app / "templates", app / "jinja2"]
    for folder in folders:
        if folder.is_dir():
            for path in sorted(folder.rglob("*")):
                if is_template(path.name) and path.is_file():
                    yield path


def _compressor_alias() -> str | None:
    """The ``STORAGES`` alias django-compressor writes through, if it is installed."""
    if not apps.is_installed(known.COMPRESSOR_APP):
        return None
    return str(getattr(settings, "COMPRESS_STORAGE_ALIAS", COMPRESSOR_ALIAS))


def _backend(alias: str) -> object:
    return settings.STORAGES[alias].get("BACKEND", "")


def _shared_aliases() -> list[str]:
    """Aliases that application code writes to at run time."""
    return [alias for alias in settings.STORAGES if alias != STATIC_ALIAS]


def _s3_storages(aliases: Iterable[str]) -> Iterator[tuple[str, Any]]:
    """(alias, its S3 options) for each alias whose backend is an S3Storage: resolved
    from the settings for a known class, else the storage object itself."""
    for alias in aliases:
        backend = _backend(alias)
        resolved = resolve(backend, settings.STORAGES[alias].get("OPTIONS", {}))
        if resolved is not None:
            yield alias, resolved
            continue
        if not _is_s3(backend):
            continue
        try:
            storage = storages[alias]
        except Exception:
            continue  # a broken configuration fails loudly at first use instead
        yield alias, storage


def _is_s3(backend: object) -> bool:
    """Whether ``backend`` is django-storages' S3Storage or a subclass."""
    if isinstance(backend, str):
        if backend in S3_STORAGES:
            return True
        backend = import_class(backend)
    # A subclass has imported the module S3Storage is defined in; while it is not
    # loaded, no class is one, and importing it (boto3) would only confirm that.
    if S3_STORAGE_MODULE not in sys.modules:
        return False
    return is_a(backend, S3_STORAGES)


def _worst_case_seconds(options: Any) -> float:
    if isinstance(options, ResolvedS3Options):
        return options.worst_case_seconds
    # A built storage: boto3 is loaded, and so can be this (without the [s3] extra no
    # S3 storage can be built, and there is nothing to check).
    from horizontal.storage import worst_case_seconds

    # Ours bounds a call by its deadline too; upstream's has none.
    return worst_case_seconds(options.client_config, getattr(options, "deadline", None))


def _endpoint(storage: Any) -> str | None:
    """The endpoint a storage's client uses: its own, else the one botocore reads from
    the environment (AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL) when given none."""
    endpoint = storage.endpoint_url
    return (
        endpoint
        if isinstance(endpoint, str) and endpoint
        else first_set(BOTOCORE_ENDPOINT_VARIABLES)
    )


def _public_acl(storage: Any) -> str | None:
    acls = [(storage.object_parameters or {}).get("ACL"), storage.default_acl]
    return next((acl for acl in acls if acl in PUBLIC_ACLS), None)


# -- checks ------------------------------------------------------------------------------


@register(Tags.files, TAG, deploy=True)
def check_local_storage(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    messages: list[CheckMessage] = []
    compressor = _compressor_alias()
    for alias in _shared_aliases():
        if alias == compressor and alias != DEFAULT_STORAGE_ALIAS:
            continue  # W067's (uploads through "default" stay W060's)
        backend = _backend(alias)
        if isinstance(backend, str) and backend in RESOLVABLE_BACKENDS:
            continue  # S3, known without importing it (boto3)
        # The class itself, for its name in the message; unimportable is Django's to report.
        found = import_class(backend) if isinstance(backend, str) else None
        if found is not None and is_a(found, LOCAL_STORAGES):
            implicit = alias == DEFAULT_STORAGE_ALIAS and not is_overridden("STORAGES")
            legacy = _ignored_legacy_setting() if implicit else ""
            if implicit and not _files_stored(app_configs):
                # A default the project never leans on, as the audit judges it: a note.
                messages.append(I060(alias, found, legacy))
            else:
                messages.append(W060(alias, found, legacy))
    return messages


def _ignored_legacy_setting() -> str:
    """What to say of ``DEFAULT_FILE_STORAGE`` left in the settings: Django 5.1 removed
    it, so the S3 storage it names is not the one files go to."""
    legacy = getattr(settings, "DEFAULT_FILE_STORAGE", None)
    if not legacy:
        return ""
    return (
        f"DEFAULT_FILE_STORAGE ({legacy}) is ignored since Django 5.1: set "
        "STORAGES['default'] instead. "
    )


def _files_stored(app_configs: Iterable[AppConfig] | None) -> bool:
    """Whether the project stores files: an installed app that keeps uploads (wagtail's
    images, filer, …) or its own code (a file field, ``default_storage``,
    ``MEDIA_ROOT``, an upload app imported); with no project code to read, assume it does."""
    from horizontal.audit.feature_use import UPLOAD_APPS
    from horizontal.checks.code import project_code_uses

    if UPLOAD_APPS.search(repr(list(settings.INSTALLED_APPS))):
        return True
    uses = project_code_uses(app_configs)
    return uses is None or uses.stores_files


@register(Tags.files, TAG, deploy=True)
def check_s3_overwrite(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    # deterministic_names: a cache (thumbnails) that rewrites its own names on purpose.
    return [
        W061(alias)
        for alias, storage in _s3_storages(_shared_aliases())
        if storage.file_overwrite and not getattr(storage, "deterministic_names", False)
    ]


@register(Tags.files, TAG, deploy=True)
def check_s3_endpoint_region(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    # botocore reads AWS_REGION / AWS_DEFAULT_REGION itself when a client is given none.
    region_from_environment = first_set(BOTOCORE_REGION_VARIABLES)
    messages: list[CheckMessage] = []
    for alias, storage in _s3_storages(settings.STORAGES):
        endpoint = _endpoint(storage)
        if endpoint and not (storage.region_name or region_from_environment):
            messages.append(W062(alias, endpoint))
    return messages


@register(Tags.files, TAG, deploy=True)
def check_s3_public_acl(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    messages: list[CheckMessage] = []
    for alias, storage in _s3_storages(_shared_aliases()):
        acl = _public_acl(storage)
        if acl is not None:
            messages.append(W063(alias, acl))
    return messages


@register(Tags.files, TAG, deploy=True)
def check_s3_check_then_write(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    # Only when overwrite is off: with it on, W061 already names the bigger problem.
    return [
        W064(alias)
        for alias, storage in _s3_storages(_shared_aliases())
        if not storage.file_overwrite and not getattr(storage, "refuses_overwrite", False)
    ]


@register(Tags.files, TAG, deploy=True)
def check_s3_timeouts(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    messages: list[CheckMessage] = []
    for alias, options in _s3_storages(list(settings.STORAGES)):
        seconds = _worst_case_seconds(options)
        if seconds > MAX_BLOCKING_SECONDS:
            messages.append(W065(alias, seconds))
    return messages


@register(Tags.files, TAG, deploy=True)
def check_s3_endpoint_on_this_host(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    # A MinIO beside each instance is a local disk with an S3 API: uploads stay on it.
    from horizontal.audit.this_host import this_host_addresses  # not at start-up

    messages: list[CheckMessage] = []
    for alias, storage in _s3_storages(_shared_aliases()):
        endpoint = _endpoint(storage)
        if endpoint and next(this_host_addresses(endpoint, live=True), None):
            messages.append(W066(alias, endpoint))
    return messages


@register(Tags.files, TAG, deploy=True)
def check_compressor_output(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    alias = _compressor_alias()
    if alias is None:
        return []
    # django-compressor's own defaults (on unless DEBUG, not offline). Imported here:
    # only a project with the app installed asks.
    from horizontal.audit.compressor import templates_use_compress, writes_on_request

    if not writes_on_request(
        enabled=bool(getattr(settings, "COMPRESS_ENABLED", not settings.DEBUG)),
        offline=bool(getattr(settings, "COMPRESS_OFFLINE", False)),
        precompiles=bool(getattr(settings, "COMPRESS_PRECOMPILERS", ())),
    ):
        return []
    config = settings.STORAGES.get(alias)
    if isinstance(config, Mapping):
        backend = config.get("BACKEND", "")
    else:
        backend = getattr(settings, "COMPRESS_STORAGE", COMPRESSOR_STORAGE)
    if not is_a(backend, (*COMPRESSOR_LOCAL_OUTPUT, *LOCAL_STORAGES)):
        return []
    # No template uses {% compress %}: nothing is compressed, on request or ever.
    if templates_use_compress(_project_templates()) is False:
        return []
    return [W067(backend if isinstance(backend, str) else backend.__name__)]
