"""Checks that the configured PostgreSQL is reachable and has pgvector, with messages a user can act on."""

from __future__ import annotations

from dataclasses import dataclass

import psycopg
from django.db import OperationalError, connection

from core.errors import ErrorKind, ParleyError

MINIMUM_PGVECTOR = (0, 5, 0)  # HNSW indexes arrived in pgvector 0.5.0


class DatabaseSetupError(ParleyError):
    """The database cannot serve Parley; the message names the cause and the fix."""

    code = "database_setup"
    kind = ErrorKind.UNAVAILABLE


@dataclass(frozen=True)
class PgvectorStatus:
    available_version: str | None  # shipped with the server (pg_available_extensions)
    installed_version: str | None  # created in this database (pg_extension)


def _describe_server() -> str:
    params = connection.get_connection_params()
    host = params.get("host") or "local socket"
    port = params.get("port") or 5432
    return f"{host}:{port}/{params.get('dbname', '')}"


_STATUS_SQL = (
    "SELECT (SELECT default_version FROM pg_available_extensions WHERE name = 'vector'),"
    " (SELECT extversion FROM pg_extension WHERE extname = 'vector')"
)


def pgvector_status(*, probe_timeout: int | None = None) -> PgvectorStatus:
    """Read pgvector's availability and installed version; raises DatabaseSetupError if unreachable.

    With ``probe_timeout`` it asks on a connection of its own, outside the connection pool, that gives up
    after that many seconds: during an outage the pool makes a caller wait its whole timeout (30 s) for a
    connection, longer than a load balancer waits for /healthz (found by tests/faults).
    """
    try:
        if probe_timeout is None:
            with connection.cursor() as cursor:
                cursor.execute(_STATUS_SQL)
                available, installed = cursor.fetchone()
        else:
            available, installed = _status_on_own_connection(timeout=probe_timeout)
    except (OperationalError, psycopg.OperationalError) as exc:
        first_line = (
            str(exc).strip().splitlines()[0] if str(exc).strip() else exc.__class__.__name__
        )
        raise DatabaseSetupError(
            f"Cannot reach PostgreSQL at {_describe_server()}: {first_line}. "
            "Check DATABASE_URL, or unset it to use Parley's embedded PostgreSQL."
        ) from exc
    return PgvectorStatus(available_version=available, installed_version=installed)


def _status_on_own_connection(*, timeout: int) -> tuple[str | None, str | None]:
    params = connection.get_connection_params()
    params["connect_timeout"] = min(timeout, int(params.get("connect_timeout") or timeout))
    with psycopg.connect(**params, autocommit=True) as own:
        own.execute(f"SET statement_timeout = {int(timeout * 1000)}")
        row = own.execute(_STATUS_SQL).fetchone()
    assert row is not None
    return row[0], row[1]


def _version_tuple(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split(".") if part.isdigit())


def pgvector_require(*, installed: bool) -> str:
    """Fail with a clear message unless pgvector is available (and, if asked, installed); return its version."""
    return pgvector_check(pgvector_status(), installed=installed, server=_describe_server())


def pgvector_check(status: PgvectorStatus, *, installed: bool, server: str) -> str:
    if status.available_version is None:
        raise DatabaseSetupError(
            f"The PostgreSQL server at {server} does not have the pgvector extension, which Parley "
            "needs for vector search. Install pgvector on that server (https://github.com/pgvector/pgvector), "
            "or unset DATABASE_URL to use Parley's embedded PostgreSQL, which ships with it."
        )
    version = status.installed_version if installed else status.available_version
    if installed and version is None:
        raise DatabaseSetupError(
            f"pgvector is available on {server} but not created in this database; run the migrations."
        )
    assert version is not None
    if _version_tuple(version) < MINIMUM_PGVECTOR:
        minimum = ".".join(str(part) for part in MINIMUM_PGVECTOR)
        raise DatabaseSetupError(
            f"pgvector {version} on {server} is too old: Parley needs {minimum} or newer for HNSW."
        )
    return version
