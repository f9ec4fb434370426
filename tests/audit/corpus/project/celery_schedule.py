"""What beat sends: the deploy files start beat, and this is what it schedules."""

from celery.schedules import crontab

beat_schedule = {
    "nightly-export": {"task": "shop.tasks.consume", "schedule": crontab(hour=3, minute=0)},
}
