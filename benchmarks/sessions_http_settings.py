"""Settings of benchmarks.sessions_http: testproject's, with one async view and only
the session middleware, the engine picked by BENCH_SESSION_ENGINE."""

from __future__ import annotations

import os

from testproject.settings import *  # noqa: F403

ROOT_URLCONF = "benchmarks.sessions_http"
DEBUG = False
ALLOWED_HOSTS = ["*"]
if os.environ.get("BENCH_SESSION_ENGINE") == "django":
    # Django's cache engine on the same django-redis alias, with Django's middleware.
    SESSION_ENGINE = "django.contrib.sessions.backends.cache"
    MIDDLEWARE = ["django.contrib.sessions.middleware.SessionMiddleware"]
else:
    SESSION_ENGINE = "horizontal.sessions"
    MIDDLEWARE = ["horizontal.sessions.middleware.SessionMiddleware"]
