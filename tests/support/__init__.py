"""What the tests start and drive, shared by every test package (and the benchmarks).

Real servers and processes live here, never beside the tests that use them:
``databases`` and ``servers`` (scratch and private PostgreSQL/MariaDB), ``redis_server``
(a private redis-server to kill or pause), ``s3`` (moto's server), ``processes``
(``manage.py`` and gunicorn instances of testproject), ``browser`` (a cookie-keeping
HTTP client) and ``middleware`` (test-only middleware named in ``MIDDLEWARE``).
"""
