"""testproject settings, from the environment.

With nothing set it runs on one SQLite file (the embedded default). ``DATABASE_URL``,
``REDIS_URL`` and ``AWS_STORAGE_BUCKET_NAME`` (+ ``AWS_S3_ENDPOINT_URL``) switch on the
shared database, Redis sessions and S3 files that a fleet of instances needs.
"""

from __future__ import annotations

import os
from pathlib import Path

from horizontal.storage import storages_from_env
from testproject.dburl import database_from_url, use_pymysql

BASE_DIR = Path(__file__).resolve().parent
env = os.environ.get

SECRET_KEY = env("DJANGO_SECRET_KEY", "testproject-insecure-development-key")
DEBUG = env("DJANGO_DEBUG", "1") == "1"
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "[::1]"]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "horizontal",
    "testproject.billing",
    "testproject.accounts",
    "testproject.files",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "horizontal.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
]

if env("HORIZONTAL_CHAOS") == "1":
    INSTALLED_APPS.append("testproject.chaos")  # the chaos suite's workload only
if env("HORIZONTAL_MONITORING_DEMO") == "1":
    INSTALLED_APPS.append("testproject.monitoring")  # the monitoring tests' jobs and views
    MONITORING_JOB_SECONDS = float(env("MONITORING_JOB_SECONDS", "0.2"))

ROOT_URLCONF = "testproject.urls"
WSGI_APPLICATION = "testproject.wsgi.application"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ]
        },
    }
]

DATABASE_URL = env("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}")
if DATABASE_URL.startswith(("mysql", "mariadb")):
    use_pymysql()
DATABASES = {"default": database_from_url(DATABASE_URL)}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = env("REDIS_URL")
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 0.5, "SOCKET_TIMEOUT": 0.5},
        }
    }
    SESSION_ENGINE = "horizontal.sessions"
    HORIZONTAL_SESSION_FAILURE = env("HORIZONTAL_SESSION_FAILURE", "closed")
    HORIZONTAL_SESSION_FALLBACK_ENGINE = env("HORIZONTAL_SESSION_FALLBACK_ENGINE") or None

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "static"
MEDIA_ROOT = BASE_DIR / "media"
MEDIA_URL = "media/"
# Uploads and generated reports: S3 when AWS_STORAGE_BUCKET_NAME is set, else local files
# (development only; `check --deploy` says so with horizontal.W060).
STORAGES = storages_from_env()

USE_TZ = True
TIME_ZONE = "UTC"
LANGUAGE_CODE = "en-us"

HORIZONTAL_LEASE_TTL = float(env("HORIZONTAL_LEASE_TTL", "30"))
# Readiness (horizontal.urls): each probe's bound and how long an answer is reused.
HORIZONTAL_HEALTH_TIMEOUT = float(env("HORIZONTAL_HEALTH_TIMEOUT", "1.0"))
HORIZONTAL_HEALTH_CACHE_SECONDS = float(env("HORIZONTAL_HEALTH_CACHE_SECONDS", "1.0"))
HORIZONTAL_DEBUG_FAILPOINTS = env("HORIZONTAL_DEBUG_FAILPOINTS") == "1"
if env("HORIZONTAL_TRIGGER_SECRET"):
    HORIZONTAL_TRIGGER_SECRET = env("HORIZONTAL_TRIGGER_SECRET")
    HORIZONTAL_TRIGGER_MODE = env("HORIZONTAL_TRIGGER_MODE", "run")
if env("HORIZONTAL_SCHEDULER_CONCURRENCY"):
    HORIZONTAL_SCHEDULER_CONCURRENCY = int(env("HORIZONTAL_SCHEDULER_CONCURRENCY", "4"))
# Prometheus metrics (the [prometheus] extra) at /metrics; fleet registry every N seconds.
HORIZONTAL_METRICS = env("HORIZONTAL_METRICS") == "1"
HORIZONTAL_FLEET_INTERVAL = float(env("HORIZONTAL_FLEET_INTERVAL", "30"))
if env("HORIZONTAL_INSTANCE_ID"):
    HORIZONTAL_INSTANCE_ID = env("HORIZONTAL_INSTANCE_ID")

# Demo knob for the tests: seconds the refund job waits between refunds, so a test can
# stop or kill it mid-job.
BILLING_PAY_DELAY = float(env("BILLING_PAY_DELAY", "0"))
# Test knobs of the release hooks (billing/jobs.py): a file each hook run appends a line
# to, and the name of a hook that fails on purpose.
RELEASE_HOOK_LOG = env("RELEASE_HOOK_LOG")
RELEASE_HOOK_FAIL = env("RELEASE_HOOK_FAIL")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"instance": {"()": "horizontal.instance.InstanceFilter"}},
    "formatters": {
        "fleet": {"format": "%(asctime)s %(levelname)s [%(instance)s] %(name)s: %(message)s"},
        # One JSON object per line with every record attribute (instance, job, slot,
        # token among them): DJANGO_LOG_FORMAT=json. Needs python-json-logger.
        "json": {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "fmt": "%(asctime)s %(levelname)s %(name)s %(message)s",
        },
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "filters": ["instance"],
            "formatter": "json" if env("DJANGO_LOG_FORMAT") == "json" else "fleet",
        }
    },
    "root": {"handlers": ["console"], "level": env("DJANGO_LOG_LEVEL", "WARNING")},
}
