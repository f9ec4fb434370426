"""Generated from docs/checks.md by ``python -m horizontal.catalogue``: do not edit."""

# ruff: noqa: E501
from __future__ import annotations

GROUPS: dict[str, tuple[str, ...]] = {
    "`horizontal.E001`–`E009`: settings": (
        "In `horizontal/checks/config.py`.",
        "Every `HORIZONTAL_*` setting is checked for its type and value (see [settings](settings.md)); each message names the setting.",
    ),
    "`horizontal.E010`–`E017`: job registrations": (
        "Reported by `horizontal/checks/jobs.py`.",
        "These run on every `check`, and so before `runserver`, `migrate` and `runscheduler` start: a schedule that does not parse is a broken deploy.",
        "`runjob NAME` checks only job `NAME`'s registration (it runs no other check, to start fast on every node every minute): it refuses (exit 2) to run a job whose registration has one of these errors, and runs every other job as usual.",
    ),
    "Caches and session engines: `horizontal.W001`–`W019`": (
        "In `horizontal/checks/caches.py` (`W001`–`W003`) and `horizontal/checks/sessions.py` (`W010`, `W011`).",
    ),
    "The Redis session store: `horizontal.W020`–`W029`": (
        "In `horizontal/checks/sessions.py`, with `W010` and `W011`.",
        'They run only when `SESSION_ENGINE = "horizontal.sessions"` (or a subclass of its `SessionStore`), read settings only and never connect to Redis. See [sessions](sessions.md).',
    ),
    "Databases, background work, secrets, logging, email: `horizontal.W030`–`W059`": (
        "In `horizontal/checks/databases.py` (`W030`–`W036`), `background.py` (`W040`–`W047`), `secret_key.py` (`W050`) and `logging_email.py` (`W051`, `W052`).",
    ),
    "File storage: `horizontal.W060`–`W069`": (
        "In `horizontal/checks/storage.py`.",
        "Deploy-only warnings about `STORAGES` ([files](files.md)). Every alias is checked except `staticfiles` (W060, W061, W063 and W064 skip it: static files are built into every image, collectstatic overwriting them is intended, and they are usually public). Backends are matched by class, subclasses included; S3 options are read from the storage object Django builds, so `OPTIONS`, `AWS_*` settings and the environment all count. No check touches the network.",
    ),
    "Code audit: `horizontal.W100`–`W199`": (
        "In `horizontal/checks/code.py`.",
        "`check --deploy` scans the project's own apps (never site-packages, never `horizontal`) with [`horizontal.audit`](audit.md) and reports one warning per finding, `obj` = `path:line`, the fix as the hint. `manage.py audit` reports the same plus settings, Dockerfiles, entrypoints, Procfiles and crontabs, with baselines and SARIF output.",
        "`horizontal.W109` (settings read from source) is reported by `manage.py audit` only: the W0xx checks above judge the live settings. Suppress one finding with `# horizontal: ignore[category]` on its line; `SILENCED_SYSTEM_CHECKS` silences a whole id.",
    ),
}

