"""``S3Storage``'s options without boto3: horizontal's defaults, their bounds, and the
options a known S3 backend would be built with, read from the settings alone.

The one home of horizontal's S3 defaults: ``s3`` and ``s3_deadline`` (which need the
``s3`` extra) import them from here, and so do the deploy checks, which must not import
boto3 (about 60 ms of start-up) just to read a few options.

``resolve(backend, OPTIONS)`` gives what ``storages[alias]`` would hold for the classes
in ``RESOLVABLE_BACKENDS``, resolved as the installed django-storages does: ``OPTIONS``,
then a class attribute (these classes have none that shadow an option), then the
``AWS_*`` setting or the environment, then the class default. It answers ``None``
where building the storage would raise, and where it cannot know the answer without
building it (a CloudFront key, a ``client_config`` that is not a botocore ``Config``,
the deprecated ``use_threads=False``): callers then build the storage.
``tests/storage/test_s3_options.py`` holds it to the attributes of the really built
objects.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Callable, Mapping
from typing import Any

from django.conf import settings

from horizontal.storage.env import endpoint_from_env, region_from_env

__all__ = [
    "BOTOCORE_DEFAULT_TIMEOUT",
    "DEFAULT_CONNECT_TIMEOUT",
    "DEFAULT_DEADLINE",
    "DEFAULT_MAX_ATTEMPTS",
    "DEFAULT_READ_TIMEOUT",
    "EXPECT_CONTINUE_WAIT",
    "MAX_BACKOFF",
    "MIN_ATTEMPT_READ",
    "MULTIPART_CHUNK",
    "MULTIPART_THRESHOLD",
    "RESOLVABLE_BACKENDS",
    "ResolvedS3Options",
    "attempts_of",
    "bounded_read_timeout",
    "bounds_error",
    "horizontal_defaults",
    "resolve",
    "worst_case",
]

DEFAULT_CONNECT_TIMEOUT = 2.0
DEFAULT_READ_TIMEOUT = 5.0
DEFAULT_MAX_ATTEMPTS = 3
# One call, its retries included, never takes longer: below the 30-60 s idle timeout of
# common load balancers, with room for the rest of the request.
DEFAULT_DEADLINE = 10.0
# An attempt is started only if it can wait at least this long for its answer.
MIN_ATTEMPT_READ = 0.5
# botocore's longest backoff before retry n (throttling scale: 1 s * 2^(n-1), at most
# 20 s; other errors back off less). The deadline reserves this before allowing a retry.
MAX_BACKOFF = 20.0
# botocore's fixed wait for "100 Continue" before it sends an upload's body anyway.
EXPECT_CONTINUE_WAIT = 1.0
# botocore's connect and read timeout where a Config leaves them unset.
BOTOCORE_DEFAULT_TIMEOUT = 60.0
# One conditional PUT is one request; boto3 switches to multipart (create, parts,
# complete: 4+ requests) at 8 MiB, which costs more than it gains for uploads of this
# size on a nearby endpoint. Above this, multipart with parts of MULTIPART_CHUNK.
MULTIPART_THRESHOLD = 64 * 1024 * 1024
MULTIPART_CHUNK = 16 * 1024 * 1024

OURS = "ours"
UPSTREAM = "upstream"
# STORAGES backends resolved without importing them, and whose defaults they have. Any
# other path (a project's subclass may change class attributes) is built instead.
RESOLVABLE_BACKENDS: dict[str, str] = {
    "horizontal.storage.S3Storage": OURS,
    "horizontal.storage.s3.S3Storage": OURS,
    "storages.backends.s3.S3Storage": UPSTREAM,
    "storages.backends.s3boto3.S3Boto3Storage": UPSTREAM,
}
# What importing those classes needs: without one of them the backend cannot be
# built, and the checks treat it as they always did (not S3).
S3_EXTRA_PACKAGES = ("boto3", "botocore", "s3transfer", "storages")

# Every option django-storages' S3Storage accepts (its get_default_settings()).
UPSTREAM_OPTIONS = frozenset(
    {
        "access_key",
        "secret_key",
        "security_token",
        "session_profile",
        "file_overwrite",
        "object_parameters",
        "bucket_name",
        "querystring_auth",
        "querystring_expire",
        "signature_version",
        "location",
        "custom_domain",
        "cloudfront_key_id",
        "cloudfront_key",
        "addressing_style",
        "file_name_charset",
        "gzip",
        "gzip_content_types",
        "url_protocol",
        "endpoint_url",
        "proxies",
        "region_name",
        "use_ssl",
        "verify",
        "max_memory_size",
        "default_acl",
        "use_threads",
        "transfer_config",
        "client_config",
    }
)
# The options horizontal's S3Storage adds.
OWN_OPTIONS = frozenset(
    {
        "connect_timeout",
        "read_timeout",
        "max_attempts",
        "deadline",
        "conditional_writes",
        "deterministic_names",
    }
)
# botocore accepts these S3 addressing styles and raises for any other.
ADDRESSING_STYLES = frozenset({"virtual", "auto", "path", None})


def _setting(name: str, default: Any = None) -> Any:
    return getattr(settings, name, default)


def _env(*names: str) -> str | None:
    """django-storages' environment lookup: the first variable set and not empty."""
    return next((os.environ[name] for name in names if os.environ.get(name)), None)


