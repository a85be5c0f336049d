"""The Celery workers of a Parley deployment on one machine, as the run command and the benches start them."""

from __future__ import annotations

# No worker-to-worker traffic: Parley runs no event monitor and no remote-control fan-out between
# workers. Gossip and mingle are chatter at start and on the event bus; a heartbeat is a worker event
# published every 2 s, which no Parley process reads (the idle worker's largest periodic cost,
# docs/decisions/answer-path-cpu.md). `celery inspect` and `control ping` still answer.
WORKER_FLAGS = ("--without-gossip", "--without-mingle", "--without-heartbeat")


def worker_commands(
    *, python: str, loglevel: str = "INFO", beat_schedule: str | None = None, node: str = "%h"
) -> list[tuple[str, list[str]]]:
    """The Celery workers of a Parley deployment on one machine, as (name, argv); bench/api starts the same.

    - the **worker**: prefork, ``PARLEY_WORKER_CONCURRENCY`` processes, the default queue
      (ingestion, sweeps; CPU-bound), and celery beat when ``beat_schedule`` is given;
    - the **streams worker**: ``--pool=threads`` with ``PARLEY_STREAM_WORKER_THREADS`` threads on
      ``CELERY_STREAM_QUEUE``: each streamed answer mostly waits on the LLM, so one process holds
      many at once. Each thread hands its database connection back after every task
      (config.celery). Not started when the streams queue is the default queue.
    """
    from django.conf import settings

    common = [*WORKER_FLAGS, f"--loglevel={loglevel}"]
    default_queue = str(settings.CELERY_TASK_DEFAULT_QUEUE)
    stream_queue = str(settings.CELERY_STREAM_QUEUE)
    worker = _celery_worker(
        python,
        queue=default_queue,
        name=f"worker@{node}",
        options=[f"--concurrency={settings.PARLEY_WORKER_CONCURRENCY}", *common],
    )
    if beat_schedule:
        worker += ["--beat", f"--schedule={beat_schedule}"]
    commands = [("celery worker", worker)]
    if stream_queue != default_queue:
        streams = _celery_worker(
            python,
            queue=stream_queue,
            name=f"streams@{node}",
            options=[
                "--pool=threads",
                f"--concurrency={settings.PARLEY_STREAM_WORKER_THREADS}",
                *common,
            ],
        )
        commands.append(("celery streams worker", streams))
    return commands


def _celery_worker(python: str, *, queue: str, name: str, options: list[str]) -> list[str]:
    return [python, "-m", "celery", "-A", "config", "worker", "-Q", queue, "-n", name, *options]


def node_names(workers: list[tuple[str, list[str]]]) -> list[str]:
    """The ``-n`` argument of each worker command (``worker@%h``)."""
    return [argv[argv.index("-n") + 1] for _, argv in workers if "-n" in argv]
