"""The embedded PostgreSQL's sizing: derived from memory (cgroup-aware) and cores, each value
overridable, written where the server reads it and reported by the running server."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

from core.embedded import EmbeddedServices, ensure_started
from core.pg_sizing import (
    GB,
    MB,
    SIZED_SETTINGS,
    Machine,
    SizingError,
    machine_detect,
    sizing_conf_write,
    sizing_derive,
    sizing_describe,
    sizing_resolve,
    sizing_show,
)


def _fake_root(tmp_path: Path, *, mem_kb: int, files: dict[str, str]) -> Path:
    (tmp_path / "proc").mkdir(parents=True)
    (tmp_path / "proc/meminfo").write_text(f"MemTotal:       {mem_kb} kB\nMemFree: 1 kB\n")
    for relative, text in files.items():
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text + "\n")
    return tmp_path


def test_a_cgroup_v2_limit_below_the_machine_is_the_memory_and_cpu_used(tmp_path: Path) -> None:
    root = _fake_root(
        tmp_path,
        mem_kb=64 * 1024 * 1024,
        files={"sys/fs/cgroup/memory.max": str(4 * GB), "sys/fs/cgroup/cpu.max": "150000 100000"},
    )
    machine = machine_detect(root=root)
    assert machine.memory_bytes == 4 * GB
    assert machine.cores == min(2, machine_detect().cores)  # 1.5 CPUs of quota round up to 2


def test_an_unlimited_cgroup_leaves_the_machine_memory(tmp_path: Path) -> None:
    root = _fake_root(
        tmp_path,
        mem_kb=8 * 1024 * 1024,
        files={"sys/fs/cgroup/memory.max": "max", "sys/fs/cgroup/cpu.max": "max 100000"},
    )
    assert machine_detect(root=root).memory_bytes == 8 * GB
    assert machine_detect(root=root).cores == machine_detect().cores


def test_a_cgroup_v1_limit_is_read_and_its_unlimited_value_ignored(tmp_path: Path) -> None:
    limited = _fake_root(
        tmp_path / "a",
        mem_kb=16 * 1024 * 1024,
        files={"sys/fs/cgroup/memory/memory.limit_in_bytes": str(2 * GB)},
    )
    assert machine_detect(root=limited).memory_bytes == 2 * GB
    unlimited = _fake_root(
        tmp_path / "b",
        mem_kb=16 * 1024 * 1024,
        files={"sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712"},
    )
    assert machine_detect(root=unlimited).memory_bytes == 16 * GB


def test_the_derivation_follows_memory_and_cores() -> None:
    big = sizing_derive(machine=Machine(memory_bytes=24 * GB, cores=2))
    assert big == {
        "shared_buffers": 3 * GB,
        "effective_cache_size": 12 * GB,
        "work_mem": 64 * MB,
        "maintenance_work_mem": 1536 * MB,
        "max_worker_processes": 8,
        "max_parallel_workers": 2,
        "max_parallel_workers_per_gather": 1,
        "max_parallel_maintenance_workers": 1,
    }
    small = sizing_derive(machine=Machine(memory_bytes=512 * MB, cores=1))
    assert small["shared_buffers"] == 128 * MB  # PostgreSQL's default is the floor
    assert small["work_mem"] == 4 * MB and small["maintenance_work_mem"] == 64 * MB
    assert small["max_parallel_workers_per_gather"] == 0  # one core: no parallel plans
    huge = sizing_derive(machine=Machine(memory_bytes=256 * GB, cores=32))
    assert huge["shared_buffers"] == 8 * GB and huge["maintenance_work_mem"] == 2 * GB
    assert huge["max_worker_processes"] == 36 and huge["max_parallel_workers_per_gather"] == 16


def test_overrides_win_and_bad_values_are_refused() -> None:
    machine = Machine(memory_bytes=24 * GB, cores=2)
    sizing = sizing_resolve(
        machine=machine,
        overrides={"shared_buffers": "512MB", "max_parallel_workers": "12", "work_mem": None},
    )
    assert sizing["shared_buffers"] == 512 * MB
    assert sizing["work_mem"] == 64 * MB  # unset: derived
    assert sizing["max_worker_processes"] == 12  # raised to hold the parallel workers
    with pytest.raises(SizingError, match="not a size"):
        sizing_resolve(machine=machine, overrides={"work_mem": "lots"})
    with pytest.raises(SizingError, match="whole number"):
        sizing_resolve(machine=machine, overrides={"max_parallel_workers": "two"})
    with pytest.raises(SizingError, match="not a setting"):
        sizing_resolve(machine=machine, overrides={"fsync": "off"})


def test_the_include_is_added_once(tmp_path: Path) -> None:
    (tmp_path / "postgresql.conf").write_text("port = 5432\n")
    sizing = sizing_derive(machine=Machine(memory_bytes=4 * GB, cores=2))
    assert sizing_conf_write(pgdata=tmp_path, sizing=sizing) is True
    assert sizing_conf_write(pgdata=tmp_path, sizing=sizing) is False  # unchanged
    assert (tmp_path / "postgresql.conf").read_text().count("parley-sizing.conf") == 1
    assert "shared_buffers = '524288kB'" in (tmp_path / "parley-sizing.conf").read_text()


def test_a_fresh_embedded_server_runs_with_the_derived_sizing_and_its_overrides(
    tmp_path: Path,
) -> None:
    var_dir = tmp_path / "var"
    overrides = {"work_mem": "7MB", "max_parallel_workers_per_gather": "0"}
    services = ensure_started(var_dir, postgres_overrides=overrides)
    try:
        assert "postgres" in services.started
        with psycopg.connect(services.database_url, autocommit=True) as conn:
            running = sizing_show(cursor=conn.cursor())
        expected = sizing_resolve(machine=machine_detect(), overrides=overrides)
        assert running == expected
        assert running["work_mem"] == 7 * MB
        assert sorted(running) == sorted(SIZED_SETTINGS)
        assert "work_mem 7MB" in sizing_describe(running)
    finally:
        EmbeddedServices(
            database_url="", redis_url="", started=["postgres", "valkey"], var_dir=var_dir
        ).stop()
