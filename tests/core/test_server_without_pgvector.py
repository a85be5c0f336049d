"""Pointing DATABASE_URL at a real PostgreSQL that lacks pgvector stops the run command with that exact reason.

It uses the distribution's PostgreSQL (no pgvector) when the machine has one, as this project's
machines do; elsewhere it is skipped with the reason shown.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings

from tests.support.processes import free_port

PG_BIN = Path("/usr/lib/postgresql/15/bin")


def _as_postgres(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["runuser", "-u", "postgres", "--", *argv],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )


@pytest.fixture
def plain_postgres() -> Iterator[str]:
    if not (PG_BIN / "postgres").exists() or os.geteuid() != 0:
        pytest.skip("needs the distribution's PostgreSQL 15 (apt package postgresql-15) and root")
    try:
        user = pwd.getpwnam("postgres")
    except KeyError:
        pytest.skip("needs the 'postgres' system user of the postgresql-15 package")
    # pytest's tmp folders are private to root; the postgres user needs a folder of its own.
    root = Path(tempfile.mkdtemp(prefix="parley-plainpg-"))
    os.chown(root, user.pw_uid, user.pw_gid)
    data = root / "data"
    port = free_port()
    _as_postgres(str(PG_BIN / "initdb"), "-A", "trust", "-U", "postgres", "-D", str(data))
    _as_postgres(
        str(PG_BIN / "pg_ctl"),
        "-w",
        "-D",
        str(data),
        "-l",
        str(root / "log"),
        "-o",
        f"-h 127.0.0.1 -p {port} -k {root}",
        "start",
    )
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        _as_postgres(str(PG_BIN / "pg_ctl"), "-w", "-D", str(data), "-m", "fast", "stop")
        shutil.rmtree(root, ignore_errors=True)


def test_a_server_without_pgvector_is_named_by_the_run_command(plain_postgres: str) -> None:
    env = {
        **os.environ,
        "DATABASE_URL": plain_postgres,
        "REDIS_URL": settings.REDIS_URL,
        "PARLEY_PORT": str(free_port()),
        "PARLEY_LOAD_DEMO": "false",
    }
    result = subprocess.run(
        [sys.executable, "-m", "config.launcher"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "does not have the pgvector extension" in result.stdout
    assert "Traceback" not in result.stdout + result.stderr
