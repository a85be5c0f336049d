"""The embedded PostgreSQL's memory and parallelism, derived from the machine it starts on.

PostgreSQL's defaults (128 MB shared_buffers, 4 MB work_mem, 64 MB maintenance_work_mem) fit a
laptop of 2005, far below a large workspace's chunk table (docs/decisions/bm25-pruning.md). At each
start the embedded server gets settings sized from the memory it may use (the cgroup's limit when
lower than the machine's) and the cores it may run on (the CPU affinity and the cgroup's quota), each
overridable (PARLEY_PG_* in docs/configuration.md). They are written to an include file in PGDATA.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from core.errors import ErrorKind, ParleyError

if TYPE_CHECKING:
    from django.db.backends.utils import CursorWrapper

MB = 1024 * 1024
GB = 1024 * MB
CONF_NAME = "parley-sizing.conf"
_INCLUDE = f"include_if_exists = '{CONF_NAME}'"
_UNITS = {"kB": 1024, "MB": MB, "GB": GB, "TB": 1024 * GB}
_SIZE = re.compile(r"^\s*(\d+)\s*(kB|MB|GB|TB)\s*$")

# The settings derived here, in the order they are printed: sizes (bytes) first, then counts.
MEMORY_SETTINGS = ("shared_buffers", "effective_cache_size", "work_mem", "maintenance_work_mem")
COUNT_SETTINGS = (
    "max_worker_processes",
    "max_parallel_workers",
    "max_parallel_workers_per_gather",
    "max_parallel_maintenance_workers",
)
SIZED_SETTINGS = MEMORY_SETTINGS + COUNT_SETTINGS


class SizingError(ParleyError):
    """An override of the embedded server's sizing is not a value PostgreSQL accepts."""

    code = "postgres_sizing_invalid"
    kind = ErrorKind.INVALID


@dataclass(frozen=True)
class Machine:
    memory_bytes: int
    cores: int


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


def _cgroup_memory_limit(root: Path) -> int | None:
    """cgroup v2's memory.max, else v1's memory.limit_in_bytes; None when unlimited or absent."""
    for candidate in (
        root / "sys/fs/cgroup/memory.max",
        root / "sys/fs/cgroup/memory/memory.limit_in_bytes",
    ):
        value = _read(candidate)
        if value and value.isdigit():
            limit = int(value)
            # v1 reports "unlimited" as a huge page-rounded number (~2**63).
            return limit if limit < 2**60 else None
    return None


def _cgroup_cpu_limit(root: Path) -> float | None:
    """cgroup v2's cpu.max ("quota period"), else v1's cfs quota/period; None when unlimited."""
    value = _read(root / "sys/fs/cgroup/cpu.max")
    if value:
        quota, _, period = value.partition(" ")
        if quota.isdigit() and period.isdigit() and int(period) > 0:
            return int(quota) / int(period)
        return None
    quota_text = _read(root / "sys/fs/cgroup/cpu/cpu.cfs_quota_us")
    period_text = _read(root / "sys/fs/cgroup/cpu/cpu.cfs_period_us")
    if quota_text and period_text and quota_text.isdigit() and period_text.isdigit():
        return int(quota_text) / max(1, int(period_text))
    return None


def _meminfo_total(root: Path) -> int:
    text = _read(root / "proc/meminfo") or ""
    match = re.search(r"^MemTotal:\s+(\d+) kB", text, flags=re.MULTILINE)
    return int(match.group(1)) * 1024 if match else 2 * GB  # unreadable: assume a small machine


def machine_detect(*, root: Path = Path("/")) -> Machine:
    """The memory and cores this process may use: the lower of the machine's and its cgroup's."""
    memory = _meminfo_total(root)
    limit = _cgroup_memory_limit(root)
    if limit is not None:
        memory = min(memory, limit)
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    quota = _cgroup_cpu_limit(root)
    if quota is not None:
        cores = min(cores, max(1, math.ceil(quota)))
    return Machine(memory_bytes=memory, cores=max(1, cores))


def _clamp(value: int, low: int, high: int) -> int:
    return max(low, min(high, value))


def _megabytes(value: int) -> int:
    """Rounded down to whole megabytes, so the written file and SHOW agree exactly."""
    return value // MB * MB