def horizontal_defaults() -> dict[str, Any]:
    """What ``horizontal.storage.S3Storage`` changes in upstream's defaults, except
    ``transfer_config`` (a boto3 object; ``s3`` adds it)."""
    return {
        "file_overwrite": _setting("AWS_S3_FILE_OVERWRITE", False),
        "signature_version": _setting("AWS_S3_SIGNATURE_VERSION") or "s3v4",
        "region_name": _setting("AWS_S3_REGION_NAME") or region_from_env(),
        "endpoint_url": _setting("AWS_S3_ENDPOINT_URL") or endpoint_from_env(),
        "connect_timeout": DEFAULT_CONNECT_TIMEOUT,
        "read_timeout": DEFAULT_READ_TIMEOUT,
        "max_attempts": DEFAULT_MAX_ATTEMPTS,
        "deadline": DEFAULT_DEADLINE,
        "conditional_writes": True,
        "deterministic_names": False,
    }


def _upstream_defaults() -> dict[str, Callable[[], Any]]:
    """django-storages' defaults of the options read here (lazily: one is the
    environment, and the values of settings a check never reads are not needed)."""
    return {
        "access_key": lambda: _setting(
            "AWS_S3_ACCESS_KEY_ID",
            _setting("AWS_ACCESS_KEY_ID", _env("AWS_S3_ACCESS_KEY_ID", "AWS_ACCESS_KEY_ID")),
        ),
        "secret_key": lambda: _setting(
            "AWS_S3_SECRET_ACCESS_KEY",
            _setting(
                "AWS_SECRET_ACCESS_KEY",
                _env("AWS_S3_SECRET_ACCESS_KEY", "AWS_SECRET_ACCESS_KEY"),
            ),
        ),
        "session_profile": lambda: _setting(
            "AWS_S3_SESSION_PROFILE", _env("AWS_S3_SESSION_PROFILE")
        ),
        "file_overwrite": lambda: _setting("AWS_S3_FILE_OVERWRITE", True),
        "object_parameters": lambda: _setting("AWS_S3_OBJECT_PARAMETERS", {}),
        "location": lambda: _setting("AWS_LOCATION", ""),
        "cloudfront_key_id": lambda: _setting("AWS_CLOUDFRONT_KEY_ID"),
        "cloudfront_key": lambda: _setting("AWS_CLOUDFRONT_KEY"),
        "addressing_style": lambda: _setting("AWS_S3_ADDRESSING_STYLE"),
        "endpoint_url": lambda: _setting("AWS_S3_ENDPOINT_URL"),
        "region_name": lambda: _setting("AWS_S3_REGION_NAME"),
        "default_acl": lambda: _setting("AWS_DEFAULT_ACL", None),
        "client_config": lambda: _setting("AWS_S3_CLIENT_CONFIG", None),
        "use_threads": lambda: _setting("AWS_S3_USE_THREADS", True),
    }


# -- bounds of one call ------------------------------------------------------------------


def bounds_error(options: Mapping[str, Any]) -> str | None:
    """Why ``S3Storage`` refuses these timeouts, attempts and deadline, or ``None``."""
    for option in ("connect_timeout", "read_timeout", "max_attempts", "deadline"):
        value = options[option]
        if option == "deadline" and value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
            return f"S3Storage option {option} must be a positive number, got {value!r}"
    deadline = options["deadline"]
    shortest = options["connect_timeout"] + EXPECT_CONTINUE_WAIT + MIN_ATTEMPT_READ
    if deadline is not None and deadline < shortest:
        return (
            f"S3Storage option deadline ({deadline!r} s) leaves no time for one "
            f"attempt: give at least connect_timeout + {EXPECT_CONTINUE_WAIT:g} s + "
            f"{MIN_ATTEMPT_READ:g} s = {shortest:g} s, or None for no deadline"
        )
    return None


