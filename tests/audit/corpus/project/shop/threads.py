"""timer-thread: threads that start at boot or loop in the background."""

import threading
import time

from django.apps import AppConfig
from django.core.mail import send_mail


def poll_forever():
    while True:
        time.sleep(60)


_poller = threading.Thread(target=poll_forever, daemon=True)  # expect: timer-thread
_poller.start()


def refresh():
    global _timer  # expect: module-state
    _timer = threading.Timer(300, refresh)  # expect: timer-thread
    _timer.start()


class Heartbeat(threading.Thread):
    def run(self):
        while True:
            time.sleep(30)


def start_heartbeat():
    Heartbeat(daemon=True).start()  # expect: timer-thread


def start_workers():
    # Called by ready() below: every process starts both at boot.
    refresh()
    start_heartbeat()


def start_polling(request):
    # Started by a request: it loops where that request ran, not in every instance.
    threading.Thread(target=poll_forever, daemon=True).start()  # ok


class ShopConfig(AppConfig):
    name = "shop"

    def ready(self):
        # One piece of work at boot: once per process, nothing periodic multiplies.
        threading.Timer(5.0, print).start()  # ok
        start_workers()


def contact(request):
    # One background send per request: no loop, not at boot.
    threading.Thread(target=send_mail, args=("hi", "body", None, ["a@b.c"])).start()  # ok
