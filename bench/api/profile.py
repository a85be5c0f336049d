"""Where a turn's CPU goes: bench.api.cpu_profiler inside uvicorn and the streams worker, a window per phase.

With ``--profile FOLDER`` the stack starts uvicorn and the streams worker under bench.api.cpu_profiler
(``sampled_argv``), and ``profiled(folder=..., label=...)`` opens a window around a phase: the profiler
in each process writes ``FOLDER/<label>-<process>.pstat`` and ``.txt`` (collapsed stacks weighted by
CPU microseconds) when it closes, and a flame graph of each is drawn beside them (``.svg``). Profiling
slows the profiled code: the CPU figures of a profiled run are not the ones to quote.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bench.api.cpu_profiler import window_close, window_open
from bench.api.flamegraph import flamegraph_svg
from bench.api.profile_summary import stacks_read

PROFILED = ("uvicorn", "streams worker")


def sampled_argv(argv: list[str], *, folder: Path | None, name: str) -> list[str]:
    """``python -m module ...`` run under the CPU profiler when profiling this process."""
    if folder is None or name not in PROFILED or argv[1] != "-m":
        return argv
    return [argv[0], "-m", "bench.api.cpu_profiler", str(folder), name.replace(" ", "-"), *argv[1:]]


@contextmanager
def profiled(*, folder: Path | None, label: str) -> Iterator[None]:
    """A sampling window around the block (nothing when ``folder`` is None), then its flame graphs."""
    if folder is None:
        yield
        return
    for name in PROFILED:
        (folder / f"{label}-{name.replace(' ', '-')}.txt").unlink(missing_ok=True)
    window_open(folder, label)
    time.sleep(0.3)  # the profilers look at the window file every 0.1 s
    try:
        yield
    finally:
        window_close(folder)
        for name in PROFILED:
            stacks = folder / f"{label}-{name.replace(' ', '-')}.txt"
            deadline = time.monotonic() + 120
            while not stacks.exists() and time.monotonic() < deadline:
                time.sleep(0.1)
            if stacks.exists():
                svg = flamegraph_svg(
                    stacks_read(stacks), title=f"{name}, {label} turns", unit="CPU µs"
                )
                stacks.with_suffix(".svg").write_text(svg)
