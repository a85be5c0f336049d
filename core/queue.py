"""Queueing a task by its registered name. An app's services enqueue through one small function per
task (the app's `queue.py`) that calls this, so the task module, which imports the services, is never
imported back by them."""

from __future__ import annotations

from collections.abc import Sequence

from celery import current_app


def task_enqueue(
    name: str, *, args: Sequence[object] = (), countdown: float | None = None, **options: object
) -> None:
    """Queue the task registered as `name` now; `options` are Celery's message options (argsrepr...)."""
    if countdown is not None:
        options["countdown"] = countdown
    _publish(name, list(args), options)


def tasks_enqueue(name: str, *, args_each: Sequence[Sequence[object]]) -> None:
    """Queue one message of the task `name` per argument list, through one broker connection."""
    if not args_each:
        return
    with current_app.producer_or_acquire() as producer:
        for args in args_each:
            _publish(name, list(args), {"producer": producer})


def _publish(name: str, args: list[object], options: dict[str, object]) -> None:
    # Through the task's own apply_async when this process has loaded it (its options, its routing, a
    # test's stand-in); else by name, as Celery's send_task does for a task defined elsewhere.
    try:
        task = current_app.tasks[name]
    except KeyError:
        current_app.send_task(name, args=args, **options)
        return
    task.apply_async(tuple(args), **options)
