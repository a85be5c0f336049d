"""Real outages of the test session's embedded services: PostgreSQL or Valkey stopped, then started again on
the same data folder and socket, so every process (uvicorn, the Celery worker, pytest) keeps its URL and has to
reconnect, as after a restart in production. The services are always running again when a helper returns."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings
from django.db import connections

from core.embedded.postgres import postgres_ensure, postgres_stop
from core.embedded.valkey import valkey_ensure, valkey_stop


def _postgres_dir() -> Path:
    return Path(settings.VAR_DIR) / "postgres"


def _valkey_dir() -> Path:
    return Path(settings.VAR_DIR) / "valkey"


@contextmanager
def _outage(stop: Callable[[], object], start: Callable[[], object]) -> Iterator[None]:
    stop()
    try:
        yield
    finally:
        start()


@contextmanager
def postgres_down() -> Iterator[None]:
    """PostgreSQL stopped (fast shutdown: sessions are cut, as in a restart) for the body of the block."""
    with _outage(lambda: postgres_stop(_postgres_dir()), _postgres_start):
        yield


def _postgres_start() -> None:
    postgres_ensure(_postgres_dir())
    # This process's own connections died with the server; a request would drop them (Django's
    # health check at request start), a test has to.
    connections.close_all()


@contextmanager
def valkey_down() -> Iterator[None]:
    """Valkey stopped (SIGTERM: it writes its append-only file, as in a restart) for the body of the block."""
    with _outage(
        lambda: valkey_stop(_valkey_dir()),
        lambda: valkey_ensure(_valkey_dir()),
    ):
        yield


def held(seconds: float) -> None:
    """Keep an outage on for a while (the processes notice it, retry, and wait)."""
    time.sleep(seconds)