ENTRIES: dict[str, dict[str, object]] = {
    "horizontal.E001": {
        "level": "Error",
        "runs_on": "every `check`",
        "summary": "a `HORIZONTAL_*` setting has the wrong type",
        "group": "`horizontal.E001`–`E009`: settings",
        "fields": (
            (
                "what is wrong",
                'a `HORIZONTAL_*` setting has the wrong type: `HORIZONTAL_LEASE_TTL = "30"`, `HORIZONTAL_EXPECTED_INSTANCES = 2.5`, `HORIZONTAL_LOCAL_CACHES = "l1"`',
            ),
            (
                "fix",
                "the type the message names (a number of seconds, an integer, a list of aliases…), or remove the setting for its default",
            ),
        ),
    },
    "horizontal.E002": {
        "level": "Error",
        "runs_on": "every `check`",
        "summary": "a `HORIZONTAL_*` setting has a value out of range or not among its choices",
        "group": "`horizontal.E001`–`E009`: settings",
        "fields": (
            (
                "what is wrong",
                'a value out of range or not one of the choices: a lease TTL ≤ 0, an empty or whitespace-containing `HORIZONTAL_INSTANCE_ID` (or longer than the 200 characters the owner columns hold), `HORIZONTAL_SESSION_FAILURE` not `"closed"`/`"open"`, a count < 1',
            ),
            ("fix", "a value the message names"),
        ),
    },
    "horizontal.E003": {
        "level": "Error",
        "runs_on": "every `check`",
        "summary": "`HORIZONTAL_DATABASE` is not a `DATABASES` alias",
        "group": "`horizontal.E001`–`E009`: settings",
        "fields": (
            ("what is wrong", "`HORIZONTAL_DATABASE` names an alias that is not in `DATABASES`"),
            ("fix", "the alias every instance shares for leases and job runs"),
        ),
    },
    "horizontal.E004": {
        "level": "Error",
        "runs_on": "every `check`",
        "summary": "a router keeps horizontal's tables off `HORIZONTAL_DATABASE`",
        "group": "`horizontal.E001`–`E009`: settings",
        "fields": (
            (
                "what is wrong",
                "a database router's `allow_migrate()` keeps app `horizontal` off `HORIZONTAL_DATABASE`",
            ),
            ("fix", "the lease and job-run tables would not exist there: let the router allow it"),
        ),
    },
    "horizontal.E005": {
        "level": "Error",
        "runs_on": "every `check`",
        "summary": "`HORIZONTAL_SESSION_FALLBACK_ENGINE` cannot be imported",
        "group": "`horizontal.E001`–`E009`: settings",
        "fields": (
            (
                "what is wrong",
                "`HORIZONTAL_SESSION_FALLBACK_ENGINE` cannot be imported (no `SessionStore` in that module)",
            ),
            ("fix", 'a session engine module path, e.g. `"django.contrib.sessions.backends.db"`'),
        ),
    },
    "horizontal.E006": {
        "level": "Error",
        "runs_on": "every `check`",
        "summary": "`HORIZONTAL_LOCAL_CACHES` names an alias not in `CACHES`",
        "group": "`horizontal.E001`–`E009`: settings",
        "fields": (
            ("what is wrong", "`HORIZONTAL_LOCAL_CACHES` names an alias that is not in `CACHES`"),
            (
                "fix",
                "list existing aliases only (a typo would leave the intended alias unexcused and the list stale)",
            ),
        ),
    },
    "horizontal.E009": {
        "level": "Error",
        "runs_on": "every `check`",
        "summary": "a misspelt `HORIZONTAL_*` setting name",
        "group": "`horizontal.E001`–`E009`: settings",
        "fields": (
            (
                "what is wrong",
                "a setting named like a `horizontal` setting but misspelt (`HORIZONTAL_LEASE_TTLS`)",
            ),
            (
                "fix",
                "the spelling the message suggests: as spelt, the setting is ignored. Only near misses are reported, so a `HORIZONTAL_*` name of your own is left alone",
            ),
        ),
    },
    "horizontal.E010": {
        "level": "Error",
        "runs_on": "every `check`",
        "summary": "a job's cron expression does not parse",
        "group": "`horizontal.E010`–`E017`: job registrations",
        "fields": (
            ("what is wrong", "a job's cron expression does not parse"),
            ("fix", "5 fields (minute hour day month weekday), or 6 with seconds last"),
        ),
    },
    "horizontal.E011": {
        "level": "Error",
        "runs_on": "every `check`",
        "summary": "a job's time zone does not exist",
        "group": "`horizontal.E010`–`E017`: job registrations",
        "fields": (
            ("what is wrong", "a job's time zone is not an IANA zone"),
            ("fix", 'e.g. `"UTC"`, `"Europe/Berlin"`'),
        ),
    },
    "horizontal.E012": {
        "level": "Error",
        "runs_on": "every `check`",
        "summary": "a job name registered twice (also one function imported twice)",
        "group": "`horizontal.E010`–`E017`: job registrations",
        "fields": (
            (
                "what is wrong",
                "a job name is registered more than once, including the same function imported under two module paths",
            ),
            (
                "fix",
                "one name, one registration; import the jobs module one way only — a double registration is how one run becomes eight",
            ),
        ),
    },
    "horizontal.E013": {
        "level": "Error",
        "runs_on": "every `check`",
        "summary": "a job's `catchup` policy is unknown",
        "group": "`horizontal.E010`–`E017`: job registrations",
        "fields": (
            ("what is wrong", "`catchup` is not `skip`, `latest` or `all`"),
            ("fix", "pick one"),
        ),
    },
    "horizontal.E014": {
        "level": "Error",
        "runs_on": "every `check`",
        "summary": "a job's `overlap` policy is unknown",
        "group": "`horizontal.E010`–`E017`: job registrations",
        "fields": (
            ("what is wrong", "`overlap` is not `skip` or `allow`"),
            ("fix", "pick one"),
        ),
    },
    "horizontal.E015": {
        "level": "Error",
        "runs_on": "every `check`",
        "summary": "a job's `ttl` is not a positive number",
        "group": "`horizontal.E010`–`E017`: job registrations",
        "fields": (
            ("what is wrong", "`ttl` is not a positive number of seconds"),
            ("fix", "leave it unset or give seconds > 0"),
        ),
    },
    "horizontal.E016": {
        "level": "Error",
        "runs_on": "every `check`",
        "summary": "a job name is empty, too long or has whitespace",
        "group": "`horizontal.E010`–`E017`: job registrations",
        "fields": (
            (
                "what is wrong",
                "the job name is empty, longer than 200 characters or has whitespace",
            ),
            ("fix", "a short identifier"),
        ),
    },
    "horizontal.E017": {
        "level": "Error",
        "runs_on": "every `check`",
        "summary": "a job's `max_attempts` is not a whole number ≥ 1",
        "group": "`horizontal.E010`–`E017`: job registrations",
        "fields": (
            ("what is wrong", "`max_attempts` is not a whole number ≥ 1"),
            ("fix", "leave it at 1, or give the number of automatic attempts"),
        ),
    },
    "horizontal.W001": {
        "level": "Warning",
        "runs_on": "`--deploy`",
        "summary": "a cache is `LocMemCache` (also Django's default without `CACHES`)",
        "group": "Caches and session engines: `horizontal.W001`–`W019`",
        "fields": (
            (
                "what goes wrong with N instances",
                "`CACHES['<alias>']` is `LocMemCache` (or a subclass), including Django's default when `CACHES` is not set: every process of every instance has its own cache",
            ),
            (
                "risk",
                "an invalidation on one instance is not seen by the others (stale pages, stale permissions); rate limits are per process (N× the limit); `cache.add()` locks do not exclude other instances",
            ),
            (
                "fix",
                "a shared cache (`django.core.cache.backends.redis.RedisCache`, django-redis, Memcached); an alias that is per-instance on purpose goes in `HORIZONTAL_LOCAL_CACHES`",
            ),
        ),
    },
    "horizontal.W002": {
        "level": "Warning",
        "runs_on": "`--deploy`",
        "summary": "a cache is `FileBasedCache`",
        "group": "Caches and session engines: `horizontal.W001`–`W019`",
        "fields": (
            (
                "what goes wrong with N instances",
                "`CACHES['<alias>']` is `FileBasedCache`: a cache per host's disk",
            ),
            (
                "risk",
                "as W001, per host; on a shared volume, concurrent writers on several hosts corrupt or lose entries",
            ),
            ("fix", "as W001"),
        ),
    },
    "horizontal.W003": {
        "level": "Warning",
        "runs_on": "`--deploy`",
        "summary": "a cache is `DummyCache`",
        "group": "Caches and session engines: `horizontal.W001`–`W019`",
        "fields": (
            (
                "what goes wrong with N instances",
                "`CACHES['<alias>']` is `DummyCache`: nothing is stored, and `cache.add()` always answers \"added\"",
            ),
            (
                "risk",
                "every instance wins every cache lock, so code guarded by `cache.add()` runs everywhere at once; rate limits never trigger",
            ),
            ("fix", "a real shared cache; `DummyCache` is for tests"),
        ),
    },
    "horizontal.W010": {
        "level": "Warning",
        "runs_on": "`--deploy`",
        "summary": "sessions are files on one host",
        "group": "Caches and session engines: `horizontal.W001`–`W019`",
        "fields": (
            (
                "what goes wrong with N instances",
                "`SESSION_ENGINE` is Django's `file` engine (or a subclass): sessions are files on the host that created them",
            ),
            (
                "risk",
                "the next request the load balancer sends to another instance has no session: the user is logged out, carts and CSRF-protected forms are lost",
            ),
            (
                "fix",
                '`SESSION_ENGINE = "horizontal.sessions"` (Redis, see [sessions](sessions.md)) or Django\'s `db` engine',
            ),
        ),
    },
    "horizontal.W011": {
        "level": "Warning",
        "runs_on": "`--deploy`",
        "summary": "cache sessions on a cache that is not shared",
        "group": "Caches and session engines: `horizontal.W001`–`W019`",
        "fields": (
            (
                "what goes wrong with N instances",
                "`SESSION_ENGINE` is Django's `cache` or `cached_db` engine (or a subclass) and `SESSION_CACHE_ALIAS` is `LocMemCache`, `FileBasedCache` or `DummyCache`",
            ),
            (
                "risk",
                "with `cache`: users are logged out whenever they reach another instance; with `cached_db`: instances serve stale session data (a logout or a permission change on one is not seen on another until the local copy expires). `HORIZONTAL_LOCAL_CACHES` does not excuse this one",
            ),
            (
                "fix",
                '`SESSION_ENGINE = "horizontal.sessions"`, or point `SESSION_CACHE_ALIAS` at Redis/Memcached',
            ),
        ),
    },
    "horizontal.W020": {
        "level": "Warning",
        "runs_on": "`--deploy`",
        "summary": "`horizontal.sessions` has no django-redis session cache",
        "group": "The Redis session store: `horizontal.W020`–`W029`",
        "fields": (
            (
                "what goes wrong with N instances",
                "`SESSION_CACHE_ALIAS` is missing or is not a django-redis cache: the engine refuses to start (`ImproperlyConfigured` on the first request)",
            ),
            ("risk", "every request that touches a session fails"),
            ("fix", "point `SESSION_CACHE_ALIAS` at a `django_redis.cache.RedisCache` alias"),
        ),
    },
    "horizontal.W021": {
        "level": "Warning",
        "runs_on": "`--deploy`",
        "summary": "the session Redis has no socket timeouts",
        "group": "The Redis session store: `horizontal.W020`–`W029`",
        "fields": (
            (
                "what goes wrong with N instances",
                "the alias sets no `SOCKET_CONNECT_TIMEOUT` / `SOCKET_TIMEOUT`: redis-py waits for ever on a wedged server. The engine adds 0.5 s to its own pool when the pool is redis-py's plain `ConnectionPool`, but not to Sentinel or custom pools, nor to other code using the alias",
            ),
            (
                "risk",
                "one stuck Redis hangs every worker of every instance; the load balancer's health checks time out and the fleet goes down together",
            ),
            (
                "fix",
                '`"OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 0.5, "SOCKET_TIMEOUT": 0.5}` (and `SENTINEL_KWARGS={"socket_timeout": 0.5}` with Sentinel)',
            ),
        ),
    },
    "horizontal.W022": {
        "level": "Warning",
        "runs_on": "`--deploy`",
        "summary": "the session Redis ignores exceptions",
        "group": "The Redis session store: `horizontal.W020`–`W029`",
        "fields": (
            (
                "what goes wrong with N instances",
                'the alias has `IGNORE_EXCEPTIONS` (or `DJANGO_REDIS_IGNORE_EXCEPTIONS`): a Redis error reads as "no value" through the cache API',
            ),
            (
                "risk",
                "with Django's cache engines every user is logged out during a blip; other code on the alias cannot tell an outage from a miss",
            ),
            (
                "fix",
                "turn it off for the sessions alias; keep a separate best-effort cache alias if you want one",
            ),
        ),
    },
    "horizontal.W023": {
        "level": "Warning",
        "runs_on": "`--deploy`",
        "summary": "the session Redis reads from replicas",
        "group": "The Redis session store: `horizontal.W020`–`W029`",
        "fields": (
            (
                "what goes wrong with N instances",
                "`LOCATION` lists replicas: django-redis reads from a random replica",
            ),
            (
                "risk",
                'a login made on instance A is not yet on the replica instance B reads; after a failover the "primary" may be read-only (`ReadOnlyError`)',
            ),
            (
                "fix",
                "give the sessions alias the primary only; use Sentinel (`SentinelConnectionFactory`) for failover",
            ),
        ),
    },
    "horizontal.W024": {
        "level": "Warning",
        "runs_on": "`--deploy`",
        "summary": "horizontal's session middleware is missing",
        "group": "The Redis session store: `horizontal.W020`–`W029`",
        "fields": (
            (
                "what goes wrong with N instances",
                "`horizontal.sessions.middleware.SessionMiddleware` is not in `MIDDLEWARE` (Django's is)",
            ),
            (
                "risk",
                'a store error becomes a 500 instead of a 503 with `Retry-After`, and `HORIZONTAL_SESSION_FAILURE = "open"` cannot drop a failed write',
            ),
            (
                "fix",
                "replace `django.contrib.sessions.middleware.SessionMiddleware` with `horizontal.sessions.middleware.SessionMiddleware` (the old path `horizontal.middleware.SessionMiddleware` is the same class)",
            ),
        ),
    },
    "horizontal.W025": {
        "level": "Warning",
        "runs_on": "`--deploy`",
        "summary": "another cache alias shares the session Redis database",
        "group": "The Redis session store: `horizontal.W020`–`W029`",
        "fields": (
            (
                "what goes wrong with N instances",
                "another django-redis alias uses the same server and database",
            ),
            (
                "risk",
                "`cache.clear()` on that alias is `FLUSHDB`: every session on every instance is gone; under `allkeys-*` eviction, cache traffic evicts sessions",
            ),
            (
                "fix",
                "give sessions a Redis database or server of their own, with `maxmemory-policy noeviction` (or `volatile-*`)",
            ),
        ),
    },
    "horizontal.W030": {
        "level": "Warning",
        "runs_on": "`--deploy`",
        "summary": "a database is SQLite",
        "group": "Databases, background work, secrets, logging, email: `horizontal.W030`–`W059`",
        "fields": (
            (
                "what goes wrong with N instances",
                "`DATABASES['<alias>']` is SQLite (by vendor, so SpatiaLite and custom SQLite backends count): each instance has its own file",
            ),
            (
                "risk",
                "every instance has different data; on a shared volume (NFS, EFS) SQLite's file locking is unreliable and the database can corrupt",
            ),
            ("fix", "PostgreSQL or MySQL/MariaDB shared by every instance"),
        ),
    },
    "horizontal.W031": {
        "level": "Warning",
        "runs_on": "`--deploy`",
        "summary": "persistent connections without health checks or a pool",
        "group": "Databases, background work, secrets, logging, email: `horizontal.W030`–`W059`",
        "fields": (
            (
                "what goes wrong with N instances",
                '`CONN_MAX_AGE` is `None` or > 0 with `CONN_HEALTH_CHECKS = False` and no `OPTIONS["pool"]`: every process keeps a connection and reuses it unchecked',
            ),
            (
                "risk",
                "after a database failover or restart, the first request of every process on every instance fails on its dead connection",
            ),
            (
                "fix",
                '`CONN_HEALTH_CHECKS = True` (checks a reused connection once per request), or `CONN_MAX_AGE = 0`, or PostgreSQL\'s `OPTIONS["pool"]`',
            ),
        ),
    },
    "horizontal.W032": {
        "level": "Warning",
        "runs_on": "`--deploy`",
        "summary": "a database has no connect timeout",
        "group": "Databases, background work, secrets, logging, email: `horizontal.W030`–`W059`",
        "fields": (
            (
                "what goes wrong with N instances",
                'a PostgreSQL or MySQL/MariaDB alias has no `OPTIONS["connect_timeout"]` (nor `PGCONNECT_TIMEOUT` in the environment, nor a libpq `service` / MySQL `read_default_file` that may set one); `0` counts as none',
            ),
            (
                "risk",
                "when the server is unreachable, connecting waits for the operating system's TCP timeout (minutes): every worker of every instance hangs, health checks time out, and the whole fleet is restarted at once",
            ),
            (
                "fix",
                '`"OPTIONS": {"connect_timeout": 5}` so requests fail fast. With `DATABASES` built from a URL (dj-database-url), add `?connect_timeout=5` to the URL (it lands in `OPTIONS`). PostgreSQL also reads `PGCONNECT_TIMEOUT=5` from the environment; MySQL has no variable for it, only `connect-timeout` in the `[client]` group of an option file named by `OPTIONS["read_default_file"]` (mysqlclient)',
            ),
        ),
    },
    "horizontal.I033": {
        "level": "Info",
        "runs_on": "`--deploy`",
        "summary": "the connection budget: instances × processes × pool size",
        "group": "Databases, background work, secrets, logging, email: `horizontal.W030`–`W059`",
        "fields": (
            (
                "what goes wrong with N instances",
                "a note for each PostgreSQL/MySQL alias: the connections the fleet may open — instances × processes per instance × connections per process (the pool's `max_size`, else `min_size`, else psycopg_pool's 4 for `pool=True`; 1 without a pool)",
            ),
            (
                "risk",
                "with numbers unknown it shows `N instances x P processes x 4`; it never fails a build",
            ),
            (
                "fix",
                "set `HORIZONTAL_EXPECTED_INSTANCES` and `HORIZONTAL_PROCESSES_PER_INSTANCE` (or `WEB_CONCURRENCY`) to get a total",
            ),
        ),
    },
    "horizontal.W034": {
        "level": "Warning",
        "runs_on": "`--deploy --database`",
        "summary": "the connection budget exceeds the server's `max_connections`",
        "group": "Databases, background work, secrets, logging, email: `horizontal.W030`–`W059`",
        "fields": (
            (
                "what goes wrong with N instances",
                "with `--database ALIAS` (a `database`-tagged check): the total above is more than the server's `max_connections` (PostgreSQL: minus `superuser_reserved_connections`)",
            ),
            (
                "risk",
                "instances beyond the limit get `too many connections` at start-up or under load; during a rolling deploy old and new instances are up together, so leave room",
            ),
            (
                "fix",
                "a smaller pool or fewer processes, a higher `max_connections`, or a pooler (PgBouncer) in front",
            ),
        ),
    },
    "horizontal.I035": {
        "level": "Info",
        "runs_on": "`--deploy --database`",
        "summary": "how many instances the server's `max_connections` holds",
        "group": "Databases, background work, secrets, logging, email: `horizontal.W030`–`W059`",
        "fields": (
            (
                "what goes wrong with N instances",
                "with `--database ALIAS` and the fleet size unknown: a note saying how many instances (or processes) the server's limit holds",
            ),
            ("risk", "—"),
            ("fix", "set `HORIZONTAL_EXPECTED_INSTANCES` to have the total compared"),
        ),
    },
    "horizontal.W036": {
        "level": "Warning",
        "runs_on": "`--deploy --database`",
        "summary": "horizontal's name and key columns ignore case, accents or trailing spaces (MySQL/MariaDB collation)",
        "group": "Databases, background work, secrets, logging, email: `horizontal.W030`–`W059`",
        "fields": (
            (
                "what goes wrong with N instances",
                "with `--database ALIAS` (a `database`-tagged check): a column that holds horizontal's names and keys (`horizontal_lease.name`, `horizontal_jobrun.job` and `slot`, `horizontal_effect.key`) compares inexactly: on MySQL/MariaDB a collation other than a binary NO PAD one (the default `utf8mb4_general_ci` folds case and accents; `utf8mb4_bin` is PAD SPACE and ignores trailing spaces), on PostgreSQL a nondeterministic collation; the message lists each column with its collation",
            ),
            (
                "risk",
                "`Foo` and `foo` are one lease (they exclude each other), `Export` and `export` one gate row (one job never runs), `refund:AbC123` and `refund:abc123` one effect key (`run.effect()` returns False and the second refund is skipped while the run succeeds), `release-a` and `release-a ` one slot",
            ),
            (
                "fix",
                "apply horizontal's migrations (`manage.py migrate horizontal`: `0002_exact_text_columns` gives the four columns `utf8mb4_nopad_bin` on MariaDB, `utf8mb4_0900_bin` on MySQL 8.0.17+); a collation changed by hand must go back to one of those (PostgreSQL: a deterministic one)",
            ),
        ),
    },
    "horizontal.W040": {
        "level": "Warning",
        "runs_on": "`--deploy`",
        "summary": "an in-memory channel layer",
        "group": "Databases, background work, secrets, logging, email: `horizontal.W030`–`W059`",
        "fields": (
            (
                "what goes wrong with N instances",
                "`CHANNEL_LAYERS['<alias>']` is `channels.layers.InMemoryChannelLayer` (or a subclass): groups and messages stay in one process",
            ),
            (
                "risk",
                "a message sent to a group reaches only the websockets connected to the same process; chat, notifications and live updates silently miss most users",
            ),
            ("fix", "`channels_redis.core.RedisChannelLayer`"),
        ),
    },
    "horizontal.W041": {
        "level": "Warning",
        "runs_on": "`--deploy`",
        "summary": "`TASKS` runs tasks inline (`ImmediateBackend`, Django 6's default)",
        "group": "Databases, background work, secrets, logging, email: `horizontal.W030`–`W059`",
        "fields": (
            (
                "what goes wrong with N instances",
                "`TASKS['<alias>']` is `ImmediateBackend` (Django 6's default when `TASKS` is not set, or django-tasks' backport): a task runs inside the request that enqueued it",
            ),
            (
                "risk",
                "a task dies with the instance that ran it (deploys, scale-in, a crash) and nothing retries it; slow tasks hold web workers and load-balancer timeouts cut them short",
            ),
            (
                "fix",
                "a worker-backed backend (e.g. django-tasks-db) with workers on every instance; `TASKS = {}` if you enqueue no tasks",
            ),
        ),
    },
    "horizontal.W042": {
        "level": "Warning",
        "runs_on": "`--deploy`",
        "summary": "`TASKS` never runs tasks (`DummyBackend`)",
        "group": "Databases, background work, secrets, logging, email: `horizontal.W030`–`W059`",
        "fields": (
            (
                "what goes wrong with N instances",
                "`TASKS['<alias>']` is `DummyBackend`: tasks are stored in the process and never run",
            ),
            ("risk", "every enqueued task is lost"),
            ("fix", "a worker-backed backend; `DummyBackend` is for tests"),
        ),
    },
    "horizontal.W043": {
        "level": "Warning",
        "runs_on": "`--deploy`",
        "summary": "django-apscheduler is installed",
        "group": "Databases, background work, secrets, logging, email: `horizontal.W030`–`W059`",
        "fields": (
            (
                "what goes wrong with N instances",
                "`django_apscheduler` is installed: its scheduler runs wherever the project starts it, often in `AppConfig.ready()` — that is, in every web process",
            ),
            (
                "risk",
                'each instance (and each worker) fires every job: N × processes runs per slot (its README: "only ONE scheduler")',
            ),
            (
                "fix",
                "run the scheduler in exactly one dedicated process, or register the work as a `horizontal` job and call `manage.py runjob` from any scheduler",
            ),
        ),
    },
    "horizontal.W044": {
        "level": "Warning",
        "runs_on": "`--deploy`",
        "summary": "django-crontab is installed",
        "group": "Databases, background work, secrets, logging, email: `horizontal.W030`–`W059`",
        "fields": (
            (
                "what goes wrong with N instances",
                "`django_crontab` is installed: `manage.py crontab add` writes the jobs into the crontab of the host it runs on, and deploy scripts run it on every host",
            ),
            ("risk", "every job runs once per host"),
            (
                "fix",
                "run `crontab add` on one host only, or have cron call `manage.py runjob NAME` on every host (one run per slot)",
            ),
        ),
    },
    "horizontal.W045": {
        "level": "Warning",
        "runs_on": "`--deploy`",
        "summary": "django-cron with its file lock",
        "group": "Databases, background work, secrets, logging, email: `horizontal.W030`–`W059`",
        "fields": (
            (
                "what goes wrong with N instances",
                "`django_cron` is installed with `DJANGO_CRON_LOCK_BACKEND` = its `FileLock`: the lock is a file on one host",
            ),
            ("risk", "every instance's `runcrons` takes its own lock and runs every job"),
            ("fix", "`manage.py runjob` per job, or a lock in the shared database"),
        ),
    },
    "horizontal.W046": {
        "level": "Warning",
        "runs_on": "`--deploy`",
        "summary": "django-cron with its cache lock",
        "group": "Databases, background work, secrets, logging, email: `horizontal.W030`–`W059`",
        "fields": (
            (
                "what goes wrong with N instances",
                '`django_cron` is installed with its `CacheLock` (the default): upstream\'s lock is a `get` then a `set`, not atomic ("is not atomic"), and on a per-instance cache (`DJANGO_CRON_CACHE`) it is per instance ("uses local cache")',
            ),
            (
                "risk",
                'two instances read "free" in the same instant and both run the job; on LocMem, every instance always runs it. (Its `DatabaseLock` is not flagged; it reads a row without `SELECT … FOR UPDATE` and a crash leaves it held)',
            ),
            ("fix", "`manage.py runjob` per job"),
        ),
    },
    "horizontal.W047": {
        "level": "Warning",
        "runs_on": "`--deploy`",
        "summary": "a celery beat runs inside the web process",
        "group": "Databases, background work, secrets, logging, email: `horizontal.W030`–`W059`",
        "fields": (
            (
                "what goes wrong with N instances",
                "a celery beat service (`celery.beat`'s embedded `_Threaded`/`_Process`) is running inside the process that runs the checks — started from settings or an `AppConfig.ready()`",
            ),
            (
                "risk",
                "every web worker of every instance schedules the periodic tasks: each runs N × processes times",
            ),
            (
                "fix",
                "exactly one `celery beat` process for the whole deployment. `celery worker -B` in an entrypoint is not visible to settings; the code audit (`W1xx`) reads entrypoints",
            ),
        ),
    },
    "horizontal.W050": {
        "level": "Warning",
        "runs_on": "`--deploy`",
        "summary": "`SECRET_KEY` is generated at start-up",
        "group": "Databases, background work, secrets, logging, email: `horizontal.W030`–`W059`",
        "fields": (
            (
                "what goes wrong with N instances",
                "the settings module (or a module it star-imports) assigns `SECRET_KEY` from a random generator (`get_random_secret_key()`, `secrets.token_*()`, `os.urandom()`, `uuid4()`…), e.g. as a fallback when the variable is missing, in one statement or in a second step under `if`/`try`; the message points at the line",
            ),
            (
                "risk",
                "each instance signs with its own key: sessions (signed cookies), CSRF tokens, password-reset links and `signing` values made on one instance are rejected by the others, and all of them change at every restart",
            ),
            (
                "fix",
                "read `SECRET_KEY` from the environment or a secret store and fail start-up when it is missing; if the random branch can never run in production, silence W050 knowingly",
            ),
        ),
    },
    "horizontal.W051": {
        "level": "Warning",
        "runs_on": "`--deploy`",
        "summary": "logging to local files",
        "group": "Databases, background work, secrets, logging, email: `horizontal.W030`–`W059`",
        "fields": (
            (
                "what goes wrong with N instances",
                "`LOGGING[\"handlers\"]['<name>']` is a `logging.FileHandler` (or `RotatingFileHandler`, `TimedRotatingFileHandler`, `WatchedFileHandler`, any subclass); every declared handler counts, since `dictConfig` opens them all",
            ),
            (
                "risk",
                "logs are split across hosts' disks and lost with a replaced container; on a shared volume several processes rotate the same file and lose lines",
            ),
            (
                "fix",
                "log to stdout/stderr (`logging.StreamHandler`) and let the platform collect every instance's logs",
            ),
        ),
    },
    "horizontal.W052": {
        "level": "Warning",
        "runs_on": "`--deploy`",
        "summary": "email written to local files",
        "group": "Databases, background work, secrets, logging, email: `horizontal.W030`–`W059`",
        "fields": (
            (
                "what goes wrong with N instances",
                "`EMAIL_BACKEND` (or a Django 6.1 `MAILERS` entry) is the file-based email backend",
            ),
            (
                "risk",
                "mail is written to whichever instance's disk handled the request and never sent",
            ),
            ("fix", "the SMTP backend or your provider's backend"),
        ),
    },
    "horizontal.W060": {
        "level": "Warning",
        "runs_on": "`--deploy`",
        "summary": "a storage on the local file system (or in memory)",
        "group": "File storage: `horizontal.W060`–`W069`",
        "fields": (
            (
                "what goes wrong with N instances",
                "A `STORAGES` alias is `FileSystemStorage` or `InMemoryStorage` (or a subclass): an upload received by one instance is a 404 through every other, a job's report stays on the node that wrote it, and the files disappear with the container.",
            ),
            ("risk", 'uploads "randomly" missing; data loss on redeploy'),
            (
                "fix",
                "`STORAGES = storages_from_env()` with `AWS_STORAGE_BUCKET_NAME` set, or `horizontal.storage.S3Storage` by hand. On a laptop without a bucket this warning is expected.",
            ),
        ),
    },
    "horizontal.W061": {
        "level": "Warning",
        "runs_on": "`--deploy`",
        "summary": "S3 storage overwrites same-name uploads",
        "group": "File storage: `horizontal.W060`–`W069`",
        "fields": (
            (
                "what goes wrong with N instances",
                "An S3 storage has `file_overwrite=True` (django-storages' default, or `AWS_S3_FILE_OVERWRITE = True`): two users uploading `report.pdf` through two instances get one object, the last write.",
            ),
            ("risk", "silent loss of one user's file; one user served another's file"),
            (
                "fix",
                '`horizontal.storage.S3Storage` (defaults to no overwrite), or `OPTIONS["file_overwrite"] = False`. A cache that rewrites names derived from its source on purpose (thumbnails) gets an alias of its own with `deterministic_names=True`, which this check leaves alone ([files](files.md#thumbnails-and-other-caches-that-reuse-names-on-purpose)).',
            ),
        ),
    },
    "horizontal.W062": {
        "level": "Warning",
        "runs_on": "`--deploy`",
        "summary": "S3 `endpoint_url` without `region_name`",
        "group": "File storage: `horizontal.W060`–`W069`",
        "fields": (
            (
                "what goes wrong with N instances",
                "An S3 storage sets `endpoint_url` (MinIO, Ceph, R2) but no `region_name`. boto3 then signs for a guessed region; django-storages documents `AuthorizationQueryParametersError` for signed URLs in this case.",
            ),
            (
                "risk",
                "signed URLs or uploads rejected, often only on some instances whose environment differs",
            ),
            (
                "fix",
                '`OPTIONS["region_name"]`, `AWS_S3_REGION_NAME`, or `AWS_REGION` in the environment (`horizontal.storage.S3Storage` reads it).',
            ),
        ),
    },
    "horizontal.W063": {
        "level": "Warning",
        "runs_on": "`--deploy`",
        "summary": "S3 objects written with a public ACL",
        "group": "File storage: `horizontal.W060`–`W069`",
        "fields": (
            (
                "what goes wrong with N instances",
                'An S3 storage writes objects with a public ACL (`default_acl` or `object_parameters["ACL"]` is `public-read`, `public-read-write` or `authenticated-read`).',
            ),
            (
                "risk",
                "every upload is readable by anyone who guesses or is sent its URL; buckets with ACLs disabled reject the writes instead",
            ),
            (
                "fix",
                "Leave both unset: objects stay private, `url()` signs. Serve public assets from `staticfiles`.",
            ),
        ),
    },
    "horizontal.W064": {
        "level": "Warning",
        "runs_on": "`--deploy`",
        "summary": "S3 overwrite protection by HEAD-then-write (racy)",
        "group": "File storage: `horizontal.W060`–`W069`",
        "fields": (
            (
                "what goes wrong with N instances",
                "An S3 storage avoids overwrites by asking first (HEAD) and then writing: django-storages with `file_overwrite=False`, or ours with `conditional_writes=False`. Two instances saving the same name at the same moment both see it free and the later write wins.",
            ),
            (
                "risk",
                "the same silent loss as W061, only rarer (under load, retries, double submits)",
            ),
            (
                "fix",
                "`horizontal.storage.S3Storage` with `conditional_writes=True` (the default): the write itself is refused when the key exists (`If-None-Match: *`) and a fresh name is taken. Only if your server rejects that header: unique `upload_to` paths and silence this id.",
            ),
        ),
    },
    "horizontal.W065": {
        "level": "Warning",
        "runs_on": "`--deploy`",
        "summary": "one S3 call can block for more than 60 s",
        "group": "File storage: `horizontal.W060`–`W069`",
        "fields": (
            (
                "what goes wrong with N instances",
                "One S3 call can block for more than 60 s when the endpoint stops answering (botocore's defaults: 60 s connect, 60 s read, 5 attempts: about 10 minutes). For `horizontal.storage.S3Storage` its `deadline` counts: the bound is the smaller of the deadline and attempts × timeouts.",
            ),
            (
                "risk",
                "every worker of every instance stuck on uploads and downloads; the load balancer sees a fleet-wide outage instead of fast errors",
            ),
            (
                "fix",
                "`horizontal.storage.S3Storage` (2 s connect, 5 s read, 3 attempts, within a 10 s deadline per call), or lower `connect_timeout`, `read_timeout` and `retries` in `client_config`.",
            ),
        ),
    },
    "horizontal.W101": {
        "level": "Warning",
        "runs_on": "`--deploy`",
        "summary": "code: module-level state mutated at run time",
        "group": "Code audit: `horizontal.W100`–`W199`",
        "fields": (
            ("category", "module-state"),
            (
                "what breaks with N instances",
                "a module- or class-level container mutated at run time, or a `global` rebound at run time: every instance has its own copy",
            ),
            ("fix", "the database or a shared cache; per-user state in `horizontal.sessions`"),
        ),
    },
    "horizontal.W102": {
        "level": "Warning",
        "runs_on": "`--deploy`",
        "summary": "code: an in-process cache of shared data",
        "group": "Code audit: `horizontal.W100`–`W199`",
        "fields": (
            ("category", "cache"),
            (
                "what breaks with N instances",
                "`lru_cache`/memo dict/lazy global over the database, uploads or HTTP: writes made through other instances never invalidate it",
            ),
            ("fix", "a shared cache with a TTL"),
        ),
    },
    "horizontal.W103": {
        "level": "Warning",
        "runs_on": "`--deploy`",
        "summary": "code: files written to the local disk",
        "group": "Code audit: `horizontal.W100`–`W199`",
        "fields": (
            ("category", "file-write"),
            (
                "what breaks with N instances",
                "a local file that outlives the request, `FileSystemStorage`, `MEDIA_ROOT`, `storage.path()`",
            ),
            ("fix", "`default_storage` on `horizontal.storage.S3Storage`"),
        ),
    },
    "horizontal.W104": {
        "level": "Warning",
        "runs_on": "`--deploy`",
        "summary": "code: a thread or file lock around shared work",
        "group": "Code audit: `horizontal.W100`–`W199`",
        "fields": (
            ("category", "in-process-lock"),
            (
                "what breaks with N instances",
                "a thread or file lock around database/storage/HTTP work serialises one process or host only",
            ),
            ("fix", "`horizontal.locks.xact_lock`, leases, unique constraints"),
        ),
    },
    "horizontal.W105": {
        "level": "Warning",
        "runs_on": "`--deploy`",
        "summary": "code: a timer or background thread started at boot",
        "group": "Code audit: `horizontal.W100`–`W199`",
        "fields": (
            ("category", "timer-thread"),
            (
                "what breaks with N instances",
                "a thread or timer started at boot or looping in the background: the work runs once per instance",
            ),
            ("fix", "`@job` + `manage.py runjob`"),
        ),
    },
    "horizontal.W106": {
        "level": "Warning",
        "runs_on": "`--deploy`",
        "summary": "code: an in-process scheduler",
        "group": "Code audit: `horizontal.W100`–`W199`",
        "fields": (
            ("category", "scheduler"),
            (
                "what breaks with N instances",
                "an in-process scheduler (APScheduler, `schedule`, uWSGI timers): every job runs N times",
            ),
            ("fix", "`@job` + `runjob` / `runscheduler`"),
        ),
    },
    "horizontal.W107": {
        "level": "Warning",
        "runs_on": "`--deploy`",
        "summary": "code: cron inside the image",
        "group": "Code audit: `horizontal.W100`–`W199`",
        "fields": (
            ("category", "image-cron"),
            ("what breaks with N instances", "cron in the image: every replica runs every job"),
            ("fix", "`@job` + `runjob` from one scheduler"),
        ),
    },
    "horizontal.W108": {
        "level": "Warning",
        "runs_on": "`--deploy`",
        "summary": "code: `migrate` run by every replica at start-up",
        "group": "Code audit: `horizontal.W100`–`W199`",
        "fields": (
            ("category", "boot-migrate"),
            ("what breaks with N instances", "`migrate` run by every replica at start-up"),
            ("fix", "a one-off release step, or `manage.py migrate_locked`"),
        ),
    },
    "horizontal.W109": {
        "level": "Warning",
        "runs_on": "`manage.py audit`",
        "summary": "settings read from source (audit only)",
        "group": "Code audit: `horizontal.W100`–`W199`",
        "fields": (),
    },
}
