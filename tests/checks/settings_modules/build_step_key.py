"""Settings whose random SECRET_KEY is only for the image build's collectstatic run."""

from __future__ import annotations

import os
import sys

from django.core.management.utils import get_random_secret_key

SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
if "collectstatic" in sys.argv:
    SECRET_KEY = get_random_secret_key()  # the build has no secret, and needs none
