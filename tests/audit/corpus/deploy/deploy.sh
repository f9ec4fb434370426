#!/bin/sh
# Run once from CI against the release: the right place for migrate.
python manage.py migrate --noinput  # ok: a one-off release step
