"""A Celery worker told to empty its queues as it starts (``celery worker --purge``), or
``celery purge``: in what every replica starts, the tasks the other replicas queued on the
shared broker are deleted unrun (a ``boot-reset`` finding, ``deploy.resets_shared_state``).
"""

from __future__ import annotations

import re

from horizontal.audit.patterns import lazy_compile

__all__ = ["purges_celery_queues"]

COMMAND_SEPARATOR = lazy_compile(r"[;&|\n]")
WORD_MARKS = "\"'[],"  # a JSON-form ``CMD ["celery", "worker", "--purge"]`` read as words


def purges_celery_queues(text: str) -> bool:
    """``celery … worker … --purge`` (or ``--discard``), or ``celery … purge`` as its
    subcommand, in one command of the line; read word by word, so that a queue or node
    named ``purge`` (``-Q purge``) is none, and no pattern backtracks on a long line."""
    if "celery" not in text or ("purge" not in text and "discard" not in text):
        return False
    for command in COMMAND_SEPARATOR.split(text):
        words = [w.strip(WORD_MARKS) for w in command.split()]
        # ``celery``, ``/venv/bin/celery``, ``command=env3/bin/celery`` (a supervisor key)
        celery = next(
            (i for i, w in enumerate(words) if re.split(r"[/=]", w)[-1] == "celery"), None
        )
        if celery is None:
            continue
        rest = words[celery + 1 :]
        if "worker" in rest and ({"--purge", "--discard"} & set(rest)):
            return True
        if any(w == "purge" and (i == 0 or rest[i - 1][:1] != "-") for i, w in enumerate(rest)):
            return True
    return False
