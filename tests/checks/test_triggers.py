"""Deploy warnings W080–W083 (horizontal/checks/triggers.py): the HTTP trigger's settings."""

from __future__ import annotations

from typing import Any

from horizontal.checks import triggers
from tests.checks.baseline import (
    assert_follows_the_contract,
    assert_registered_deploy_only,
    deploy_messages,
)


def ids(**settings: Any) -> list[str]:
    return sorted(m.id for m in deploy_messages([triggers], **settings))


def test_routed_without_a_secret_is_w080_and_not_routed_is_quiet() -> None:
    assert ids(ROOT_URLCONF="horizontal.urls", HORIZONTAL_TRIGGER_SECRET=None) == [
        "horizontal.W080"
    ]
    unrouted = "tests.checks.urls_without_trigger"
    assert ids(ROOT_URLCONF=unrouted, HORIZONTAL_TRIGGER_SECRET=None) == []


def test_a_short_secret_is_w081() -> None:
    assert ids(HORIZONTAL_TRIGGER_SECRET="x" * 31) == ["horizontal.W081"]
    assert ids(HORIZONTAL_TRIGGER_SECRET="x" * 32) == []
    assert ids(HORIZONTAL_TRIGGER_SECRET="é" * 16) == []  # bytes, not characters


def test_plain_http_allowed_on_an_https_site_is_w082() -> None:
    secret = "x" * 40
    assert ids(
        HORIZONTAL_TRIGGER_SECRET=secret,
        SECURE_SSL_REDIRECT=True,
        HORIZONTAL_TRIGGER_REQUIRE_HTTPS=False,
    ) == ["horizontal.W082"]
    # The default refuses plain HTTP on such a site: nothing to say.
    assert ids(HORIZONTAL_TRIGGER_SECRET=secret, SESSION_COOKIE_SECURE=True) == []
    assert ids(HORIZONTAL_TRIGGER_SECRET=secret, HORIZONTAL_TRIGGER_REQUIRE_HTTPS=False) == []


def test_the_secret_key_as_trigger_secret_is_w083() -> None:
    key = "k" * 50
    assert ids(SECRET_KEY=key, HORIZONTAL_TRIGGER_SECRET=key) == ["horizontal.W083"]
    assert ids(
        SECRET_KEY="other" * 10, SECRET_KEY_FALLBACKS=[key], HORIZONTAL_TRIGGER_SECRET=key
    ) == ["horizontal.W083"]


def test_every_message_follows_the_check_contract() -> None:
    assert_registered_deploy_only(triggers)
    for message in (triggers.W080("/x"), triggers.W081(3), triggers.W082(), triggers.W083()):
        assert_follows_the_contract(message)
