"""The embedded services: idempotent start, survival of a crash's leftovers, and data kept across runs."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
import redis

from core.embedded import EmbeddedServiceError, EmbeddedServices, ensure_started
from tests.support.processes import wait_for


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"


def test_the_session_services_are_reused(settings) -> None:
    again = ensure_started(Path(settings.VAR_DIR))
    assert again.started == []  # already running: attached, not restarted
    assert again.database_url.split("?")[0].endswith("/parley")
    assert redis.Redis.from_url(again.redis_url).ping()


def test_restart_after_a_crash_keeps_the_data(tmp_path: Path) -> None:
    var_dir = tmp_path / "var"
    first = ensure_started(var_dir)
    try:
        assert sorted(first.started) == ["postgres", "valkey"]
        assert ensure_started(var_dir).started == []  # calling twice is safe
        with psycopg.connect(first.database_url, autocommit=True) as conn:
            conn.execute("CREATE TABLE kept (value text)")
            conn.execute("INSERT INTO kept VALUES ('before the crash')")
        redis.Redis.from_url(first.redis_url).set("kept", "before the crash")

        # A clean stop and start keeps both stores' data.
        first.stop()
        second = ensure_started(var_dir)
        assert sorted(second.started) == ["postgres", "valkey"]
        assert redis.Redis.from_url(second.redis_url).get("kept") == b"before the crash"

        # A crash: Valkey is killed hard and leaves its pid file and socket behind.
        valkey_pid = int((var_dir / "valkey" / "valkey.pid").read_text())
        os.kill(valkey_pid, signal.SIGKILL)
        wait_for(lambda: not _pid_alive(valkey_pid), timeout=10, what="valkey to die")
        assert (var_dir / "valkey" / "valkey.pid").exists()

        third = ensure_started(var_dir)
        assert third.started == ["valkey"]
        assert redis.Redis.from_url(third.redis_url).get("kept") == b"before the crash"
        with psycopg.connect(third.database_url) as conn:
            assert conn.execute("SELECT value FROM kept").fetchone() == ("before the crash",)
    finally:
        EmbeddedServices(
            database_url="", redis_url="", started=["postgres", "valkey"], var_dir=var_dir
        ).stop()


def test_an_unwritable_var_dir_gets_a_clear_message(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    with pytest.raises(EmbeddedServiceError, match="cannot write there") as excinfo:
        ensure_started(blocker / "var")
    assert "PARLEY_VAR_DIR" in str(excinfo.value)


def test_type_checking_reads_the_settings_without_starting_services(tmp_path: Path) -> None:
    """mypy's Django plugin imports the settings and ends with os._exit: services started for it
    would outlive it, and `./parley test` runs mypy before pytest."""
    env = {
        key: value for key, value in os.environ.items() if key not in ("DATABASE_URL", "REDIS_URL")
    }
    env["PARLEY_VAR_DIR"] = str(tmp_path)
    code = "import mypy.build, config.settings as s; print(s.DATABASE_URL, s.REDIS_URL)"
    result = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [
        "postgres://type-check.invalid/parley",
        "redis://type-check.invalid/0",
    ]
    assert not (tmp_path / "postgres").exists() and not (tmp_path / "valkey").exists()
