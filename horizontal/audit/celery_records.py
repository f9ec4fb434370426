"""What the Celery readers record (``celery_conf.py`` reads the apps' code,
``celery_objects.py`` the configuration objects they load), and how a written value
becomes an address; kept apart so that ``celery_objects.py`` needs nothing from
``celery_conf.py``, which imports it (no cycle).
"""

from __future__ import annotations

import ast
from typing import NamedTuple

from horizontal.audit.eager_options import EagerOption, Guards
from horizontal.audit.env_lookups import env_default, environment_variable
from horizontal.audit.source import settings_attribute, string_value

__all__ = ["CeleryAddress", "CeleryConf", "address_of", "resolved"]


class CeleryAddress(NamedTuple):
    """A broker or result store an app is given in code, under the ``if`` tests around
    it (as ``EagerOption.guards``)."""

    path: str
    line: int
    option: str
    value: str
    guards: Guards
    # Set by a configuration object (``config_from_object("shop.celeryconfig")``): the
    # loading call's place in ``CeleryConf.loads``, as a later load replaces it.
    loaded_by: int | None = None
    # The environment variables the value reads (``os.environ.get("BROKER", "redis://
    # localhost")``): where one is set, its default is not what runs.
    variables: tuple[str, ...] = ()
    # A Django setting the value is (``app.conf.broker_url = settings.REDIS_URL``): the
    # check reads it live; ``value`` is then empty.
    setting: str | None = None
    # The value as written, when it reads the environment: the check renders it with the
    # variables that are set (``f"redis://:{os.environ['PASSWORD']}@localhost"``).
    node: ast.expr | None = None


class CeleryConf(NamedTuple):
    """What the project's code tells its Celery apps: each write of an eager option, and
    the settings prefixes the apps read (``namespace="CELERY"``)."""

    eager: list[EagerOption]
    namespaces: set[str]
    # Each broker or result store written in code: ``Celery("shop",
    # broker="redis://localhost")``, ``app.conf.broker_url = …``, and in a configuration
    # object of the project's (``broker_url = …`` in ``shop/celeryconfig.py``).
    addresses: list[CeleryAddress]
    # Each ``config_from_object`` call: the calling file and the ``if`` tests around it.
    loads: tuple[tuple[str, Guards], ...] = ()
    # ``app.conf.update(settings.CELERY)``: Django settings whose live mapping configures
    # an app, with the call's place and guards.
    from_settings: tuple[CeleryAddress, ...] = ()


def resolved(node: ast.expr, names: dict[str, ast.expr]) -> ast.expr:
    """What a module-level name was bound to, through a few names in a row."""
    for _ in range(5):
        if not isinstance(node, ast.Name) or node.id not in names:
            break
        node = names[node.id]
    return node


def address_of(
    path: str, line: int, option: str, node: ast.expr, guards: Guards, loaded_by: int | None = None
) -> list[CeleryAddress]:
    """The address a value gives: a string, an environment lookup's fallback (with the
    variable, which wins where it is set), an f-string or ``+`` of those, or a Django
    setting read live (``settings.REDIS_URL``)."""
    from horizontal.audit.settings_values import address_text  # loaded with the check

    variables = tuple(
        variable for child in ast.walk(node) if (variable := environment_variable(child))
    )
    setting = settings_attribute(node)
    if setting is not None:
        return [CeleryAddress(path, line, option, "", guards, loaded_by, (), setting)]
    value = string_value(node) or string_value(env_default(node))
    if value is None and isinstance(node, ast.JoinedStr | ast.BinOp):
        value = address_text(node, {})[0]
    if value is None:
        return []
    written = node if variables else None
    return [CeleryAddress(path, line, option, value, guards, loaded_by, variables, None, written)]
