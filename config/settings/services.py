"""PostgreSQL and Valkey: the URLs given, or the embedded services started (or attached to) under
PARLEY_VAR_DIR (core.embedded); the database connection and its pool."""

from __future__ import annotations

import atexit
import os
import sys

import dj_database_url

from config.env import env_int, env_str
from config.settings.base import VAR_DIR

# What the settings name when they are read for type checking only: never connected to.
_TYPE_CHECK_URLS = ("postgres://type-check.invalid/parley", "redis://type-check.invalid/0")


def _type_check_only() -> bool:
    """Whether mypy's Django plugin is reading these settings (for the models, not a database). mypy
    ends with os._exit, so the atexit stop below never runs: services started for it outlived it, and
    the test session then attached to them and left them running too."""
    return "mypy.build" in sys.modules


def _service_urls() -> tuple[str, str]:
    database_url = env_str("DATABASE_URL")
    redis_url = env_str("REDIS_URL")
    if database_url and redis_url:
        return database_url, redis_url
    if _type_check_only():
        return _TYPE_CHECK_URLS
    from core.embedded import ensure_started

    # The embedded PostgreSQL is sized to the machine (core.pg_sizing); each of these overrides one value.
    postgres_overrides = {
        "shared_buffers": env_str("PARLEY_PG_SHARED_BUFFERS"),
        "effective_cache_size": env_str("PARLEY_PG_EFFECTIVE_CACHE_SIZE"),
        "work_mem": env_str("PARLEY_PG_WORK_MEM"),
        "maintenance_work_mem": env_str("PARLEY_PG_MAINTENANCE_WORK_MEM"),
        "max_parallel_workers": env_str("PARLEY_PG_MAX_PARALLEL_WORKERS"),
        "max_parallel_workers_per_gather": env_str("PARLEY_PG_MAX_PARALLEL_WORKERS_PER_GATHER"),
        "max_parallel_maintenance_workers": env_str("PARLEY_PG_MAX_PARALLEL_MAINTENANCE_WORKERS"),
    }
    services = ensure_started(VAR_DIR, postgres_overrides=postgres_overrides)
    # Children (worker, web server) inherit the resolved URLs instead of re-probing.
    os.environ.setdefault("DATABASE_URL", services.database_url)
    os.environ.setdefault("REDIS_URL", services.redis_url)
    if services.started:
        # This process started them (pytest, a bare manage.py): it stops them when it exits.
        atexit.register(services.stop)
    return database_url or services.database_url, redis_url or services.redis_url


DATABASE_URL, REDIS_URL = _service_urls()


DATABASES = {
    "default": dj_database_url.parse(
        DATABASE_URL,
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 60, minimum=0),
        conn_health_checks=True,
    )
}
DATABASES["default"].setdefault("OPTIONS", {})
if not DATABASES["default"]["HOST"]:
    # dj-database-url keeps a unix-socket ?host=/path in OPTIONS; HOST is where Django looks.
    DATABASES["default"]["HOST"] = DATABASES["default"]["OPTIONS"].pop("host", "")
DATABASES["default"]["OPTIONS"].setdefault(
    "connect_timeout", env_int("DATABASE_CONNECT_TIMEOUT", 5, minimum=1)
)

# --- API: database connections of the web process ------------------------------------------
# Under ASGI each request runs in its own thread, so Django's persistent connections are never
# reused and concurrent requests open one connection each (past PostgreSQL's max_connections at
# ~100 simultaneous requests; see bench/api). Every LLM call also hands its thread's connection
# back for its length (core.llm.connections): without a pool the next query reconnects (a new
# PostgreSQL backend; docs/decisions/connection-pool.md). So each process keeps a psycopg pool of at most this
# many connections (requests wait for one); 0 turns it off for Django's persistent connections.
DATABASE_POOL_MAX_SIZE = env_int("DATABASE_POOL_MAX_SIZE", 20, minimum=0, maximum=1000)
if DATABASE_POOL_MAX_SIZE:
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"]["OPTIONS"]["pool"] = {
        "min_size": 1,
        "max_size": DATABASE_POOL_MAX_SIZE,
        # How long a caller waits for a connection; also how long an unreachable database takes to
        # be reported (the pool keeps retrying the connect until then).
        "timeout": env_int("DATABASE_POOL_TIMEOUT", 30, minimum=1),
    }
