"""testproject as a fleet of identical instances: every piece of state is shared.

Everything comes from the environment and nothing falls back to a development default:
a missing variable stops start-up with a ``KeyError`` naming it, instead of starting an
instance that quietly keeps its state to itself.

Required: ``DJANGO_SECRET_KEY``, ``DJANGO_ALLOWED_HOSTS`` (comma-separated),
``DATABASE_URL`` (``postgres://…``), ``REDIS_URL`` and ``AWS_STORAGE_BUCKET_NAME``
(plus the usual ``AWS_*`` credentials, region and, for MinIO and the like,
``AWS_S3_ENDPOINT_URL``). Optional: ``HORIZONTAL_EXPECTED_INSTANCES`` and
``WEB_CONCURRENCY`` for the connection budget note (``horizontal.I033``).

``manage.py check --deploy --fail-level WARNING`` passes with these settings; CI runs it
(``tests/checks/test_project.py``).
"""

from __future__ import annotations

import os

from horizontal.storage import storages_from_env
from testproject.dburl import database_from_url
from testproject.settings import *  # noqa: F403
from testproject.settings import MIDDLEWARE

env = os.environ

SECRET_KEY = env["DJANGO_SECRET_KEY"]
DEBUG = False
ALLOWED_HOSTS = [host.strip() for host in env["DJANGO_ALLOWED_HOSTS"].split(",") if host]

DATABASE_URL = env["DATABASE_URL"]
if not DATABASE_URL.startswith(("postgres://", "postgresql://")):
    raise ValueError("DATABASE_URL must be a postgres:// URL in production")
# database_from_url sets connect_timeout (5 s), CONN_MAX_AGE = 0 and CONN_HEALTH_CHECKS.
DATABASES = {"default": database_from_url(DATABASE_URL)}

CACHES = {
    "default": {
        "BACKEND": "django_redis.cache.RedisCache",
        "LOCATION": env["REDIS_URL"],
        # Bounded waits: a wedged Redis costs a request half a second, not a worker.
        "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 0.5, "SOCKET_TIMEOUT": 0.5},
    }
}
SESSION_ENGINE = "horizontal.sessions"

env["AWS_STORAGE_BUCKET_NAME"]  # required: without it, uploads would stay on one host
STORAGES = storages_from_env()

# testproject enqueues no django.tasks: no backend, so nothing can run inline by accident.
TASKS: dict[str, object] = {}

if env.get("HORIZONTAL_EXPECTED_INSTANCES"):
    HORIZONTAL_EXPECTED_INSTANCES = int(env["HORIZONTAL_EXPECTED_INSTANCES"])

# Django's own deploy checks (security.*): TLS ends at the load balancer.
MIDDLEWARE = [*MIDDLEWARE, "django.middleware.clickjacking.XFrameOptionsMiddleware"]
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = True
SECURE_HSTS_SECONDS = 60 * 60 * 24 * 365
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
X_FRAME_OPTIONS = "DENY"
