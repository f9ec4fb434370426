"""Never imported by the suite: Django 5.2 has no django.tasks. W041 reads it as text."""

from __future__ import annotations

from django.tasks import task  # type: ignore[import-not-found]


@task()
def send_receipt(order_id: int) -> None:
    print(order_id)
