"""in-process-lock: locks that guard shared state serialise one process only."""

import fcntl
import threading

from filelock import FileLock

from .models import Invoice

_number_lock = threading.Lock()
_cache_lock = threading.RLock()
_memo = {}


def next_invoice_number():
    with _number_lock:  # expect: in-process-lock
        last = Invoice.objects.order_by("-number").first()
        return Invoice.objects.create(number=(last.number + 1) if last else 1)


def remember(key, value):
    with _cache_lock:  # ok: guards this process's own dict
        _memo[key] = value


class Ledger:
    _lock = threading.Lock()

    def post(self, entry):
        with self._lock:  # expect: in-process-lock
            entry.save()


def run_once():
    with open("/srv/shop/run-once.marker", "w") as handle:  # expect: file-write
        fcntl.flock(handle, fcntl.LOCK_EX)  # expect: in-process-lock
        handle.write("running")


def rebuild_index():
    with FileLock("/tmp/rebuild.lock"):  # expect: in-process-lock
        return Invoice.objects.count()
