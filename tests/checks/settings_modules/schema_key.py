"""A settings module whose environment schema (django-environ's form: ``Env(NAME=(cast,
default))``) defaults SECRET_KEY to a random one."""

from __future__ import annotations

import os
from typing import Any

from django.core.management.utils import get_random_secret_key


class Env:
    """django-environ's ``Env`` reduced to its schema: each variable's cast and default."""

    def __init__(self, **schema: tuple[Any, Any]) -> None:
        self.schema = schema

    def __call__(self, name: str) -> Any:
        cast, default = self.schema[name]
        return cast(os.environ[name]) if name in os.environ else default


env = Env(NO_SUCH_SECRET_KEY_VARIABLE=(str, get_random_secret_key()))
SECRET_KEY = env("NO_SUCH_SECRET_KEY_VARIABLE")
