"""Celery's `shared_task` with the task's signature kept: Celery ships no type hints, so its own decorator
leaves every task, and every `delay` of one, unchecked. These give the same Celery task object a type."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

from celery import shared_task

P = ParamSpec("P")
R = TypeVar("R")
R_co = TypeVar("R_co", covariant=True)


class Task(Protocol[P, R_co]):
    """What Parley does with a task: run it in-process, or queue it with the same arguments."""

    name: str
    app: Any  # Celery's application (untyped): a batch of sends shares its producer

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R_co: ...

    def delay(self, *args: P.args, **kwargs: P.kwargs) -> Any: ...  # an AsyncResult (untyped)

    def delay_on_commit(self, *args: P.args, **kwargs: P.kwargs) -> None: ...

    def apply_async(
        self,
        args: Sequence[Any] | None = None,
        kwargs: Mapping[str, Any] | None = None,
        **options: Any,
    ) -> Any: ...


class TaskRequest(Protocol):
    """The delivery a bound task is running: its id (a claim's token) and how many retries came before."""

    id: str
    retries: int


class RunningTask(Protocol):
    """What a bound task's body reads of itself."""

    request: TaskRequest
    max_retries: int | None  # None: no limit

    def retry(
        self, *, exc: BaseException, countdown: float
    ) -> Exception: ...  # Celery's Retry, to raise


def task(**options: Any) -> Callable[[Callable[P, R]], Task[P, R]]:
    """`@shared_task(**options)`: the function becomes a task that keeps its signature."""
    decorate: Callable[[Callable[P, R]], Task[P, R]] = shared_task(**options)
    return decorate


def bound_task(
    **options: Any,
) -> Callable[[Callable[Concatenate[RunningTask, P], R]], Task[P, R]]:
    """`@shared_task(bind=True, **options)`: the function takes the running task first (its request,
    `retry`); callers pass the rest."""
    decorate: Callable[[Callable[Concatenate[RunningTask, P], R]], Task[P, R]] = shared_task(
        bind=True, **options
    )
    return decorate
