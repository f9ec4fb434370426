#!/bin/bash

python manage.py migrate  # expect: boot-migrate

gunicorn shop.wsgi:application --timeout 30 --log-file -
