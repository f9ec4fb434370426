"""scheduler: in-process schedulers in the web process."""

import schedule
from apscheduler.schedulers.background import BackgroundScheduler
from django.apps import AppConfig
from uwsgidecorators import timer


def cleanup():
    pass


class JobsConfig(AppConfig):
    name = "jobs"

    def ready(self):
        scheduler = BackgroundScheduler()  # expect: scheduler
        scheduler.add_job(cleanup, "interval", minutes=5)
        scheduler.start()


schedule.every(10).minutes.do(cleanup)  # expect: scheduler


@timer(60)  # expect: scheduler
def sweep(signum):
    cleanup()
