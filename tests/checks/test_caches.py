"""Deploy warnings W001-W005 (horizontal/checks/caches.py), from the SHARED baseline."""

from __future__ import annotations

import ast
import functools
import socket
import sys
import types
import uuid
from pathlib import Path

import pytest
from django.conf import global_settings
from django.core import checks
from django.test import override_settings

from horizontal.checks import caches as cache_checks
from tests.checks.baseline import (
    LOCMEM,
    REDIS,
    assert_follows_the_contract,
    assert_registered_deploy_only,
    deploy_ids,
    deploy_messages,
    shared_settings,
)


def test_the_shared_baseline_is_clean() -> None:
    assert deploy_ids() == []


def test_locmem_cache_is_w001() -> None:
    assert deploy_ids(CACHES={"default": LOCMEM}) == ["horizontal.W001"]


def test_one_warning_per_offending_alias() -> None:
    caches = {"default": REDIS, "l1": LOCMEM, "pages": LOCMEM}
    assert deploy_ids(CACHES=caches) == ["horizontal.W001", "horizontal.W001"]


def test_a_locmem_alias_named_for_the_process_is_left_alone() -> None:
    # Per instance on purpose, as if listed in HORIZONTAL_LOCAL_CACHES; the audit agrees.
    caches = {"default": REDIS, "local-memory": LOCMEM, "locmem": LOCMEM, "pages": LOCMEM}
    assert deploy_ids(CACHES=caches) == ["horizontal.W001"]
    assert deploy_ids(CACHES={"default": LOCMEM, "process": LOCMEM}) == ["horizontal.W001"]


def test_locmem_subclass_is_w001() -> None:
    caches = {"default": {"BACKEND": "tests.checks.backends.MeteredLocMemCache"}}
    assert deploy_ids(CACHES=caches) == ["horizontal.W001"]


def test_file_cache_is_w002() -> None:
    caches = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": "/var/tmp/cache",
        }
    }
    assert deploy_ids(CACHES=caches) == ["horizontal.W002"]


def test_diskcache_is_w002_by_its_path() -> None:
    # python-diskcache keeps entries in files on this host; known by its path, so the
    # warning does not need the package installed.
    caches = {"default": {"BACKEND": "diskcache.DjangoCache", "LOCATION": "/var/tmp/cache"}}
    assert deploy_ids(CACHES=caches) == ["horizontal.W002"]
    assert "DjangoCache" in cache_checks.W002("default", "diskcache.DjangoCache").msg


def test_dummy_cache_is_w003() -> None:
    caches = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}
    assert deploy_ids(CACHES=caches) == ["horizontal.W003"]


def test_local_caches_setting_excuses_a_deliberate_per_instance_alias() -> None:
    caches = {"default": REDIS, "l1": LOCMEM}
    assert deploy_ids(CACHES=caches, HORIZONTAL_LOCAL_CACHES=["l1"]) == []


def test_database_and_memcached_caches_are_shared() -> None:
    caches = {
        "default": {"BACKEND": "django.core.cache.backends.db.DatabaseCache"},
        "memcached": {"BACKEND": "django.core.cache.backends.memcached.PyMemcacheCache"},
        "redis": {"BACKEND": "django.core.cache.backends.redis.RedisCache"},
    }
    assert deploy_ids(CACHES=caches) == []


def test_unimportable_backend_is_not_a_crash_and_not_a_guess() -> None:
    caches = {"default": {"BACKEND": "not_installed_anywhere.cache.FastCache"}}
    assert deploy_ids(CACHES=caches) == []


def test_explicit_locmem_hint_offers_the_opt_out() -> None:
    # override_settings cannot unset a setting, so Django's implicit default (no CACHES
    # at all) is covered end to end by test_project.py on testproject's dev settings.
    with override_settings(CACHES=global_settings.CACHES):
        [warning] = cache_checks.check_locmem_caches()
    assert warning.id == "horizontal.W001"
    assert "HORIZONTAL_LOCAL_CACHES" in (warning.hint or "")


def test_every_check_is_registered_deploy_only() -> None:
    assert_registered_deploy_only(cache_checks)


@pytest.mark.parametrize(
    "message",
    [
        cache_checks.W001("default", implicit=True),
        cache_checks.W001("default", implicit=False),
        cache_checks.W002("default"),
        cache_checks.W003("default"),
    ],
    ids=lambda m: m.id,
)
def test_message_follows_the_contract(message: checks.CheckMessage) -> None:
    assert_follows_the_contract(message)


# -- W004: a shared backend on this host; W005: a namespace of its own per instance ------


def _redis_at(location: object, **extra: object) -> dict[str, object]:
    return {"default": {**REDIS, "LOCATION": location, **extra}}


@pytest.mark.parametrize(
    "location",
    [
        "redis://localhost:6379/0",
        "redis://127.0.0.1:6379/1",
        "rediss://[::1]:6380/0",
        "unix:///run/redis/redis.sock?db=0",
        ["redis://cache.internal:6379/0", "redis://127.0.0.2:6379/0"],
        # Several servers in one string (Django splits on ";" and ","): any one local.
        "redis://cache.internal:6379/1,redis://127.0.0.1:6379/1",
        "redis://cache.internal:6379/1;redis://localhost:6379/1",
        "redis://[::ffff:127.0.0.1]:6379/0",
        f"redis://{socket.gethostname()}:6379/0",
        # Spellings a resolver takes for loopback: inet_aton's short form, the root zone.
        "redis://127.1:6379/1",
        "redis://localhost.:6379/1",
        # ``::1`` by name in RHEL and Fedora's hosts file.
        "redis://localhost6:6379/1",
    ],
)
def test_a_shared_cache_addressed_as_this_host_is_w004(location: object) -> None:
    assert deploy_ids(CACHES=_redis_at(location)) == ["horizontal.W004"]


