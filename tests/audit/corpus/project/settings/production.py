from django.core.management.utils import get_random_secret_key

from .base import *  # noqa: F403

SECRET_KEY = os.environ.get("SECRET_KEY") or get_random_secret_key()  # expect: settings

SESSION_ENGINE = "django.contrib.sessions.backends.file"  # expect: settings
EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"  # expect: settings

CHANNEL_LAYERS = {
    "default": {"BACKEND": "channels.layers.InMemoryChannelLayer"},  # expect: settings
}

LOGGING = {
    "version": 1,
    "handlers": {
        "file": {
            "class": "logging.handlers.RotatingFileHandler",  # expect: log-file
            "filename": "/var/log/shop/app.log",
        },
        "console": {"class": "logging.StreamHandler"},  # ok: stdout
    },
}

CRONJOBS = [  # expect: settings
    ("*/5 * * * *", "shop.cron.sync"),
]