def sizing_derive(*, machine: Machine) -> dict[str, int]:
    """The settings for this machine: sizes in bytes, counts as integers.

    The embedded server shares its machine with the web and worker processes and their models, so it
    takes half the usual dedicated-server shares: shared_buffers 1/8 of memory (not 1/4),
    effective_cache_size 1/2 (the rest is the OS page cache PostgreSQL reads through).
    maintenance_work_mem bounds an HNSW build (pgvector slows 2-3x once the graph outgrows it).
    Parallelism follows the cores: a gather or an index build gets half of them.
    """
    memory = machine.memory_bytes
    cores = machine.cores
    half = cores // 2
    return {
        "shared_buffers": _megabytes(_clamp(memory // 8, 128 * MB, 8 * GB)),
        "effective_cache_size": _megabytes(max(memory // 2, 256 * MB)),
        "work_mem": _megabytes(_clamp(memory // 256, 4 * MB, 64 * MB)),
        "maintenance_work_mem": _megabytes(_clamp(memory // 16, 64 * MB, 2 * GB)),
        "max_worker_processes": max(8, cores + 4),
        "max_parallel_workers": cores,
        "max_parallel_workers_per_gather": half,
        "max_parallel_maintenance_workers": half,
    }


def _override_parse(name: str, raw: str) -> int:
    if name in MEMORY_SETTINGS:
        match = _SIZE.match(raw)
        if not match:
            raise SizingError(
                f"{name} = {raw!r} is not a size: write a number and a unit, e.g. 512MB or 2GB."
            )
        return int(match.group(1)) * _UNITS[match.group(2)]
    if not raw.strip().isdigit():
        raise SizingError(f"{name} = {raw!r} is not a whole number.")
    return int(raw)


def sizing_resolve(*, machine: Machine, overrides: Mapping[str, str | None]) -> dict[str, int]:
    """The derived settings with each given override (a PostgreSQL size such as "2GB", or a count)."""
    sizing = sizing_derive(machine=machine)
    for name, raw in overrides.items():
        if name not in sizing:
            raise SizingError(
                f"{name} is not a setting Parley sizes ({', '.join(SIZED_SETTINGS)})."
            )
        if raw is not None and raw.strip():
            sizing[name] = _override_parse(name, raw)
    # PostgreSQL refuses to start parallel workers beyond its background-worker slots.
    sizing["max_worker_processes"] = max(
        sizing["max_worker_processes"], sizing["max_parallel_workers"]
    )
    return sizing


def sizing_format(name: str, value: int) -> str:
    """As PostgreSQL's configuration file takes it: sizes in kB (exact), counts as they are."""
    return f"{value // 1024}kB" if name in MEMORY_SETTINGS else str(value)


def sizing_conf_write(*, pgdata: Path, sizing: Mapping[str, int]) -> bool:
    """Write the include file and make postgresql.conf include it; True when the file changed
    (a running server applies it at its next start: shared_buffers needs a restart)."""
    lines = ["# Written by Parley at each start (core.pg_sizing); edit PARLEY_PG_* instead."]
    lines += [f"{name} = '{sizing_format(name, sizing[name])}'" for name in SIZED_SETTINGS]
    text = "\n".join(lines) + "\n"
    target = pgdata / CONF_NAME
    changed = _read(target) != text.strip()
    if changed:
        target.write_text(text)
        target.chmod(0o644)  # read by the server's own user when Parley runs as root
    main = pgdata / "postgresql.conf"
    if _INCLUDE not in (_read(main) or ""):
        with main.open("a") as handle:
            handle.write(f"\n{_INCLUDE}\n")
    return changed


def sizing_show(*, cursor: CursorWrapper) -> dict[str, int]:
    """What a running server uses for each sized setting, in bytes or as a count."""
    found: dict[str, int] = {}
    for name in SIZED_SETTINGS:
        if name in MEMORY_SETTINGS:
            cursor.execute("SELECT pg_size_bytes(current_setting(%s))", [name])
        else:
            cursor.execute("SELECT current_setting(%s)::int", [name])
        found[name] = int(cursor.fetchone()[0])
    return found


def sizing_describe(sizing: Mapping[str, int]) -> str:
    """One line for the run command: "shared_buffers 3GB, ..." (sizes in MB or GB)."""

    def human(name: str, value: int) -> str:
        if name not in MEMORY_SETTINGS:
            return str(value)
        return f"{value / GB:g}GB" if value % GB == 0 else f"{value // MB}MB"

    return ", ".join(f"{name} {human(name, sizing[name])}" for name in SIZED_SETTINGS)
