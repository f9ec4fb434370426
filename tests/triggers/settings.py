"""Settings of the trigger tests' child processes: testproject plus the workload app.

``TASKS`` uses django-tasks-db's database backend (the ``[tasks]`` extra): on Django 6.1
over ``django.tasks``, on 5.2 over the ``django-tasks`` backport.
"""

from __future__ import annotations

from testproject.settings import *  # noqa: F403
from testproject.settings import INSTALLED_APPS

INSTALLED_APPS = [*INSTALLED_APPS, "django_tasks_db", "tests.triggers.workload"]
TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default"]}}
