"""bench/api's CPU profile: the stacks rebuilt from yappi's call graph add up to the CPU the profiled code
used (recursion and generators run by builtins included), and the flame graph draws them."""

from __future__ import annotations

import time

import pytest
import yappi

from bench.api.cpu_profiler import collapsed_stacks
from bench.api.flamegraph import flamegraph_svg
from bench.api.profile_summary import stacks_read, summary


def _leaf(n: int) -> int:
    return sum(i * i for i in range(n))  # a generator run by a builtin


def _recursive(depth: int) -> int:
    return _leaf(20_000) if depth == 0 else _recursive(depth - 1) + _leaf(10_000)


def _workload() -> None:
    for _ in range(5):
        _recursive(4)
        _leaf(40_000)


def test_the_stacks_add_up_to_the_profiled_cpu(tmp_path) -> None:  # type: ignore[no-untyped-def]
    yappi.set_clock_type("cpu")
    yappi.clear_stats()
    started = time.process_time()
    yappi.start(builtins=True)
    try:
        _workload()
    finally:
        yappi.stop()
    used = time.process_time() - started
    stats = yappi.get_func_stats()
    counts = collapsed_stacks(stats)
    yappi.clear_stats()
    workload = next(stat for stat in stats if stat.name == "_workload")

    assert sum(counts.values()) == pytest.approx(workload.ttot * 1e6, rel=0.01)
    assert workload.ttot <= used
    path = tmp_path / "stacks.txt"
    path.write_text("\n".join(f"{stack} {count}" for stack, count in counts.items()) + "\n")
    stacks = stacks_read(path)
    total, inclusive, _ = summary(stacks)
    leaf = next(key for key in inclusive if key.startswith("_leaf "))
    # Every microsecond of the recursion's leaves is under the recursion, none counted twice.
    assert inclusive[leaf] <= total
    assert sum(count for frames, count in stacks if "_recursive" in frames[-1]) < total * 0.05
    svg = flamegraph_svg(stacks, title="workload", unit="CPU µs")
    assert svg.startswith("<svg") and "_recursive" in svg and "_leaf" in svg
