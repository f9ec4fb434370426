# The two entry points of the README, and the pieces they are made of.
#   make demo   set up, seed the demo data and run the refund job twice (SQLite)
#   make test   set up both Django versions, start services, lint, run the whole suite

PY311 ?= python3
# The 15 slowest tests are printed on every run, so a slow newcomer is seen in CI.
PYTEST_ARGS ?= --durations=15
# The first Python 3.12 that actually runs (a pyenv shim may exist and still refuse).
PY312 ?= $(shell for p in $$HOME/.pyenv/versions/3.12*/bin/python3.12 $$(command -v python3.12); do \
	"$$p" -c 'import sys' 2>/dev/null && echo "$$p" && break; done)
VENV := .venv
VENV61 := .venv-django61

.PHONY: demo test test-52 test-52-base test-52-chaos test-61 lint setup setup-61 services bench clean

$(VENV)/.installed: pyproject.toml
	$(PY311) -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip
	$(VENV)/bin/pip install -q -e ".[dev]" "django>=5.2,<6.0"
	touch $@

$(VENV61)/.installed: pyproject.toml
	@test -n "$(PY312)" || (echo "Python 3.12 is needed for Django 6.1 (pyenv install 3.12)"; exit 1)
	$(PY312) -m venv $(VENV61)
	$(VENV61)/bin/pip install -q --upgrade pip
	$(VENV61)/bin/pip install -q -e ".[dev]" "django>=6.1,<6.2"
	touch $@

setup: $(VENV)/.installed
setup-61: $(VENV61)/.installed

demo: setup
	rm -f testproject/db.sqlite3
	$(VENV)/bin/python manage.py migrate -v0
	$(VENV)/bin/python manage.py seed_demo --accounts 10 --refunds 50
	$(VENV)/bin/python manage.py runjob refund_balances
	$(VENV)/bin/python manage.py runjob refund_balances
	$(VENV)/bin/python manage.py jobs

services:
	scripts/services

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

test-52: test-52-base test-52-chaos

test-52-base: setup services
	HORIZONTAL_TEST_DB_SUFFIX=_dj52 $(VENV)/bin/python -m pytest -m "not chaos" $(PYTEST_ARGS)

test-52-chaos: setup services
	# Alone on the machine: the chaos scenarios measure failover times against TTL bounds.
	HORIZONTAL_TEST_DB_SUFFIX=_dj52 $(VENV)/bin/python -m pytest -m chaos $(PYTEST_ARGS)

test-61: setup-61 services
	# Suites that exercise the database protocol or the processes around Django, not Django
	# itself, run once, on 5.2: chaos, the Celery broker runs (brokers), the HAProxy suite
	# (balancer), the admin's real-browser test (browser: the admin's pages are Django's own)
	# and the other multi-process proofs (django52_only: spread, the HTTP trigger on two
	# instances). The django.tasks test runs on both (5.2's backport, 6.1's own).
	HORIZONTAL_TEST_DB_SUFFIX=_dj61 $(VENV61)/bin/python -m pytest -m "not chaos and not brokers and not balancer and not browser and not django52_only" $(PYTEST_ARGS)

# The two Django versions' suites side by side (each has its own test databases and
# Redis key prefixes; together they keep both cores busy, most of their time is spent
# waiting on servers and subprocesses), output kept per suite; then the chaos scenarios
# alone. About 30 minutes here, against 50 one after the other.
test: lint setup setup-61 services
	$(MAKE) --no-print-directory -j2 --output-sync=target test-52-base test-61
	$(MAKE) --no-print-directory test-52-chaos

bench: setup services
	$(VENV)/bin/python -m benchmarks

clean:
	rm -rf $(VENV) $(VENV61) testproject/db.sqlite3
