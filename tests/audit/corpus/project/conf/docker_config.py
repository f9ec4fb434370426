"""Production settings for the image, under a name that does not say 'settings'."""

import os

DEBUG = False
SECRET_KEY = os.environ["SECRET_KEY"]
DATABASES = {"default": {"ENGINE": "django.db.backends.postgresql", "NAME": "shop"}}  # expect: settings (no HOST: the local socket)
DEFAULT_FILE_STORAGE = "shop.storage.ProtectedFileSystemStorage"  # expect: settings