@pytest.mark.parametrize(
    ("location", "shown"),
    [
        ("rediss://:s3cr3t@127.0.0.1:6380/0", "rediss://:***@127.0.0.1:6380/0"),
        ("redis://shop:s3cr3t@localhost:6379/0", "redis://shop:***@localhost:6379/0"),
        ("redis://s3cr3t@localhost:6379/0", "redis://***@localhost:6379/0"),
        ("redis://localhost:6379/0?password=s3cr3t", "redis://localhost:6379/0?password=***"),
        # A password holding "@" or "/": the user part ends at the last "@".
        ("redis://:s3cr3t@x@localhost:6379/0", "redis://:***@localhost:6379/0"),
        ("redis://:s3cr3t/x@localhost:6379/0", "redis://:***@localhost:6379/0"),
    ],
)
def test_w004_masks_the_password_of_the_address_it_names(location: str, shown: str) -> None:
    # What the check prints ends in CI logs.
    [message] = [m for m in deploy_messages(CACHES=_redis_at(location)) if m.id.endswith("W004")]
    assert shown in f"{message.msg} {message.hint}"
    assert "s3cr3t" not in f"{message.msg} {message.hint}"


def test_django_redis_sentinels_on_this_host_are_w004() -> None:
    sentinels = {"SENTINELS": [("localhost", 26379)]}
    caches = _redis_at("redis://mymaster/0", OPTIONS=sentinels)
    assert deploy_ids(CACHES=caches) == ["horizontal.W004"]
    # The hint names where the address is written, not LOCATION (a master's name).
    [message] = [m for m in deploy_messages(CACHES=caches) if m.id == "horizontal.W004"]
    assert message.hint.startswith("OPTIONS['SENTINELS'] localhost:26379 is this host")
    remote = _redis_at("redis://mymaster/0", OPTIONS={"SENTINELS": [("sentinel.internal", 26379)]})
    assert deploy_ids(CACHES=remote) == []


@pytest.mark.parametrize(
    "location",
    [
        "127.0.0.1:11211",
        "unix:/tmp/memcached.sock",
        "localhost:11211",
        "memcached-0.internal:11211;127.0.0.1:11211",
    ],
)
def test_memcached_on_this_host_is_w004(location: str) -> None:
    caches = {
        "default": {
            "BACKEND": "django.core.cache.backends.memcached.PyMemcacheCache",
            "LOCATION": location,
        }
    }
    assert deploy_ids(CACHES=caches) == ["horizontal.W004"]


@pytest.mark.parametrize(
    "location",
    [
        "redis://cache.internal:6379/0",
        "redis://10.0.4.7:6379/0",
        "memcached-0.memcached:11211",
        "memcached-0.internal:11211;memcached-1.internal:11211",
        "redis://cache-0.internal:6379/1,redis://cache-1.internal:6379/1",
        "redis://10.1:6379/1",  # 10.0.0.1 in inet_aton's short form
    ],
)
def test_a_shared_cache_on_another_host_is_silent(location: str) -> None:
    assert deploy_ids(CACHES=_redis_at(location)) == []


def test_a_cache_table_named_like_a_host_is_not_an_address() -> None:
    caches = {
        "default": REDIS,
        "db": {"BACKEND": "django.core.cache.backends.db.DatabaseCache", "LOCATION": "localhost"},
    }
    assert deploy_ids(CACHES=caches) == []


def test_a_sidecar_alias_listed_as_local_on_purpose_is_silent() -> None:
    caches = {"default": REDIS, "sidecar": {**REDIS, "LOCATION": "redis://127.0.0.1:6379/0"}}
    assert deploy_ids(CACHES=caches) == ["horizontal.W004"]
    assert deploy_ids(CACHES=caches, HORIZONTAL_LOCAL_CACHES=["sidecar"]) == []


def test_w004_names_the_address_and_how_to_silence_it() -> None:
    with shared_settings(CACHES=_redis_at("redis://localhost:6379/0")):
        [warning] = cache_checks.check_caches_on_this_host()
    assert "redis://localhost:6379/0" in (warning.hint or "")
    assert "horizontal.W004" in (warning.hint or "")


