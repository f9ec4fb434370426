"""What a shell script's name says about when it runs.

A start script (``docker-entrypoint.sh``, ``run.sh``, ``start-web.sh``) runs in every
replica as it starts; an installer or upgrade script runs once, by hand; a platform's
deploy hook once per deploy; a script named for development on a developer's machine; a
set-up script (``bootstrap.sh``) once, unless a start script runs it (judged there).
"""

from __future__ import annotations

import re

from horizontal.audit.patterns import lazy_compile

__all__ = [
    "DEVELOPMENT_SCRIPT",
    "ENTRYPOINT_NAME",
    "named_like_a_start",
    "run_once_or_by_a_developer",
]

ENTRYPOINT_NAME = lazy_compile(
    r"entrypoint|start|boot|run|docker|init|cmd|serve|launch|celery", re.I
)
# Installers, upgrade, update, backup and restore scripts and provisioning: an operator
# runs them, once, by hand (``update.sh``, ``restore.sh``, ``backup-db.sh``).
BY_HAND = lazy_compile(
    r"^(install|installer|uninstall|upgrade|update|provision|vagrant|backup|restore)"
    r"[\w.-]*\.(sh|bash)$",
    re.I,
)
# ``run-django-dev.sh``, ``start_local.sh``, ``dev-entrypoint.sh``: a developer's start.
DEVELOPMENT_SCRIPT = lazy_compile(
    r"(^|[_.-])(dev|devel|development|local)([_.-][\w.-]*)?\.(sh|bash)$", re.I
)
# A platform's deploy hook (``on_deploy.sh``, ``on_initialize.sh``, ``post_deploy.sh``,
# ``release.sh``): run once per deploy or install, not by every replica as it starts.
DEPLOY_HOOK = lazy_compile(
    r"^((on|post|pre)[_-]?(deploy|initiali[sz]e|release|install)|release)([_-][\w.-]*)?"
    r"\.(sh|bash)$",
    re.I,
)


# ``migrate.sh``, ``migrate_db.sh``: a migration job's script, run once per deploy (a
# Kubernetes Job, a release phase) unless a start script runs it.
MIGRATION_SCRIPT = lazy_compile(r"^migrat(e|ions?)([_-][\w.-]*)?\.(sh|bash)$", re.I)


# bootstrap.sh, setup_dev.sh, init.sh, scripts/bootstrap: a set-up script run once (it
# starts no server), although "boot", "init" and "dev" are in entrypoint names too; a
# start that runs one makes it part of every replica's start
# (starts.scripts_run_by_start_scripts).
SETUP_NAME = lazy_compile(
    r"^((bootstrap|setup|init)[\w.-]*\.(sh|bash)|(bootstrap|setup)[\w-]*)$", re.I
)


def named_like_a_start(name: str) -> bool:
    return bool(ENTRYPOINT_NAME.search(name)) and not SETUP_NAME.match(name)


def run_once_or_by_a_developer(name: str) -> bool:
    """An installer, a deploy hook, a migration job's script or a developer's start: not
    every replica's start."""
    return bool(
        BY_HAND.match(name)
        or DEPLOY_HOOK.match(name)
        or MIGRATION_SCRIPT.match(name)
        or DEVELOPMENT_SCRIPT.search(name)
    )
