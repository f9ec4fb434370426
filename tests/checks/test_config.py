"""Configuration errors E001-E009 (horizontal/checks/config.py).

These run on every ``check``; each test asserts the exact ids of horizontal's
non-deploy checks under one bad setting.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.core import checks
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.test import override_settings

from horizontal.checks import config as config_checks
from horizontal.conf import Settings


def config_ids(**overrides: Any) -> list[str]:
    with override_settings(**overrides):
        messages = checks.run_checks(tags=["horizontal"], databases=[])
    return sorted(m.id for m in messages if m.level >= checks.ERROR)


def test_the_suite_settings_are_valid() -> None:
    assert config_ids() == []


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("HORIZONTAL_DATABASE", 1),
        ("HORIZONTAL_INSTANCE_ID", 42),
        ("HORIZONTAL_LEASE_TTL", "30"),
        ("HORIZONTAL_LEASE_TTL", True),
        ("HORIZONTAL_RELEASE", 7),
        ("HORIZONTAL_SESSION_FAILURE", False),
        ("HORIZONTAL_SESSION_FALLBACK_ENGINE", object()),
        ("HORIZONTAL_EXPECTED_INSTANCES", "3"),
        ("HORIZONTAL_EXPECTED_INSTANCES", 2.5),
        ("HORIZONTAL_PROCESSES_PER_INSTANCE", "4"),
        ("HORIZONTAL_LOCAL_CACHES", "l1"),
        ("HORIZONTAL_LOCAL_CACHES", [1]),
        ("HORIZONTAL_DEBUG_FAILPOINTS", "yes"),
        ("HORIZONTAL_SESSION_END_ON_PASSWORD_CHANGE", 1),
        ("HORIZONTAL_FAILPOINTS", ["after_claim=exit"]),
    ],
)
def test_wrong_type_is_e001(name: str, value: object) -> None:
    assert config_ids(**{name: value}) == ["horizontal.E001"]


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("HORIZONTAL_DATABASE", ""),
        ("HORIZONTAL_INSTANCE_ID", ""),
        ("HORIZONTAL_INSTANCE_ID", "web 1"),
        ("HORIZONTAL_INSTANCE_ID", "x" * 201),
        ("HORIZONTAL_LEASE_TTL", 0),
        ("HORIZONTAL_LEASE_TTL", -5.0),
        ("HORIZONTAL_RELEASE", ""),
        ("HORIZONTAL_SESSION_FAILURE", "half-open"),
        ("HORIZONTAL_EXPECTED_INSTANCES", 0),
        ("HORIZONTAL_PROCESSES_PER_INSTANCE", -1),
    ],
)
def test_wrong_value_is_e002(name: str, value: object) -> None:
    assert config_ids(**{name: value}) == ["horizontal.E002"]


def test_e001_message_names_setting_and_type() -> None:
    with override_settings(HORIZONTAL_LEASE_TTL="30"):
        [error] = config_checks.check_setting_values()
    assert error.msg == "HORIZONTAL_LEASE_TTL must be a number of seconds, not str."
    assert error.obj == "HORIZONTAL_LEASE_TTL"


def test_none_is_the_default_where_a_setting_allows_it() -> None:
    ids = config_ids(
        HORIZONTAL_INSTANCE_ID=None,
        HORIZONTAL_RELEASE=None,
        HORIZONTAL_EXPECTED_INSTANCES=None,
        HORIZONTAL_SESSION_FALLBACK_ENGINE=None,
    )
    assert ids == []


def test_good_values_pass() -> None:
    ids = config_ids(
        HORIZONTAL_DATABASE="postgresql",
        HORIZONTAL_INSTANCE_ID="web-1",
        HORIZONTAL_LEASE_TTL=12.5,
        HORIZONTAL_RELEASE="2026.11.29",
        HORIZONTAL_SESSION_FAILURE="open",
        HORIZONTAL_EXPECTED_INSTANCES=4,
        HORIZONTAL_PROCESSES_PER_INSTANCE=8,
        HORIZONTAL_DEBUG_FAILPOINTS=False,
        HORIZONTAL_FAILPOINTS="",
    )
    assert ids == []


def test_lease_database_that_does_not_exist_is_e003() -> None:
    assert config_ids(HORIZONTAL_DATABASE="leases") == ["horizontal.E003"]


def test_router_that_keeps_horizontal_off_the_lease_database_is_e004() -> None:
    routers = ["tests.checks.backends.HorizontalStaysOffRouter"]
    assert config_ids(DATABASE_ROUTERS=routers) == ["horizontal.E004"]


def test_fallback_engine_that_cannot_be_imported_is_e005() -> None:
    engine = "django.contrib.sessions.backends.redis"  # no such engine
    assert config_ids(HORIZONTAL_SESSION_FALLBACK_ENGINE=engine) == ["horizontal.E005"]


def test_importable_fallback_engine_passes() -> None:
    engine = "django.contrib.sessions.backends.db"
    assert config_ids(HORIZONTAL_SESSION_FALLBACK_ENGINE=engine) == []


def test_local_cache_alias_that_does_not_exist_is_e006() -> None:
    assert config_ids(HORIZONTAL_LOCAL_CACHES=["default", "l1"]) == ["horizontal.E006"]


@pytest.mark.parametrize(
    ("typo", "meant"),
    [
        ("HORIZONTAL_LEASE_TTLS", "HORIZONTAL_LEASE_TTL"),
        ("HORIZONTAL_DATABSE", "HORIZONTAL_DATABASE"),
        ("HORIZONTAL_EXPECTED_INSTANCE", "HORIZONTAL_EXPECTED_INSTANCES"),
    ],
)
def test_misspelt_setting_is_e009(typo: str, meant: str) -> None:
    with override_settings(**{typo: 1}):
        [error] = config_checks.check_misspelt_settings()
    assert error.id == "horizontal.E009"
    assert meant in error.msg


def test_every_setting_in_conf_has_a_rule() -> None:
    """A new property in horizontal.conf needs its type checked here too."""
    properties = {
        f"HORIZONTAL_{name}"
        for name, value in vars(Settings).items()
        if isinstance(value, property)
    }
    assert properties <= set(config_checks.RULES)


def test_unrelated_horizontal_name_is_left_alone() -> None:
    assert config_ids(HORIZONTAL_SCROLLING_BANNER=True) == []


def test_invalid_configuration_fails_a_plain_check_command() -> None:
    """E0xx are errors on every check: `migrate` and `runserver` refuse to start."""
    with override_settings(HORIZONTAL_LEASE_TTL=0), pytest.raises(SystemCheckError) as raised:
        call_command("check", "--tag", "horizontal", "--database", "default")
    assert "horizontal.E002" in str(raised.value)


# -- E007 (deploy only): an instance id every instance shares ----------------------------


def instance_id_errors(tmp_path: Any, monkeypatch: Any, source: str, value: object) -> list[str]:
    """E007 for a settings module with ``source`` (read, never run) and the live ``value``."""
    import sys
    import types

    path = tmp_path / "instance_settings.py"
    path.write_text(source)
    module = types.ModuleType("instance_settings")
    module.__file__ = str(path)
    monkeypatch.setitem(sys.modules, module.__name__, module)
    with override_settings(SETTINGS_MODULE=module.__name__, HORIZONTAL_INSTANCE_ID=value):
        messages = config_checks.check_instance_id_is_per_instance()
    return [m.id for m in messages]


@pytest.mark.parametrize(
    ("source", "value"),
    [
        ('HORIZONTAL_INSTANCE_ID = "shop-web"\n', "shop-web"),
        ('import os\nHORIZONTAL_INSTANCE_ID = os.environ.get("POD_NAME", "web-1")\n', "web-1"),
        ('import os\nHORIZONTAL_INSTANCE_ID = os.getenv("POD_NAME") or "shop"\n', "shop"),
        ('import os\nHORIZONTAL_INSTANCE_ID = os.environ["INSTANCE"]\n', "production"),
        (
            "import os\nHORIZONTAL_INSTANCE_ID = f\"web-{os.environ.get('REPLICA', '0')}\"\n",
            "web-0",
        ),
        ('import os\nHORIZONTAL_INSTANCE_ID = os.environ["GIT_SHA"]\n', "9f3c2ab"),
        ('import os\nHORIZONTAL_INSTANCE_ID = os.getenv("K_REVISION")\n', "shop-00042-xoz"),
        (
            "import os\nHORIZONTAL_INSTANCE_ID = f\"web-{os.environ['HEROKU_RELEASE_VERSION']}\"\n",
            "web-v117",
        ),
        # A constant reached through the module: names, classes, helpers, formatting.
        ('NAME = "shop-eu"\nHORIZONTAL_INSTANCE_ID = NAME\n', "shop-eu"),
        ('class Deploy:\n    ID = "shop-api"\nHORIZONTAL_INSTANCE_ID = Deploy.ID\n', "shop-api"),
        (
            "import os\ndef instance_id():\n    return os.environ.get('POD_NAME', 'shop-web')\n"
            "HORIZONTAL_INSTANCE_ID = instance_id()\n",
            "shop-web",
        ),
        ('HORIZONTAL_INSTANCE_ID = "%s-%s" % ("shop", "eu1")\n', "shop-eu1"),
        ('HORIZONTAL_INSTANCE_ID = "-".join(["shop", "api"])\n', "shop-api"),
        (
            "import os\n"
            "HORIZONTAL_INSTANCE_ID = 'shop-{}'.format(os.environ.get('REPLICA', '0'))\n",
            "shop-0",
        ),
        (
            'import os\nos.environ.setdefault("INSTANCE_ID", "shop-web")\n'
            'HORIZONTAL_INSTANCE_ID = os.environ["INSTANCE_ID"]\n',
            "shop-web",
        ),
        (
            "import environ\nENV = environ.Env()\n"
            "HORIZONTAL_INSTANCE_ID = ENV.str('POD_NAME', default='shop-web-eu1')\n",
            "shop-web-eu1",
        ),
        # Variables that name a group: the namespace, the service, the app.
        ('import os\nHORIZONTAL_INSTANCE_ID = os.environ["POD_NAMESPACE"]\n', "shop-prod"),
        ('import os\nHORIZONTAL_INSTANCE_ID = os.environ["K_SERVICE"]\n', "shop-api"),
        ('import os\nHORIZONTAL_INSTANCE_ID = os.getenv("FLY_APP_NAME", "shop")\n', "shop-prod"),
        ('import os\nHORIZONTAL_INSTANCE_ID = os.environ["RELEASE_ID"]\n', "r42"),
        ('import os\nHORIZONTAL_INSTANCE_ID = os.environ["HEROKU_APP_ID"]\n', "9a1b"),
        # A number formatted in, a number fallback made a string, a slice of the commit.
        ('HORIZONTAL_INSTANCE_ID = "web-%d" % 1\n', "web-1"),
        (
            'import os\nHORIZONTAL_INSTANCE_ID = "web-" + str(os.environ.get("REPLICA", 0))\n',
            "web-0",
        ),
        ('import os\nHORIZONTAL_INSTANCE_ID = os.environ["GIT_SHA"][:7]\n', "9f3c2ab"),
        (
            "import os\nHORIZONTAL_INSTANCE_ID = f\"shop-{os.environ['GIT_SHA'][:7]}\"\n",
            "shop-9f3c2ab",
        ),
    ],
    ids=[
        "literal",
        "environ-fallback-used",
        "or-fallback-used",
        "a-role-name",
        "f-string-of-fallbacks",
        "the-commit",
        "the-revision",
        "f-string-of-the-release",
        "module-name",
        "class-attribute",
        "helper-fallback-used",
        "percent-format",
        "join",
        "format-of-a-fallback",
        "setdefault",
        "ENV-fallback-used",
        "the-namespace",
        "the-service",
        "the-app",
        "a-release-id",
        "an-app-id",
        "percent-a-number",
        "str-of-a-number-fallback",
        "a-slice-of-the-commit",
        "an-f-string-of-a-slice",
    ],
)
def test_an_instance_id_every_instance_shares_is_e007(
    tmp_path: Any, monkeypatch: Any, source: str, value: str
) -> None:
    assert instance_id_errors(tmp_path, monkeypatch, source, value) == ["horizontal.E007"]


@pytest.mark.parametrize(
    ("source", "value"),
    [
        ("", None),
        (
            'import os\nHORIZONTAL_INSTANCE_ID = os.environ.get("POD_NAME", "web-1")\n',
            "shop-7f9c4-x2",
        ),
        ('import os\nHORIZONTAL_INSTANCE_ID = os.environ["ECS_TASK_ID"]\n', "0b1c9e2a44f0"),
        (
            'import os, socket\nHORIZONTAL_INSTANCE_ID = f"{socket.gethostname()}:{os.getpid()}"\n',
            "web-3:4121",
        ),
        (
            "import os\nHORIZONTAL_INSTANCE_ID = f\"web-{os.environ.get('REPLICA', '0')}\"\n",
            "web-3",
        ),
        (
            "import os, socket\n"
            "HORIZONTAL_INSTANCE_ID = f\"{os.environ['GIT_SHA']}-{socket.gethostname()}\"\n",
            "9f3c2ab-web-3",
        ),
        ('import os\nHORIZONTAL_INSTANCE_ID = os.environ["FLY_ALLOC_ID"]\n', "3d8d9e1b"),
        # A helper whose lookup was set, and variables that name the instance in a group.
        (
            "import os\ndef instance_id():\n    return os.environ.get('POD_NAME', 'shop-web')\n"
            "HORIZONTAL_INSTANCE_ID = instance_id()\n",
            "shop-web-7f9c4-x2",
        ),
        ('import os\nHORIZONTAL_INSTANCE_ID = os.environ["APP_INSTANCE_ID"]\n', "a1"),
        ('import os\nHORIZONTAL_INSTANCE_ID = os.environ["SERVICE_REPLICA"]\n', "3"),
        ('import os\nHORIZONTAL_INSTANCE_ID = os.environ["APP_WORKER_NAME"]\n', "web-3"),
        ('import os\nHORIZONTAL_INSTANCE_ID = os.environ["SERVICE_SLOT"]\n', "7"),
    ],
    ids=[
        "unset",
        "environ-set",
        "environ-unique",
        "hostname-and-pid",
        "f-string-set",
        "release-and-hostname",
        "an-instance-variable",
        "helper-set",
        "app-instance-variable",
        "service-replica-variable",
        "app-worker-variable",
        "service-slot-variable",
    ],
)
def test_an_instance_id_of_its_own_per_instance_is_silent(
    tmp_path: Any, monkeypatch: Any, source: str, value: str | None
) -> None:
    assert instance_id_errors(tmp_path, monkeypatch, source, value) == []


def test_e007_is_a_deploy_check_only() -> None:
    with override_settings(HORIZONTAL_INSTANCE_ID="web"):
        assert config_ids() == []
        messages = checks.run_checks(
            tags=["horizontal"], include_deployment_checks=True, databases=[]
        )
    assert "horizontal.E007" in [m.id for m in messages]


def test_a_huge_number_formatted_into_the_instance_id_is_read_without_error(
    tmp_path: Any, monkeypatch: Any
) -> None:
    # ``%c`` of a number past Unicode, or a width from the values: no constant to tell.
    for source in ('HORIZONTAL_INSTANCE_ID = "web-%c" % 1114112\n', 'X = "%*d" % (10, 1)\n'):
        assert instance_id_errors(tmp_path, monkeypatch, source, "web-1") == []


def test_e007_names_the_settings_line_from_this_folder(tmp_path: Any, monkeypatch: Any) -> None:
    # As W048 and W050 give places: ``settings.py:1`` from the current folder, not the
    # absolute path (the outside trial found E007 alone printing it).
    import sys
    import types

    path = tmp_path / "relative_instance_settings.py"
    path.write_text('HORIZONTAL_INSTANCE_ID = "shop-web"\n')
    module = types.ModuleType("relative_instance_settings")
    module.__file__ = str(path)
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.chdir(tmp_path)
    with override_settings(SETTINGS_MODULE=module.__name__, HORIZONTAL_INSTANCE_ID="shop-web"):
        [message] = config_checks.check_instance_id_is_per_instance()
    assert "(relative_instance_settings.py:1)" in message.msg
