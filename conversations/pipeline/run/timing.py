"""A turn's stage timer: each stage's milliseconds, measured where it runs, for the audit and the console."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager


def ms_since(started: float) -> int:
    return round((time.monotonic() - started) * 1000)


class StageTimer:
    """Started with the turn; `stage(name)` times a block, `mark(name)` records the time since the start."""

    def __init__(self) -> None:
        self.started = time.monotonic()
        self.ms: dict[str, int] = {}

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        started = time.monotonic()
        try:
            yield
        finally:
            self.ms[name] = self.ms.get(name, 0) + ms_since(started)

    def mark(self, name: str) -> None:
        self.ms[name] = ms_since(self.started)

    def total(self) -> int:
        return ms_since(self.started)
