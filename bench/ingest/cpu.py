"""CPU seconds of a process tree and of the PostgreSQL server: a figure the other load on a shared machine distorts far
less than wall-clock throughput."""

from __future__ import annotations

import psutil


def tree_cpu_seconds(pid: int) -> float:
    """User + system seconds of a process, its live descendants and the children they have reaped."""
    root = psutil.Process(pid)
    total = 0.0
    for process in [root, *root.children(recursive=True)]:
        try:
            times = process.cpu_times()
        except psutil.Error:
            continue
        total += times.user + times.system + times.children_user + times.children_system
    return total


def postgres_server_pid() -> int | None:
    """The postmaster serving Django's connection, when it runs on this machine (the embedded one does)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = cursor.fetchone()[0]
    try:
        parent = psutil.Process(backend).parent()
    except psutil.Error:
        return None
    return parent.pid if parent is not None and "postgres" in parent.name() else None