def bounded_read_timeout(read_timeout: float, connect_timeout: float, deadline: Any) -> float:
    """The read timeout ``S3Storage`` gives botocore: one whole attempt fits in the
    deadline, even where botocore cannot shorten a late attempt's read timeout."""
    read = float(read_timeout)
    if deadline is not None:
        read = min(read, deadline - connect_timeout - EXPECT_CONTINUE_WAIT)
    return read


def bounded_config_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """The botocore ``Config`` arguments ``S3Storage`` puts under the caller's."""
    return {
        "connect_timeout": float(options["connect_timeout"]),
        "read_timeout": bounded_read_timeout(
            options["read_timeout"], options["connect_timeout"], options["deadline"]
        ),
        "retries": {"mode": "standard", "total_max_attempts": int(options["max_attempts"])},
    }


def attempts_of(retries: Mapping[str, Any] | None) -> int:
    """Attempts per call under a botocore ``retries`` setting, the first one included."""
    retries = retries or {}
    if "total_max_attempts" in retries:
        return int(retries["total_max_attempts"])
    if "max_attempts" in retries:
        return int(retries["max_attempts"]) + 1
    return 3 if retries.get("mode", "legacy") == "standard" else 5


def worst_case(
    connect_timeout: float | None,
    read_timeout: float | None,
    attempts: int,
    deadline: float | None,
    per_request_read_timeout: Callable[[], bool],
) -> float:
    """Longest one S3 call can block (``s3_deadline.worst_case_seconds`` explains it).

    ``per_request_read_timeout`` (whether botocore can shorten a late attempt's read
    timeout) is asked only when the answer depends on it: it imports botocore.
    """
    connect = float(connect_timeout or BOTOCORE_DEFAULT_TIMEOUT)
    read = float(read_timeout or BOTOCORE_DEFAULT_TIMEOUT)
    backoff = sum(min(2.0**i, MAX_BACKOFF) for i in range(attempts - 1))
    one_attempt = connect + EXPECT_CONTINUE_WAIT + read
    unbounded = attempts * one_attempt + backoff
    if deadline is None:
        return unbounded
    if one_attempt <= deadline or per_request_read_timeout():
        return min(unbounded, deadline)
    # botocore waits out each attempt's whole read timeout: one may outlast the deadline.
    return min(unbounded, one_attempt)


def botocore_bounds_each_read() -> bool:
    """Whether this botocore honours a read timeout in a request's context
    (boto/botocore#3770), so that a late attempt can be given only what the deadline has
    left. Imports botocore: asked only when the answer matters."""
    from botocore.httpsession import URLLib3Session

    return hasattr(URLLib3Session, "_get_request_timeout")


# -- resolving a backend's options -------------------------------------------------------


class ResolvedS3Options:
    """What the deploy checks read of an S3 storage, named as its attributes are.

    A plain class: a dataclass would cost this module's import (every start-up that
    loads the checks) more than all the rest of it.
    """

    __slots__ = (
        "connect_timeout",
        "deadline",
        "default_acl",
        "deterministic_names",
        "endpoint_url",
        "file_overwrite",
        "object_parameters",
        "read_timeout",
        "refuses_overwrite",
        "region_name",
        "retries",
    )

    def __init__(
        self,
        *,
        file_overwrite: Any,
        endpoint_url: Any,
        region_name: Any,
        object_parameters: Any,
        default_acl: Any,
        deterministic_names: Any = False,
        refuses_overwrite: bool = False,
        deadline: Any = None,
        connect_timeout: Any = None,
        read_timeout: Any = None,
        retries: Any = None,
    ) -> None:
        self.file_overwrite = file_overwrite
        self.endpoint_url = endpoint_url
        self.region_name = region_name
        self.object_parameters = object_parameters
        self.default_acl = default_acl
        self.deterministic_names = deterministic_names
        self.refuses_overwrite = refuses_overwrite
        self.deadline = deadline
        # Of the botocore Config the storage would hold (None: botocore's default).
        self.connect_timeout = connect_timeout
        self.read_timeout = read_timeout
        self.retries = retries

    @property
    def worst_case_seconds(self) -> float:
        return worst_case(
            self.connect_timeout,
            self.read_timeout,
            attempts_of(self.retries),
            self.deadline,
            botocore_bounds_each_read,
        )


