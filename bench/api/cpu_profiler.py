"""A CPU profiler inside a bench process: which Python functions the process's CPU time went to.

    python -m bench.api.cpu_profiler FOLDER NAME -m uvicorn config.asgi:application ...

runs the module after ``-m`` as ``python -m`` would, with a control thread that profiles every thread
of the process with yappi on its CPU clock (``set_clock_type("cpu")``) while a window is open: a
thread waiting on a socket, a lock or ``epoll`` costs nothing, and the short bursts of an event loop
(the SSE relay) or of a token loop are charged to the functions that ran them, not to where the thread
happened to stand when looked at.

Two things were tried first and gave wall time, not CPU, on this VM: py-spy (it could not tell idle
threads from running ones: the event loop's ``epoll`` and threads blocked in ``recv`` filled its
profiles, with or without ``--nonblocking``), and an in-process sampler charging each thread's CPU-clock
delta to its stack at the look (a burst that ends in ``recv`` is charged to ``recv``).

Windows are driven by a file: when ``FOLDER/window`` holds a label, profiling starts from zero; when it
is emptied, the window's statistics are written as ``FOLDER/<label>-<NAME>.pstat`` (pstats format) and
``FOLDER/<label>-<NAME>.txt``: collapsed stacks (``frame;frame;... microseconds``) rebuilt from the
caller/callee graph, each function's time split among its callees in proportion to what each call edge
cost (gprof's assumption: exact one level down, an estimate deeper), for bench.api.flamegraph and
bench.api.profile_summary. Bench-only: Parley's own code knows nothing of it.
"""

from __future__ import annotations

import runpy
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

SMALLEST = 50  # µs: branches below are merged into their caller's own time
OUTSIDE = "[outside Python functions]"


def _key(stat: Any) -> str:
    return f"{stat.name} ({stat.module}:{stat.lineno})"


def collapsed_stacks(stats: Any) -> Counter[str]:
    """Stacks (outermost first) with CPU microseconds, from yappi's function statistics."""
    # By full name, not index: yappi merges a function profiled in several threads into one entry,
    # and a caller in another thread names the index of the copy that was merged away.
    by_name = {stat.full_name: stat for stat in stats}
    called = {child.full_name for stat in stats for child in stat.children}
    counts: Counter[str] = Counter()

    def expand(stat: Any, budget: float, path: list[str], seen: set[str]) -> None:
        frames = [*path, _key(stat)]
        scale = budget / stat.ttot if stat.ttot > 0 else 0.0
        # A recursive function's edges count its nested calls again: the children never get more
        # than the function's time outside its own body, so every subtree adds up to its budget.
        edges = [(by_name.get(child.full_name), child.ttot) for child in stat.children]
        edges = [
            (target, ttot)
            for target, ttot in edges
            if target is not None and target.full_name not in seen
        ]
        below = sum(ttot for _, ttot in edges)
        # (A function already running when the window opened can have an own time that is not: its
        # children may then take all of it.)
        allowed = stat.ttot - stat.tsub if stat.ttot > stat.tsub else stat.ttot
        if below > allowed > 0:
            scale *= allowed / below
        spent = 0.0
        for target, ttot in edges:
            share = ttot * scale
            if share * 1e6 < SMALLEST:
                continue
            spent += share
            expand(target, share, frames, seen | {target.full_name})
        own = max(budget - spent, 0.0)
        if own * 1e6 >= 1:
            counts[";".join(frames)] += round(own * 1e6)

    for stat in stats:
        if stat.full_name not in called and stat.ttot * 1e6 >= SMALLEST:
            expand(stat, stat.ttot, [], {stat.full_name})
    return counts


class Profiler:
    def __init__(self, *, folder: Path, name: str) -> None:
        self.folder = folder
        self.name = name
        self.label = ""
        self.process_started = 0.0

    def run(self) -> None:
        import yappi

        yappi.set_clock_type("cpu")
        while True:
            time.sleep(0.1)
            try:
                label = (self.folder / "window").read_text().strip()
            except OSError:
                label = ""
            if label and not self.label:
                yappi.clear_stats()
                yappi.start(
                    builtins=True, profile_threads=True
                )  # builtins: a generator run by sum() keeps its caller
                self.process_started = time.process_time()
                self.label = label
            elif not label and self.label:
                yappi.stop()
                process = time.process_time() - self.process_started
                stats = yappi.get_func_stats()
                stem = self.folder / f"{self.label}-{self.name}"
                stats.save(f"{stem}.pstat", type="pstat")
                counts = collapsed_stacks(stats)
                # What no profiled Python function ran: native threads (torch's pool), the interpreter
                # between calls, and the profiler's own hooks.
                outside = process * 1e6 - sum(counts.values())
                if outside > 0:
                    counts[OUTSIDE] += round(outside)
                lines = [f"{stack} {count}" for stack, count in counts.most_common()]
                partial = Path(
                    f"{stem}.txt.partial"
                )  # renamed when whole: the bench waits for .txt
                partial.write_text("\n".join(lines) + "\n")
                partial.rename(f"{stem}.txt")
                yappi.clear_stats()
                self.label = ""


def window_open(folder: Path, label: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "window").write_text(label)


def window_close(folder: Path) -> None:
    (folder / "window").write_text("")


def main() -> None:
    folder, name, flag, module, *rest = sys.argv[1:]
    if flag != "-m":
        raise SystemExit(__doc__)
    profiler = Profiler(folder=Path(folder), name=name)
    threading.Thread(target=profiler.run, name="bench-cpu-profiler", daemon=True).start()
    sys.argv = [module, *rest]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
