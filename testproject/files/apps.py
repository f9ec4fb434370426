from __future__ import annotations

from django.apps import AppConfig


class FilesConfig(AppConfig):
    name = "testproject.files"
    label = "files"
