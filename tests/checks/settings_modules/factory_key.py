"""A helper whose default factory is a generator, called when the variable is unset."""

from __future__ import annotations

import os

from django.core.management.utils import get_random_secret_key


def secret(name, default_factory=get_random_secret_key):
    return os.environ.get(name) or default_factory()


SECRET_KEY = secret("HORIZONTAL_TEST_FACTORY_KEY")
