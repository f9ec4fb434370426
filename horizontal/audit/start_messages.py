"""What each finding of a start file says (shell scripts, Dockerfiles, Procfiles,
supervisor and uWSGI configs, compose stacks): one constant per kind, shared by the
readers of each file kind.
"""

from __future__ import annotations

__all__ = [
    "BEAT_EVERYWHERE",
    "BEAT_IN_WORKER_CODE",
    "BOOT_MIGRATE",
    "BOOT_RESET",
    "IMAGE_CRON",
    "PURGE_AT_START",
    "SECRET_AT_START",
    "SECRET_FILE_FIX",
    "SECRET_KEY_AT_START",
]

BOOT_MIGRATE = (
    "migrate runs every time a replica starts: N replicas race to apply migrations and "
    "old replicas meet a new schema mid-rollout"
)
IMAGE_CRON = "cron inside the image: every replica runs every cron job"
SECRET_AT_START = (
    "a secret is generated into a local file when the container starts: each replica "
    "has its own (sessions, signatures and tokens do not verify across replicas)"
)
# A secret written into a file: the fix is the secret's, not the storage's.
SECRET_FILE_FIX = (
    "Generate the secret once, store it in the environment or a secret store every "
    "instance reads, and fail at start-up when it is missing."
)
SECRET_KEY_AT_START = (
    "SECRET_KEY is generated when the container starts: each replica signs sessions, CSRF "
    "and reset tokens with a different key"
)
BOOT_RESET = (
    "a replica's start wipes state every running replica shares (the cache, the tables): "
    "each new replica resets it under the others while they serve"
)
PURGE_AT_START = (
    "a Celery worker purges the queues as each replica starts: the tasks the other "
    "replicas queued on the shared broker are deleted unrun"
)
BEAT_EVERYWHERE = "a scheduler starts in every replica or worker: every job runs N times"
BEAT_IN_WORKER_CODE = (
    "this Celery worker embeds beat: every worker process started this way is a scheduler, "
    "so with N workers each periodic task is sent N times"
)
