"""Sums collapsed stacks (bench.api.cpu_profiler's, weighted by CPU microseconds): where the CPU went.

    .venv/bin/python -m bench.api.profile_summary bench/results/profile/streamed-streams-worker.txt \
        [--top 25] [--turns 20] [--under conversations/] [--tree rag_search_run --floor 0.01]

For each function (file and name, lines merged) it prints its inclusive share (CPU with it anywhere on
the stack) and its self share (CPU where it is the innermost frame), and, given ``--turns``, the CPU
milliseconds per turn. ``--tree`` prints the call tree under a frame instead.
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from pathlib import Path
from typing import Any

_FRAME = re.compile(r"^(?P<name>.*?) \((?P<file>[^()]*?)(?::\d+)?\)$")


def frame_key(frame: str) -> str:
    """``name (path/to/module.py:12)`` -> ``name (module path)``, the line dropped; other frames as they are."""
    match = _FRAME.match(frame.strip())
    if match is None:
        return frame.strip()
    path = match.group("file")
    for marker in ("site-packages/", "/lib/python3"):
        if marker in path:
            path = path.split(marker, 1)[1]
            break
    else:
        path = re.sub(
            r"^.*?/(?=(?:api|audit|bots|config|conversations|core|prompts|rag|streams)/)", "", path
        )
    return f"{match.group('name')} ({path})"


def stacks_read(path: Path) -> list[tuple[list[str], int]]:
    stacks = []
    for line in path.read_text().splitlines():
        body, _, count = line.rpartition(" ")
        if not body or not count.isdigit():
            continue
        frames = [frame_key(frame) for frame in body.split(";")]
        stacks.append((frames, int(count)))
    return stacks


def summary(stacks: list[tuple[list[str], int]]) -> tuple[int, Counter[str], Counter[str]]:
    total = 0
    inclusive: Counter[str] = Counter()
    own: Counter[str] = Counter()
    for frames, count in stacks:
        total += count
        own[frames[-1]] += count
        for frame in set(frames):
            inclusive[frame] += count
    return total, inclusive, own


def tree_lines(stacks: list[tuple[list[str], int]], *, root: str, floor: float) -> list[str]:
    """The call tree under each frame named ``root`` (a substring of its key), branches of at least
    ``floor`` of the total, as indented lines with their share of the total."""
    total = sum(count for _, count in stacks)
    tree: dict[str, Any] = {}
    for frames, count in stacks:
        start = next((i for i, frame in enumerate(frames) if root in frame), None)
        if start is None:
            continue
        node = tree
        for frame in frames[start:]:
            entry = node.setdefault(frame, [0, {}])
            entry[0] += count
            node = entry[1]
    lines: list[str] = []

    def walk(node: dict[str, Any], depth: int) -> None:
        for frame, (count, children) in sorted(node.items(), key=lambda item: -item[1][0]):
            if count / max(total, 1) < floor:
                continue
            lines.append(f"{count / max(total, 1) * 100:5.1f}% {'  ' * depth}{frame[:120]}")
            walk(children, depth + 1)

    walk(tree, 0)
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("stacks", type=Path, nargs="+")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--turns", type=int, help="turns the stacks cover: prints CPU ms per turn")
    parser.add_argument("--under", default="", help="only functions whose key contains this text")
    parser.add_argument(
        "--tree", help="print the call tree under the frames whose key contains this"
    )
    parser.add_argument(
        "--floor", type=float, default=0.01, help="the tree's smallest branch (share)"
    )
    args = parser.parse_args()
    for path in args.stacks:
        stacks = stacks_read(path)
        if args.tree:
            print(f"{path}: the calls under {args.tree!r}")
            for line in tree_lines(stacks, root=args.tree, floor=args.floor):
                share, _, frame = line.partition("% ")
                total = sum(count for _, count in stacks)
                ms = (
                    f" {float(share) / 100 * total / 1000 / args.turns:6.1f} ms"
                    if args.turns
                    else ""
                )
                print(f"{share}%{ms} {frame}")
            continue
        total, inclusive, own = summary(stacks)
        per_turn = (lambda n: f"{n / 1000 / args.turns:7.1f} ms") if args.turns else (lambda n: "")
        print(
            f"{path}: {total} CPU µs{f' = {per_turn(total).strip()} per turn' if args.turns else ''}"
        )
        for title, counter in (("inclusive", inclusive), ("self", own)):
            print(f"  {title}:")
            shown = [(key, n) for key, n in counter.most_common() if args.under in key][: args.top]
            for key, n in shown:
                print(f"    {n / max(total, 1) * 100:5.1f}% {per_turn(n)}  {key[:150]}")


if __name__ == "__main__":
    main()