def _extra_installed() -> bool:
    return all(_importable(name) for name in S3_EXTRA_PACKAGES)


def _importable(name: str) -> bool:
    # find_spec of a top-level name looks in sys.modules, then on sys.path, and imports
    # nothing; what it cannot find (or a finder refuses) an import would not load.
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _botocore_config(value: Any) -> bool:
    """Whether ``value`` is a botocore ``Config`` (whose module is then loaded)."""
    module = sys.modules.get("botocore.config")
    return module is not None and isinstance(value, module.Config)


def resolve(backend: object, options: Mapping[str, Any]) -> ResolvedS3Options | None:
    """The options ``backend(**options)`` would have, or ``None``: not a resolvable
    backend, building it would raise, or only building it can tell (see the module doc)."""
    kind = RESOLVABLE_BACKENDS.get(backend) if isinstance(backend, str) else None
    if kind is None or not isinstance(options, Mapping) or not _extra_installed():
        return None
    accepted = UPSTREAM_OPTIONS | OWN_OPTIONS if kind == OURS else UPSTREAM_OPTIONS
    if not set(options) <= accepted:
        return None  # "Invalid setting": building raises ImproperlyConfigured
    upstream = _upstream_defaults()
    ours = horizontal_defaults() if kind == OURS else {}

    def value(name: str) -> Any:
        if name in options:
            return options[name]
        return ours[name] if name in ours else upstream[name]()

    if _refused_by_upstream(value):
        return None
    if kind == UPSTREAM:
        return _upstream_options(value)
    return _own_options(value)


def _refused_by_upstream(value: Callable[[str], Any]) -> bool:
    """Whether django-storages' ``__init__`` would raise, or need a CloudFront signer."""
    location = value("location")
    if not isinstance(location, str) or location.startswith("/"):
        return True
    if (value("access_key") or value("secret_key")) and value("session_profile"):
        return True
    if value("cloudfront_key_id") or value("cloudfront_key"):
        return True  # a mismatched pair raises; a pair loads a key: build it
    if value("use_threads") is False:
        return True  # a DeprecationWarning, an error under -W error: build it
    client_config = value("client_config")
    if client_config is None:
        return value("addressing_style") not in ADDRESSING_STYLES
    return not _botocore_config(client_config)


def _common(value: Callable[[str], Any], file_overwrite: Any) -> dict[str, Any]:
    return {
        "file_overwrite": file_overwrite,
        "endpoint_url": value("endpoint_url"),
        "region_name": value("region_name"),
        "object_parameters": value("object_parameters"),
        "default_acl": value("default_acl"),
    }


def _upstream_options(value: Callable[[str], Any]) -> ResolvedS3Options:
    client_config = value("client_config")
    # Without one, django-storages makes a Config with botocore's timeouts and retries.
    timeouts: dict[str, Any] = {}
    if client_config is not None:
        timeouts = {
            "connect_timeout": client_config.connect_timeout,
            "read_timeout": client_config.read_timeout,
            "retries": client_config.retries,
        }
    return ResolvedS3Options(**_common(value, value("file_overwrite")), **timeouts)


def _own_options(value: Callable[[str], Any]) -> ResolvedS3Options | None:
    own = {name: value(name) for name in OWN_OPTIONS}
    if bounds_error(own) is not None or int(own["max_attempts"]) < 1:
        return None  # ImproperlyConfigured, or botocore refuses total_max_attempts < 1
    bounded = bounded_config_options(own)
    client_config = value("client_config")
    if client_config is not None:
        # As S3Storage does: ours underneath, what the caller's Config set on top. The
        # caller's Config class is botocore's, already loaded by the settings.
        config_class = sys.modules["botocore.config"].Config
        merged = config_class(**bounded).merge(client_config)
        bounded = {
            "connect_timeout": merged.connect_timeout,
            "read_timeout": merged.read_timeout,
            "retries": merged.retries,
        }
    file_overwrite = True if own["deterministic_names"] else value("file_overwrite")
    return ResolvedS3Options(
        **_common(value, file_overwrite),
        deterministic_names=own["deterministic_names"],
        refuses_overwrite=not file_overwrite and bool(own["conditional_writes"]),
        deadline=own["deadline"],
        **bounded,
    )
