#!/bin/sh
set -e

python manage.py check --deploy  # ok: checks are read-only
python manage.py showmigrations  # ok: read-only
python manage.py migrate --plan  # ok: a dry run
python manage.py migrate_locked --wait 300  # ok: one replica migrates, the rest wait
python manage.py migrate --noinput  # expect: boot-migrate
python manage.py migrate --database=audit  # horizontal: ignore[boot-migrate]
python manage.py clear_cache  # expect: boot-reset
echo "to start again: python manage.py flush --noinput"  # ok: a message, not a run
service cron start  # expect: image-cron
celery -A shop beat --detach  # expect: scheduler
exec gunicorn shop.wsgi:application --bind 0.0.0.0:8000
