"""Deploy warning W050 (horizontal/checks/secret_key.py): a random SECRET_KEY found in the
settings module's source, or in a module it star-imports, by the audit's own rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from horizontal.audit.settings_modules import find_settings_problems
from horizontal.audit.source import PythonModule
from horizontal.checks import secret_key
from tests.checks.baseline import (
    assert_follows_the_contract,
    assert_registered_deploy_only,
    deploy_messages,
)

SETTINGS_MODULES = Path(__file__).parent / "settings_modules"
STABLE = "tests.checks.settings_modules.stable_key"


def secret_key_sites(module: str) -> list[str]:
    __import__(module)
    warnings = [m for m in deploy_messages(SETTINGS_MODULE=module) if m.id == "horizontal.W050"]
    return [str(w.obj) for w in warnings]


def test_random_secret_key_is_w050() -> None:
    [site] = secret_key_sites("tests.checks.settings_modules.random_key")
    # Relative to the current folder, as the code warnings' places are.
    assert site == "tests/checks/settings_modules/random_key.py:9"


def test_random_secret_key_in_a_star_imported_base_is_w050() -> None:
    [site] = secret_key_sites("tests.checks.settings_modules.random_key_child")
    assert site.endswith("settings_modules/random_key_base.py:8")


def test_a_random_key_from_optional_local_settings_is_w050() -> None:
    # ``try: from .local_settings import * / except ImportError: pass``: the overrides
    # the process imported are what it runs with.
    [site] = secret_key_sites("tests.checks.settings_modules.optional_local_key")
    assert site.endswith("settings_modules/random_key_base.py:8")
    assert secret_key_sites("tests.checks.settings_modules.optional_missing_local") == []


def test_a_random_key_for_the_image_builds_collectstatic_is_fine() -> None:
    # The branch runs in ``RUN manage.py collectstatic``, never in a replica that serves.
    assert secret_key_sites("tests.checks.settings_modules.build_step_key") == []


def test_a_base_modules_random_key_that_production_replaces_is_fine() -> None:
    # The base's random SECRET_KEY (and uuid cache prefix) are assigned again after the
    # star import: what the base set is not what runs.
    module = "tests.checks.settings_modules.random_key_overridden"
    assert secret_key_sites(module) == []
    ids = [m.id for m in deploy_messages(SETTINGS_MODULE=module, CACHES=_caches("shop"))]
    assert "horizontal.W005" not in ids
    # The module that does not replace them still has both.
    child = "tests.checks.settings_modules.random_key_child"
    __import__(child)
    ids = [m.id for m in deploy_messages(SETTINGS_MODULE=child, CACHES=_caches("3f2a9c0e"))]
    assert "horizontal.W005" in ids


def _caches(prefix: str) -> dict[str, dict[str, str]]:
    return {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": "redis://cache.internal:6379/0",
            "KEY_PREFIX": prefix,
        }
    }


def test_a_key_hashed_from_the_clock_is_w050_and_an_audit_finding() -> None:
    """``sha512(str(time.time()))`` differs between starts as a random key does."""
    module_name = "tests.checks.settings_modules.clock_key"
    [site] = secret_key_sites(module_name)
    assert site.endswith("settings_modules/clock_key.py:11")
    path = SETTINGS_MODULES / "clock_key.py"
    module = PythonModule.parse(str(path), path.read_text())
    assert module is not None
    assert [f.line for f in find_settings_problems([module])] == [11]
    # Its cache prefix stamped with the boot time is a namespace per start: W005.
    ids = [m.id for m in deploy_messages(SETTINGS_MODULE=module_name, CACHES=_caches("2026"))]
    assert "horizontal.W005" in ids
    assert "horizontal.W005" not in [
        m.id for m in deploy_messages(SETTINGS_MODULE=STABLE, CACHES=_caches("2026"))
    ]


def test_secret_key_from_the_environment_is_fine() -> None:
    assert secret_key_sites("tests.checks.settings_modules.stable_key") == []


def test_a_random_fallback_in_a_second_step_is_w050_and_an_audit_finding() -> None:
    """``if not SECRET_KEY: SECRET_KEY = get_random_secret_key()``: the same rule in both."""
    [site] = secret_key_sites("tests.checks.settings_modules.fallback_key")
    assert site.endswith("settings_modules/fallback_key.py:11")
    path = SETTINGS_MODULES / "fallback_key.py"
    module = PythonModule.parse(str(path), path.read_text())
    assert module is not None
    [finding] = find_settings_problems([module])
    assert finding.line == 11


def test_a_settings_package_resolves_its_relative_imports_from_itself() -> None:
    [site] = secret_key_sites("tests.checks.settings_modules.random_key_package")
    assert site.endswith("settings_modules/random_key_package/base.py:7")


def test_a_helper_imported_relatively_is_followed() -> None:
    # ``from .key_helpers import make_key`` and ``from . import key_helpers``: the helper
    # is read as the absolute import ``from tests.checks.settings_modules…`` is.
    for module, line in (("relative_helper_key", 9), ("relative_module_key", 7)):
        [site] = secret_key_sites(f"tests.checks.settings_modules.{module}")
        assert site.endswith(f"settings_modules/{module}.py:{line}"), site


@pytest.mark.parametrize(
    ("module", "line"),
    [
        # A key file written at first import, read back through a ``with`` handle or a
        # path's ``read_text()``: the line of the write.
        ("keyfile_with", 12),
        ("keyfile_path", 13),
        # A django-environ schema's random default, read by ``env("…")``.
        ("schema_key", 24),
        # The kernel's random bytes, read as a file.
        ("urandom_key", 8),
        # A JSON secrets file written at first import, read by ``json.load(handle)``, or
        # loaded into a module-level name the key is taken from: the line of the write.
        ("keyfile_json", 16),
        ("keyfile_json_name", 15),
    ],
)
def test_a_key_made_at_first_import_in_another_form_is_w050(module: str, line: int) -> None:
    [site] = secret_key_sites(f"tests.checks.settings_modules.{module}")
    assert site.endswith(f"settings_modules/{module}.py:{line}"), site


def test_a_key_read_from_a_mounted_file_beside_another_write_is_fine() -> None:
    # The read's handle is the one its own ``with`` opens, not an earlier one's.
    assert secret_key_sites("tests.checks.settings_modules.mounted_key_beside_a_write") == []


def test_a_key_read_from_a_shipped_json_file_is_fine() -> None:
    # The safe twin of ``keyfile_json_name``: the file is read, never written here.
    assert secret_key_sites("tests.checks.settings_modules.keyfile_json_shipped") == []
    path = SETTINGS_MODULES / "keyfile_json_shipped.py"
    parsed = PythonModule.parse(str(path), path.read_text())
    assert parsed is not None
    assert list(find_settings_problems([parsed])) == []


@pytest.mark.parametrize(("module", "line"), [("keyfile_json", 16), ("keyfile_json_name", 15)])
def test_a_json_key_file_written_at_first_import_is_an_audit_finding_too(
    module: str, line: int
) -> None:
    path = SETTINGS_MODULES / f"{module}.py"
    parsed = PythonModule.parse(str(path), path.read_text())
    assert parsed is not None
    assert [f.line for f in find_settings_problems([parsed])] == [line]


def test_every_check_is_registered_deploy_only() -> None:
    assert_registered_deploy_only(secret_key)


def test_message_follows_the_contract() -> None:
    assert_follows_the_contract(secret_key.W050("settings.py:12"))


@pytest.mark.parametrize(
    ("module", "line", "audit_line"),
    [
        # The environment given a generated default, then read: the default's line.
        ("setdefault_key", 9, 9),
        # A class of the module makes it; the audit reports the class's field itself.
        ("class_key", 14, 11),
        # A helper whose default factory is a generator.
        ("factory_key", 14, 14),
    ],
)
def test_a_key_generated_through_the_settings_own_code_is_w050_and_an_audit_finding(
    module: str, line: int, audit_line: int
) -> None:
    [site] = secret_key_sites(f"tests.checks.settings_modules.{module}")
    assert site.endswith(f"settings_modules/{module}.py:{line}"), site
    path = SETTINGS_MODULES / f"{module}.py"
    parsed = PythonModule.parse(str(path), path.read_text())
    assert parsed is not None
    from horizontal.audit.settings_secrets import find_config_secret_keys

    found = [*find_settings_problems([parsed]), *find_config_secret_keys(parsed)]
    assert [f.line for f in found] == [audit_line]


def test_a_constant_default_put_in_the_environment_is_fine() -> None:
    assert secret_key_sites("tests.checks.settings_modules.setdefault_constant_key") == []


def test_a_random_key_in_a_split_settings_component_is_w050() -> None:
    # django-split-settings' include() runs its components in the settings' namespace.
    [site] = secret_key_sites("tests.checks.settings_modules.split_key")
    assert site.endswith("settings_modules/split_key/components/secret.py:7"), site
    assert secret_key_sites("tests.checks.settings_modules.split_stable") == []
    # A random key in a component that a later component replaces outright.
    assert secret_key_sites("tests.checks.settings_modules.split_replaced") == []