A_PID = 48213
A_POD = "web-7f9c6d-x2k4p"  # a pod's hashed name: this instance's alone


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("KEY_PREFIX", A_POD),
        ("KEY_PREFIX", f"shop-{A_POD}"),
        ("KEY_PREFIX", f"shop:{A_PID}"),
        ("VERSION", A_PID),
    ],
)
def test_a_namespace_from_the_hostname_or_pid_is_w005(
    option: str, value: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The pid and host the value was built from, whatever this test process's own are (a
    # pid under 1000 is not looked for: test_a_small_pid_is_a_number_not_the_process_id).
    monkeypatch.setattr(cache_checks.os, "getpid", lambda: A_PID)
    monkeypatch.setattr(cache_checks.socket, "gethostname", lambda: A_POD)
    assert deploy_ids(CACHES=_redis_at("redis://cache.internal:6379/0", **{option: value})) == [
        "horizontal.W005"
    ]


@pytest.mark.parametrize("prefix", ["web", "shop-web-v2"])
def test_a_prefix_naming_a_role_host_name_is_silent(
    prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # compose's ``hostname: web`` is every replica's name: a role, not this instance.
    monkeypatch.setattr(cache_checks.socket, "gethostname", lambda: "web")
    caches = _redis_at("redis://cache.internal:6379/0", KEY_PREFIX=prefix)
    assert deploy_ids(CACHES=caches) == []


def per_host_key(key: str, key_prefix: str, version: int) -> str:
    return f"{socket.gethostname()}:{key_prefix}:{version}:{key}"


def shared_key(key: str, key_prefix: str, version: int) -> str:
    return f"{key_prefix}:{version}:{key}"


def _node() -> str:
    return socket.gethostname()


def _release() -> str:
    return "2026-12-04"


def key_through_a_helper(key: str, key_prefix: str, version: int) -> str:
    return f"{_node()}:{key_prefix}:{version}:{key}"


def key_with_a_release(key: str, key_prefix: str, version: int) -> str:
    return f"{_release()}:{key_prefix}:{version}:{key}"


# Key functions whose source ``inspect`` gives as no whole function: a lambda written in
# the CACHES dict, a callable instance, a module constant computed at import.
THIS_NODE = socket.gethostname()
RELEASE = "2026-12-06"


def key_with_the_node_constant(key: str, key_prefix: str, version: int) -> str:
    return f"{THIS_NODE}:{key_prefix}:{version}:{key}"


def key_with_the_release_constant(key: str, key_prefix: str, version: int) -> str:
    return f"{RELEASE}:{key_prefix}:{version}:{key}"


class HostKey:
    def __init__(self) -> None:
        self.node = socket.gethostname()

    def __call__(self, key: str, key_prefix: str, version: int) -> str:
        return f"{self.node}:{key_prefix}:{version}:{key}"


class ReleaseKey:
    def __init__(self, release: str) -> None:
        self.release = release

    def __call__(self, key: str, key_prefix: str, version: int) -> str:
        return f"{self.release}:{key_prefix}:{version}:{key}"


def test_key_functions_read_past_their_own_lines() -> None:
    per_instance = [
        {"KEY_FUNCTION": lambda key, key_prefix, version: f"{socket.gethostname()}:{key}"},
        {"KEY_FUNCTION": HostKey()},
        {"KEY_FUNCTION": key_with_the_node_constant},
        {"KEY_FUNCTION": functools.partial(per_host_key)},
    ]
    for extra in per_instance:
        caches = _redis_at("redis://cache.internal:6379/0", **extra)
        assert deploy_ids(CACHES=caches) == ["horizontal.W005"], extra
    shared = [
        # The hostname on the same line, outside the lambda: not the key function's.
        {"KEY_FUNCTION": lambda k, p, v: f"{p}:{k}", "OPTIONS": {"n": socket.gethostname()}},
        {"KEY_FUNCTION": ReleaseKey(RELEASE)},
        {"KEY_FUNCTION": key_with_the_release_constant},
    ]
    for extra in shared:
        caches = _redis_at("redis://cache.internal:6379/0", **extra)
        assert deploy_ids(CACHES=caches) == [], extra


def test_w005_on_a_key_function_says_how_to_build_keys() -> None:
    # "The same value on every instance" reads as nonsense for a function.
    caches = _redis_at("redis://cache.internal:6379/0", KEY_FUNCTION=HostKey())
    [message] = [m for m in deploy_messages(CACHES=caches) if m.id == "horizontal.W005"]
    assert "not from this host" in message.hint and "same value" not in message.hint
    prefix = cache_checks.W005("default", "KEY_PREFIX", "the host name")
    assert "KEY_PREFIX the same value on every instance" in str(prefix.hint)


def _node_name() -> str:
    return socket.gethostname()


class HelperKey:
    def __call__(self, key: str, key_prefix: str, version: int) -> str:
        return f"{_node_name()}:{key_prefix}:{key}"


def make_key(key: str, key_prefix: str, version: int, node: str = "") -> str:
    return f"{node}:{key_prefix}:{key}"


def _compiled(path: Path, source: str) -> dict[str, object]:
    """What django-split-settings does with a component: its code compiled under the
    component's own file name, run in another module's namespace."""
    path.write_text(source)
    names: dict[str, object] = {}
    exec(compile(source, str(path), "exec"), names)
    return names


def test_key_functions_read_where_they_are_defined(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    component = _compiled(
        tmp_path / "caches_component.py",
        "import os, socket\n"
        "node_key = lambda k, p, v: f'{socket.gethostname()}:{k}'\n"
        "tag = lambda: os.getpid(); shared_key = lambda k, p, v: f'{p}:{k}'\n",
    )
    monkeypatch.setattr(cache_checks.os, "getpid", lambda: 43210)
    per_instance = [
        component["node_key"],  # in a file of its own, not the settings module
        HelperKey(),  # a callable instance that asks a module helper
        functools.partial(make_key, node="43210"),  # the pid bound into a partial
    ]
    for key_function in per_instance:
        caches = _redis_at("redis://cache.internal:6379/0", KEY_FUNCTION=key_function)
        assert deploy_ids(CACHES=caches) == ["horizontal.W005"], key_function
    # Two statements on one line: the other lambda's getpid() is not this one's.
    shared = [component["shared_key"], functools.partial(make_key, node="shop")]
    for key_function in shared:
        caches = _redis_at("redis://cache.internal:6379/0", KEY_FUNCTION=key_function)
        assert deploy_ids(CACHES=caches) == [], key_function


BOOT_ID = uuid.uuid4()  # a UUID object, not a string: a value all the same


def key_with_the_boot_id(key: str, key_prefix: str, version: int) -> str:
    return f"{BOOT_ID}:{key_prefix}:{key}"


def test_key_functions_read_values_of_any_type_and_lambdas_sharing_a_line(
    tmp_path: Path,
) -> None:
    component = _compiled(
        tmp_path / "two_lambdas.py",
        "import socket\n"
        "tag = lambda: 'web'; node_key = lambda k, p, v: f'{socket.gethostname()}:{k}'\n",
    )
    for key_function in (key_with_the_boot_id, component["node_key"]):
        caches = _redis_at("redis://cache.internal:6379/0", KEY_FUNCTION=key_function)
        assert deploy_ids(CACHES=caches) == ["horizontal.W005"], key_function


def _prefix_settings(imports: str, prefix: str) -> str:
    """A settings module whose one cache has ``prefix`` as its ``KEY_PREFIX`` source."""
    return (
        f"{imports}\n"
        "CACHES = {'default': {'BACKEND': 'django_redis.cache.RedisCache',\n"
        f"    'LOCATION': 'redis://cache.internal:6379/0', 'KEY_PREFIX': {prefix}}}}}\n"
    )


@pytest.mark.parametrize(
    ("prefix", "reported"),
    [
        ("os.uname().nodename", True),
        ("platform.uname().node", True),
        ("os.uname()[1]", True),
        # The system's name is the same on every instance of one image.
        ("os.uname().sysname.lower()", False),
        ("platform.uname().machine", False),
    ],
)
def test_uname_names_the_host_only_through_its_node_field(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, prefix: str, reported: bool
) -> None:
    source = _prefix_settings("import os, platform", prefix)
    module = _settings_module(tmp_path, monkeypatch, "uname_settings", source)
    caches = _redis_at("redis://cache.internal:6379/0", KEY_PREFIX="linux")
    expected = ["horizontal.W005"] if reported else []
    assert deploy_ids(CACHES=caches, SETTINGS_MODULE=module) == expected


def test_a_random_cache_replaced_later_is_not_production_s(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    redis = "'BACKEND': 'django_redis.cache.RedisCache', 'LOCATION': 'redis://c:6379/0'"
    source = (
        "import uuid\n"
        f"CACHES = {{'default': {{{redis}, 'KEY_PREFIX': uuid.uuid4().hex}}}}\n"
        "DEBUG = False\n"
        f"CACHES = {{'default': {{{redis}, 'KEY_PREFIX': 'shop'}}}}\n"
    )
    module = _settings_module(tmp_path, monkeypatch, "replaced_settings", source)
    caches = _redis_at("redis://cache.internal:6379/0", KEY_PREFIX="shop")
    assert deploy_ids(CACHES=caches, SETTINGS_MODULE=module) == []
    head, _, last = source.rpartition("CACHES = ")
    annotated = f"{head}CACHES: dict = {last}"  # the replacing assignment, annotated
    module = _settings_module(tmp_path, monkeypatch, "annotated_settings", annotated)
    assert deploy_ids(CACHES=caches, SETTINGS_MODULE=module) == []
    # Extended rather than replaced: the random prefix stays.
    extended = source.rsplit("CACHES = ", 1)[0] + "CACHES = {**CACHES, 'other': {}}\n"
    module = _settings_module(tmp_path, monkeypatch, "extended_settings", extended)
    assert deploy_ids(CACHES=caches, SETTINGS_MODULE=module) == ["horizontal.W005"]


def test_a_key_function_that_asks_a_helper_for_the_hostname_is_w005() -> None:
    helped = _redis_at("redis://cache.internal:6379/0", KEY_FUNCTION=key_through_a_helper)
    assert deploy_ids(CACHES=helped) == ["horizontal.W005"]
    shared = _redis_at("redis://cache.internal:6379/0", KEY_FUNCTION=key_with_a_release)
    assert deploy_ids(CACHES=shared) == []


def test_a_key_function_that_reads_the_hostname_is_w005() -> None:
    caches = _redis_at("redis://cache.internal:6379/0", KEY_FUNCTION=per_host_key)
    assert deploy_ids(CACHES=caches) == ["horizontal.W005"]
    dotted = _redis_at("redis://cache.internal:6379/0", KEY_FUNCTION=f"{__name__}.per_host_key")
    assert deploy_ids(CACHES=dotted) == ["horizontal.W005"]


def test_a_small_pid_is_a_number_not_the_process_id(monkeypatch: pytest.MonkeyPatch) -> None:
    # PID 1 in a container: VERSION 1 and a prefix ending in ":1" are plain numbers.
    monkeypatch.setattr(cache_checks.os, "getpid", lambda: 1)
    for extra in ({"VERSION": 1}, {"KEY_PREFIX": "shop:1"}):
        assert deploy_ids(CACHES=_redis_at("redis://cache.internal:6379/0", **extra)) == []


@pytest.mark.parametrize(
    "extra",
    [
        {"KEY_PREFIX": "shop"},
        {"VERSION": 3},
        {"KEY_PREFIX": "release-2026-12-01"},
        {"KEY_FUNCTION": shared_key},
    ],
)
def test_a_namespace_every_instance_shares_is_silent(extra: dict[str, object]) -> None:
    assert deploy_ids(CACHES=_redis_at("redis://cache.internal:6379/0", **extra)) == []


def _settings_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, source: str
) -> str:
    """A settings module whose source the checks read (never imported, never run)."""
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    module = types.ModuleType(name)
    module.__file__ = str(path)
    monkeypatch.setitem(sys.modules, name, module)
    return name


def test_a_random_key_prefix_in_the_settings_source_is_w005(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = (
        "import uuid\n"
        "PREFIX = uuid.uuid4().hex\n"
        "CACHES = {'default': {'BACKEND': 'django_redis.cache.RedisCache',\n"
        "    'LOCATION': 'redis://cache.internal:6379/0', 'KEY_PREFIX': PREFIX}}\n"
    )
    module = _settings_module(tmp_path, monkeypatch, "random_prefix_settings", source)
    # The live value (one random hex string) looks like any other prefix.
    caches = _redis_at("redis://cache.internal:6379/0", KEY_PREFIX="3f2a9c0e5b7d")
    assert deploy_ids(CACHES=caches, SETTINGS_MODULE=module) == ["horizontal.W005"]


@pytest.mark.parametrize(
    "expression", ["os.environ.get('HOSTNAME', '')", "os.environ['POD_NAME']", "env('DYNO')"]
)
def test_a_key_prefix_from_the_instances_own_name_in_the_environment_is_w005(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, expression: str
) -> None:
    # The pod's name in Kubernetes, the dyno's on Heroku: set only where it runs.
    source = _prefix_settings("import os", expression)
    module = _settings_module(tmp_path, monkeypatch, "pod_prefix_settings", source)
    caches = _redis_at("redis://cache.internal:6379/0", KEY_PREFIX="")
    assert deploy_ids(CACHES=caches, SETTINGS_MODULE=module) == ["horizontal.W005"]


HELPER_SETTINGS = """\
import os
import sys
import uuid

def redis_cache(prefix, db=0, version=1):
    return {{"BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": f"redis://cache.internal:6379/{{db}}", "KEY_PREFIX": f"shop-{{prefix}}",
            "VERSION": version}}

{caches}
"""


@pytest.mark.parametrize(
    ("caches", "reported"),
    [
        ('CACHES = {"default": redis_cache(uuid.uuid4().hex)}', ["default"]),
        ('CACHES = {"default": redis_cache(prefix=os.environ.get("HOSTNAME", ""))}', ["default"]),
        ('BOOT = uuid.uuid4().hex\nCACHES = {"default": redis_cache(BOOT, 1)}', ["default"]),
        ('CACHES = {"default": redis_cache("shop", version=uuid.uuid4().int)}', ["default"]),
        # Safe twins: the same helper given a constant, the release, or a random value only
        # in a branch production does not take.
        ('CACHES = {"default": redis_cache("v1")}', []),
        ('CACHES = {"default": redis_cache(os.environ.get("RELEASE", "dev"))}', []),
        (
            'CACHES = {"default": redis_cache("v1")}\n'
            'if "test" in sys.argv:\n    CACHES = {"default": redis_cache(uuid.uuid4().hex)}',
            [],
        ),
        # A random value passed to another parameter, not the namespace: the database.
        ('CACHES = {"default": redis_cache("v1", db=uuid.uuid4().int % 16)}', []),
        # The helper called for another setting, or in a function nothing calls at import.
        (
            'CACHES = {"default": redis_cache("v1")}\n'
            "SCRATCH_CACHE = redis_cache(uuid.uuid4().hex, db=9)",
            [],
        ),
        (
            'CACHES = {"default": redis_cache("v1")}\n'
            "def test_cache():\n    return redis_cache(uuid.uuid4().hex)",
            [],
        ),
        # Each call under its own alias: only "scratch" is per instance.
        (
            'CACHES = {"default": redis_cache("v1"), "scratch": redis_cache(uuid.uuid4().hex)}',
            ["scratch"],
        ),
        # Bound to a name first: the alias is the one CACHES takes the name under.
        ('PAGES = redis_cache(uuid.uuid4().hex)\nCACHES = {"default": PAGES}', ["default"]),
        (
            "PAGES = redis_cache(uuid.uuid4().hex)\n"
            'CACHES = {"default": redis_cache("v1"), "scratch": PAGES}',
            ["scratch"],
        ),
        ('CACHES = {}\nCACHES["default"] = redis_cache(uuid.uuid4().hex)', ["default"]),
        # Called in what a helper returns, and CACHES takes that helper's value.
        (
            "def build_caches():\n"
            '    return {"default": redis_cache("v1"), "scratch": redis_cache(uuid.uuid4().hex)}\n'
            "CACHES = build_caches()",
            ["scratch"],
        ),
    ],
    ids=[
        "random",
        "pod-name",
        "name-then-call",
        "version",
        "constant",
        "release",
        "test",
        "db",
        "another-setting",
        "function-body",
        "per-alias",
        "bound-name",
        "bound-name-other-alias",
        "subscript",
        "helper-of-helper",
    ],
)
def test_a_helper_is_judged_by_what_its_namespace_parameter_is_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caches: str, reported: list[str]
) -> None:
    source = HELPER_SETTINGS.format(caches=caches)
    ast.parse(source)  # the settings as written are Python
    module = _settings_module(tmp_path, monkeypatch, "helper_prefix_settings", source)
    config = {
        **REDIS,
        "LOCATION": "redis://cache.internal:6379/0",
        "KEY_PREFIX": "shop-3f2a",
        "VERSION": 1,
    }
    live = {"default": config, "scratch": config}
    messages = [
        m for m in deploy_messages(CACHES=live, SETTINGS_MODULE=module) if m.id.endswith("W005")
    ]
    assert [m.obj for m in messages] == [f"CACHES[{alias!r}]" for alias in reported]


def test_a_key_prefix_from_the_environment_in_the_settings_source_is_silent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = (
        "import os\n"
        "CACHES = {'default': {'BACKEND': 'django_redis.cache.RedisCache',\n"
        "    'LOCATION': 'redis://cache.internal:6379/0',\n"
        "    'KEY_PREFIX': os.environ.get('CACHE_PREFIX', 'shop')}}\n"
    )
    module = _settings_module(tmp_path, monkeypatch, "env_prefix_settings", source)
    caches = _redis_at("redis://cache.internal:6379/0", KEY_PREFIX="shop")
    assert deploy_ids(CACHES=caches, SETTINGS_MODULE=module) == []


@pytest.mark.parametrize(
    "message",
    [
        cache_checks.W004("default", "redis://localhost"),
        cache_checks.W005("default", "VERSION", "the process id"),
    ],
    ids=lambda m: m.id,
)
def test_new_messages_follow_the_contract(message: checks.CheckMessage) -> None:
    assert_follows_the_contract(message)


def test_the_django_redis_path_is_spelled_once_in_the_package() -> None:
    # The checks name django-redis's cache by the session store's constant, so the two
    # cannot drift (issue 9, item 8).
    from horizontal.sessions.names import DJANGO_REDIS_CACHE

    package = Path(cache_checks.__file__).resolve().parents[1]
    spelled = sorted(
        str(path.relative_to(package))
        for path in package.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Constant) and node.value == DJANGO_REDIS_CACHE
    )
    assert spelled == ["sessions/names.py"]
    assert DJANGO_REDIS_CACHE in cache_checks.SHARED_CACHES


# -- I001: the implicit default where nothing keeps state in the cache ----------------------

MEMO_ONLY = """\
from django.core.cache import cache


def report(key, build):
    found = cache.get(key)
    if found is None:
        found = build()
        cache.set(key, found, 600)
    return found
"""
GATE = "from django.core.cache import cache\n\n\ndef once(key):\n    return cache.add(key, 1, 60)\n"


def _implicit_default(
    monkeypatch: pytest.MonkeyPatch, code: str, tmp_path: Path, **settings: object
) -> list[str]:
    """The locmem check on Django's own default, as if CACHES were not set (override_settings
    cannot unset a setting), over one app of ``code``."""
    app = tmp_path / "shop"
    app.mkdir()
    (app / "services.py").write_text(code)
    monkeypatch.setattr(cache_checks, "is_overridden", lambda name: name != "CACHES")
    fake = types.SimpleNamespace(name="shop", path=str(app))
    with shared_settings(CACHES=global_settings.CACHES, **settings):
        return [m.id for m in cache_checks.check_locmem_caches(app_configs=[fake])]


def test_the_implicit_default_under_memos_only_is_a_note(monkeypatch, tmp_path) -> None:
    assert _implicit_default(monkeypatch, MEMO_ONLY, tmp_path) == ["horizontal.I001"]


def test_the_implicit_default_under_a_gate_is_w001(monkeypatch, tmp_path) -> None:
    assert _implicit_default(monkeypatch, GATE, tmp_path) == ["horizontal.W001"]


ALIASED_GATE = """\
from django.core.cache import caches


def hit(ip):
    counter = caches["default"]
    counter.add(f"rl:{ip}", 0, 60)
    return counter.incr(f"rl:{ip}")


def unrelated(counter):
    return counter.add(1)
"""


def test_a_gate_through_a_local_name_for_the_cache_is_w001(monkeypatch, tmp_path) -> None:
    assert _implicit_default(monkeypatch, ALIASED_GATE, tmp_path) == ["horizontal.W001"]
    # Its twin: the same name in another function is not the cache.
    other = ALIASED_GATE.replace('    counter.add(f"rl:{ip}", 0, 60)\n', "").replace(
        '    return counter.incr(f"rl:{ip}")', "    return counter.get('x')"
    )
    (tmp_path / "b").mkdir()
    assert _implicit_default(monkeypatch, other, tmp_path / "b") == ["horizontal.I001"]


@pytest.mark.parametrize(
    "setting",
    [
        {"REST_FRAMEWORK": {"DEFAULT_THROTTLE_CLASSES": ["rest_framework.throttling.X"]}},
        {"ACCOUNT_RATE_LIMITS": {"login_failed": "10/m/ip"}},
        {"AXES_HANDLER": "axes.handlers.cache.AxesCacheHandler"},
        {"SESSION_ENGINE": "django.contrib.sessions.backends.cache"},
    ],
    ids=lambda setting: next(iter(setting)),
)
def test_settings_that_keep_state_in_the_cache_keep_w001(monkeypatch, tmp_path, setting) -> None:
    assert _implicit_default(monkeypatch, MEMO_ONLY, tmp_path, **setting) == ["horizontal.W001"]


def test_an_explicit_locmem_under_memos_only_is_still_w001(tmp_path) -> None:
    # Written by hand, it is a choice to review, as the audit reports it.
    app = tmp_path / "shop"
    app.mkdir()
    (app / "services.py").write_text(MEMO_ONLY)
    fake = types.SimpleNamespace(name="shop", path=str(app))
    with shared_settings(CACHES={"default": LOCMEM}):
        found = cache_checks.check_locmem_caches(app_configs=[fake])
    assert [m.id for m in found] == ["horizontal.W001"]


def test_the_note_follows_the_contract() -> None:
    assert_follows_the_contract(cache_checks.I001("default"))
    assert cache_checks.I001("default").level == checks.INFO


# -- W005 read from the source in the spellings production modules use --------------------

BASE_CACHES = (
    "import os\nimport uuid\nimport socket\nimport hashlib\nimport environ\n"
    "ENV = environ.Env()\n"
    "CACHES = {'default': {'BACKEND': 'django_redis.cache.RedisCache',\n"
    "    'LOCATION': 'redis://cache.internal:6379/0'}}\n"
)
PAGES = (
    "{'BACKEND': 'django_redis.cache.RedisCache', "
    "'LOCATION': 'redis://cache.internal:6379/1', 'KEY_PREFIX': %s}"
)


def _with_pages(prefix: str) -> dict[str, object]:
    """The live CACHES of ``BASE_CACHES`` plus a ``pages`` alias whose prefix is ``prefix``."""
    pages = {**REDIS, "LOCATION": "redis://cache.internal:6379/1", "KEY_PREFIX": prefix}
    return {**_redis_at("redis://cache.internal:6379/0"), "pages": pages}


@pytest.mark.parametrize(
    "tail",
    [
        # An alias a production module adds to its base's CACHES by subscript.
        "CACHES['pages'] = " + PAGES % "uuid.uuid4().hex[:8]",
        "CACHES['pages'] = "
        + PAGES % "'shop'"
        + "\nCACHES['pages'].update(KEY_PREFIX=uuid.uuid4().hex)",
        # A dict built apart, then put in CACHES.
        "pages = "
        + PAGES % "'shop'"
        + "\npages['KEY_PREFIX'] = uuid.uuid4().hex\nCACHES['pages'] = pages",
        # Through names, annotations, class attributes and helper functions.
        "BOOT = uuid.uuid4().hex\nPREFIX = f'shop-{BOOT}'\nCACHES['pages'] = " + PAGES % "PREFIX",
        "RUN_ID: str = uuid.uuid4().hex\nCACHES['pages'] = " + PAGES % "RUN_ID",
        "class Runtime:\n    TOKEN = uuid.uuid4().hex\n"
        + "CACHES['pages'] = "
        + PAGES % "Runtime.TOKEN",
        "def _tag():\n    return hashlib.sha1(socket.gethostname().encode()).hexdigest()\n"
        "CACHES['pages'] = " + PAGES % "_tag()",
        # django-environ's reader under any name.
        "CACHES['pages'] = " + PAGES % "ENV.str('POD_NAME', default='')",
        # setdefault, |=, dict(BASE, …), and a loop over the aliases.
        "CACHES['pages'] = {'BACKEND': 'django_redis.cache.RedisCache'}\n"
        "CACHES['pages'].setdefault('KEY_PREFIX', uuid.uuid4().hex)",
        "CACHES['pages'] = " + PAGES % "'shop'" + "\nCACHES['pages'] |= {'KEY_PREFIX': "
        "socket.gethostname()}",
        "_PAGES = {'BACKEND': 'django_redis.cache.RedisCache'}\n"
        "CACHES['pages'] = dict(_PAGES, KEY_PREFIX=str(os.getppid()))",
        "CACHES['pages'] = " + PAGES % "'shop'" + "\nfor config in CACHES.values():\n"
        "    config['KEY_PREFIX'] = uuid.uuid4().hex",
        "CACHES['pages'] = " + PAGES % "'shop'" + "\nfor alias in CACHES:\n"
        "    CACHES[alias].update(KEY_PREFIX=socket.gethostname())",
        "import time\nCACHES['pages'] = " + PAGES % "time.strftime('%Y%m%d%H%M%S')",
        "import datetime\nCACHES['pages'] = " + PAGES % "f'shop-{datetime.date.today()}'",
        "CACHES['pages'] = " + PAGES % "str(uuid.getnode())",
    ],
    ids=[
        "subscript",
        "update",
        "built-apart",
        "two-names",
        "annotated",
        "class",
        "helper",
        "ENV",
        "setdefault",
        "or-assign",
        "dict-call-ppid",
        "loop-values",
        "loop-aliases",
        "strftime",
        "today",
        "mac-address",
    ],
)
def test_a_per_instance_prefix_however_spelt_is_w005(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tail: str
) -> None:
    module = _settings_module(tmp_path, monkeypatch, "spelt_prefix_settings", BASE_CACHES + tail)
    assert deploy_ids(CACHES=_with_pages("3f2a9c0e"), SETTINGS_MODULE=module) == ["horizontal.W005"]


@pytest.mark.parametrize(
    "tail",
    [
        # Only a test run takes the random prefix (parallel runs sharing one Redis).
        "CACHES['pages'] = " + PAGES % "'shop'" + "\nimport sys\n"
        "if 'test' in sys.argv:\n    CACHES['pages']['KEY_PREFIX'] = uuid.uuid4().hex",
        # Another library's options use the same key name.
        "CACHES['pages'] = "
        + PAGES % "'shop'"
        + "\nSILKY_OPTIONS = {'KEY_PREFIX': uuid.uuid4().hex}",
        # A helper's dict no CACHES assignment uses (a test's throwaway cache).
        "def throwaway():\n    return {'BACKEND': 'x', 'KEY_PREFIX': uuid.uuid4().hex}\n"
        + "CACHES['pages'] = "
        + PAGES % "'shop'",
        "TEST_CACHES = {'default': {'KEY_PREFIX': uuid.uuid4().hex}}\n"
        + "CACHES['pages'] = "
        + PAGES % "'shop'",
        "SILKY = {}\nSILKY.update(KEY_PREFIX=uuid.uuid4().hex)\n"
        + "CACHES['pages'] = "
        + PAGES % "'shop'",
        # A helper that calls the clock in passing but returns the release.
        "import time\ndef release():\n    try:\n        return os.environ['GIT_SHA']\n"
        + "    finally:\n        time.time()\n"
        + "CACHES['pages'] = "
        + PAGES % "release()",
        # setdefault leaves an option the module writes; a date's own strftime is no clock.
        "CACHES['pages'] = " + PAGES % "'shop'" + "\n"
        "CACHES['pages'].setdefault('KEY_PREFIX', uuid.uuid4().hex)",
        "import datetime\nRELEASED = datetime.date(2026, 12, 1)\n"
        "CACHES['pages'] = " + PAGES % "RELEASED.strftime('%Y%m%d')",
        "import time\nCACHES['pages'] = " + PAGES % "time.strftime('%Y', (2026,) * 9)",
        # A loop over another setting's aliases.
        "CACHES['pages'] = " + PAGES % "'shop'" + "\nSILKY = {'a': {}}\n"
        "for config in SILKY.values():\n    config['KEY_PREFIX'] = uuid.uuid4().hex",
    ],
    ids=[
        "test-only",
        "another-setting",
        "unused-helper",
        "nested-other",
        "other-update",
        "clock",
        "setdefault-written",
        "date-strftime",
        "strftime-given-time",
        "loop-other",
    ],
)
def test_a_random_prefix_production_never_takes_is_silent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tail: str
) -> None:
    module = _settings_module(tmp_path, monkeypatch, "unspelt_prefix_settings", BASE_CACHES + tail)
    assert deploy_ids(CACHES=_with_pages("shop"), SETTINGS_MODULE=module) == []


@pytest.mark.parametrize(
    "prefix",
    ["str(time.monotonic_ns())", "str(int(time.perf_counter() * 1e6))", "str(time.time_ns())"],
)
def test_a_prefix_read_from_a_clock_is_w005(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, prefix: str
) -> None:
    # The monotonic and performance counters count from each host's boot or process.
    redis = "'BACKEND': 'django_redis.cache.RedisCache', 'LOCATION': 'redis://c:6379/0'"
    source = f"import time\nCACHES = {{'default': {{{redis}, 'KEY_PREFIX': {prefix}}}}}\n"
    name = "clock_" + str(abs(hash(prefix)))
    module = _settings_module(tmp_path, monkeypatch, name, source)
    caches = _redis_at("redis://cache.internal:6379/0", KEY_PREFIX="123456")
    assert deploy_ids(CACHES=caches, SETTINGS_MODULE=module) == ["horizontal.W005"]


@pytest.mark.parametrize(
    ("setup", "prefix", "warned"),
    [
        ("", "open('/etc/machine-id').read().strip()", True),
        ("from pathlib import Path\n", "Path('/proc/sys/kernel/random/boot_id').read_text()", True),
        ("MACHINE = open('/etc/hostname').read().strip()\n", "'shop-' + MACHINE", True),
        # Its twin: a file every instance is given alike (a release shipped in the image).
        ("", "open('/app/RELEASE').read().strip()", False),
    ],
)
def test_a_prefix_read_from_this_hosts_own_file_is_w005(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, setup: str, prefix: str, warned: bool
) -> None:
    redis = "'BACKEND': 'django_redis.cache.RedisCache', 'LOCATION': 'redis://c:6379/0'"
    source = f"{setup}CACHES = {{'default': {{{redis}, 'KEY_PREFIX': {prefix}}}}}\n"
    name = "host_file_" + str(abs(hash(prefix)))
    module = _settings_module(tmp_path, monkeypatch, name, source)
    caches = _redis_at("redis://cache.internal:6379/0", KEY_PREFIX="3f2a")
    expected = ["horizontal.W005"] if warned else []
    assert deploy_ids(CACHES=caches, SETTINGS_MODULE=module) == expected


RUNTIME = """\
import secrets
import uuid

BOOT_ID = uuid.uuid4().hex[:12]


def cache_prefix():
    return "shop-" + secrets.token_hex(3)
"""


@pytest.mark.parametrize(
    ("imports", "prefix"),
    [
        ("from .runtime import BOOT_ID", "BOOT_ID"),
        ("from . import runtime", "runtime.BOOT_ID"),
        ("from .runtime import cache_prefix", "cache_prefix()"),
        ("from shopsite.runtime import BOOT_ID as BOOT", "BOOT"),
    ],
)
def test_a_prefix_a_project_module_makes_per_instance_is_w005(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, imports: str, prefix: str
) -> None:
    # The settings take it from a module of their own package, which the check reads.
    redis = "'BACKEND': 'django_redis.cache.RedisCache', 'LOCATION': 'redis://c:6379/0'"
    for name, source in (
        ("runtime", RUNTIME),
        ("settings", f"{imports}\nCACHES = {{'default': {{{redis}, 'KEY_PREFIX': {prefix}}}}}\n"),
    ):
        path = tmp_path / f"{name}.py"
        path.write_text(source)
        module = types.ModuleType(f"shopsite.{name}")
        module.__file__ = str(path)
        monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setitem(sys.modules, "shopsite", types.ModuleType("shopsite"))
    caches = _redis_at("redis://cache.internal:6379/0", KEY_PREFIX="3f2a9c0e5b7d")
    assert deploy_ids(CACHES=caches, SETTINGS_MODULE="shopsite.settings") == ["horizontal.W005"]
    # The same module with a fixed prefix: nothing per instance to find.
    (tmp_path / "runtime.py").write_text(
        "BOOT_ID = 'shop'\n\n\ndef cache_prefix():\n    return 'shop'\n"
    )
    assert deploy_ids(CACHES=caches, SETTINGS_MODULE="shopsite.settings") == []


@pytest.mark.parametrize(
    "production",
    [
        # A production module that extends the base's CACHES keeps the base's prefix.
        "from base_ns_settings import *\nCACHES = {**CACHES, 'pages': " + PAGES % "'shop'" + "}\n",
        "from base_ns_settings import *\nCACHES = dict(CACHES, pages=" + PAGES % "'shop'" + ")\n",
        # Its twin: one that replaces it.
        "from base_ns_settings import *\nCACHES = {'default': "
        + PAGES % "'shop'"
        + ", 'pages': "
        + PAGES % "'shop'"
        + "}\n",
    ],
    ids=["extended", "extended-dict", "replaced"],
)
def test_a_prefix_an_extending_module_keeps_is_w005(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, production: str
) -> None:
    base = (
        "import uuid\nCACHES = {'default': {'BACKEND': 'django_redis.cache.RedisCache', "
        "'LOCATION': 'redis://cache.internal:6379/0', 'KEY_PREFIX': uuid.uuid4().hex}}\n"
    )
    _settings_module(tmp_path, monkeypatch, "base_ns_settings", base)
    module = _settings_module(tmp_path, monkeypatch, "production_ns_settings", production)
    caches = _redis_at("redis://cache.internal:6379/0", KEY_PREFIX="3f2a9c0e")
    warned = "**CACHES" in production or "dict(CACHES" in production
    expected = ["horizontal.W005"] if warned else []
    assert deploy_ids(CACHES=caches, SETTINGS_MODULE=module) == expected


def key_from_server_id(key: str, key_prefix: str, version: int) -> str:
    from django.conf import settings

    return f"{settings.SERVER_ID}:{key_prefix}:{version}:{key}"


@pytest.mark.parametrize(
    ("server_id", "warned"),
    [
        # ``SERVER_ID = socket.gethostname()`` in settings, read by the key function.
        ("web-7f9c6d-x2k4p", True),
        # Its twin: a setting every instance shares.
        ("shop", False),
    ],
)
def test_a_key_function_that_reads_a_per_instance_setting_is_w005(
    monkeypatch: pytest.MonkeyPatch, server_id: str, warned: bool
) -> None:
    monkeypatch.setattr(cache_checks.socket, "gethostname", lambda: "web-7f9c6d-x2k4p")
    caches = _redis_at("redis://cache.internal:6379/0", KEY_FUNCTION=key_from_server_id)
    ids = deploy_ids(CACHES=caches, SERVER_ID=server_id)
    assert ids == (["horizontal.W005"] if warned else [])
