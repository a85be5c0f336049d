"""Starts and stops Parley's embedded PostgreSQL (with pgvector) and Valkey under var/.

These stand in for real services when DATABASE_URL / REDIS_URL are unset. Starting is
idempotent and survives stale pid files or sockets left by a crash; data lives in var/
and is never removed here. Whoever starts a service is the one who stops it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from core.embedded.errors import EmbeddedServiceError
from core.embedded.postgres import postgres_ensure, postgres_stop
from core.embedded.valkey import valkey_ensure, valkey_stop
from core.pg_sizing import machine_detect, sizing_resolve

__all__ = ["EmbeddedServiceError", "EmbeddedServices", "ensure_started"]


@dataclass
class EmbeddedServices:
    """The endpoints of the running embedded services, and which of them this process started."""

    database_url: str
    redis_url: str
    started: list[str] = field(default_factory=list)
    var_dir: Path = Path("var")
    owner_pid: int = field(default_factory=os.getpid)

    def stop(self) -> None:
        """Stop only the services this handle started; data stays on disk."""
        if os.getpid() != self.owner_pid:
            return  # a forked child inherited the handle; only the starter stops
        if "valkey" in self.started:
            valkey_stop(self.var_dir / "valkey")
        if "postgres" in self.started:
            postgres_stop(self.var_dir / "postgres")
        self.started.clear()


def ensure_started(
    var_dir: Path, *, postgres_overrides: Mapping[str, str | None] | None = None
) -> EmbeddedServices:
    """Start (or attach to) the embedded PostgreSQL and Valkey; safe to call any number of times.

    PostgreSQL is sized to the machine (core.pg_sizing), with `postgres_overrides` (setting name to
    a PostgreSQL value) taking precedence; a server already running keeps its sizing until restarted.
    """
    var_dir = var_dir.resolve()
    _ensure_writable(var_dir)
    sizing = sizing_resolve(machine=machine_detect(), overrides=postgres_overrides or {})
    started: list[str] = []
    database_url, pg_started = postgres_ensure(var_dir / "postgres", sizing=sizing)
    if pg_started:
        started.append("postgres")
    redis_url, valkey_started = valkey_ensure(var_dir / "valkey")
    if valkey_started:
        started.append("valkey")
    return EmbeddedServices(
        database_url=database_url, redis_url=redis_url, started=started, var_dir=var_dir
    )


def _ensure_writable(var_dir: Path) -> None:
    try:
        var_dir.mkdir(parents=True, exist_ok=True)
        probe = var_dir / ".write-probe"
        probe.write_text("ok")
        probe.unlink()
    except OSError as exc:
        raise EmbeddedServiceError(
            f"Parley keeps its embedded database and broker under {var_dir}, but cannot write there ({exc.strerror}). "
            "Make the folder writable, set PARLEY_VAR_DIR to a writable folder, "
            "or set DATABASE_URL and REDIS_URL to use external services."
        ) from exc
