"""A flame graph (SVG) from collapsed stacks: ``frame;frame;... weight`` lines, outermost frame first.

    .venv/bin/python -m bench.api.flamegraph STACKS.txt OUT.svg [--title TEXT] [--unit "CPU µs"]

Each frame is a box as wide as the weight of the stacks through it, under its caller; hovering shows
the frame, its weight and its share. Frames are named ``function (module path)``, lines merged, as
bench.api.profile_summary keys them. Written for bench.api.cpu_profiler's CPU stacks (py-spy's own SVG was
wall time on this VM, see bench/api/cpu_profiler.py).
"""

from __future__ import annotations

import argparse
import html
import zlib
from pathlib import Path
from typing import Any

from bench.api.profile_summary import stacks_read

WIDTH = 1400
ROW = 17
FONT = 11


def _tree(stacks: list[tuple[list[str], int]]) -> tuple[int, dict[str, Any]]:
    root: dict[str, Any] = {}
    total = 0
    for frames, weight in stacks:
        total += weight
        node = root
        for frame in frames:
            entry = node.setdefault(frame, [0, {}])
            entry[0] += weight
            node = entry[1]
    return total, root


def _colour(name: str) -> str:
    if name.startswith("["):
        return "rgb(180,180,180)"
    hue = zlib.crc32(name.split(" (")[-1].encode()) % 60
    parley = any(f"({app}/" in name for app in ("conversations", "streams", "api", "audit", "core"))
    return f"hsl({200 + hue if parley else hue},70%,{62 if parley else 58}%)"


def flamegraph_svg(stacks: list[tuple[list[str], int]], *, title: str, unit: str) -> str:
    total, root = _tree(stacks)
    boxes: list[str] = []
    depth_max = 0

    def walk(node: dict[str, Any], x: float, depth: int) -> None:
        nonlocal depth_max
        for name, (weight, children) in sorted(node.items()):
            width = weight / max(total, 1) * WIDTH
            if (
                width >= 1.0
            ):  # narrower ones are not drawn (their caller spans them): files of hundreds of kB otherwise
                depth_max = max(depth_max, depth)
                label = html.escape(name)
                share = weight / max(total, 1) * 100
                text = html.escape(name[: int(width / (FONT * 0.6))]) if width > 30 else ""
                boxes.append(
                    f"<g><title>{label}: {weight} {unit} ({share:.1f}%)</title>"
                    f'<rect x="{x:.1f}" y="{{y{depth}}}" width="{width:.1f}" height="{ROW - 1}" '
                    f'fill="{_colour(name)}" rx="2"/>'
                    f'<text x="{x + 3:.1f}" y="{{t{depth}}}">{text}</text></g>'
                )
                walk(children, x, depth + 1)
            x += width

    walk(root, 0.0, 0)
    height = (depth_max + 1) * ROW + 40
    body = "\n".join(boxes)
    for depth in range(depth_max + 1):  # flames grow upwards: the outermost frame at the bottom
        y = height - 10 - (depth + 1) * ROW
        body = body.replace(f'"{{y{depth}}}"', f'"{y}"').replace(
            f'"{{t{depth}}}"', f'"{y + FONT + 1}"'
        )
    heading = html.escape(f"{title} ({total} {unit} in all)")
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'font-family="monospace" font-size="{FONT}">\n'
        f'<rect width="100%" height="100%" fill="white"/>\n'
        f'<text x="4" y="16" font-size="13">{heading}</text>\n{body}\n</svg>\n'
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("stacks", type=Path)
    parser.add_argument("output", type=Path)
    parser.add_argument("--title", default="")
    parser.add_argument("--unit", default="CPU µs")
    args = parser.parse_args()
    svg = flamegraph_svg(
        stacks_read(args.stacks), title=args.title or args.stacks.stem, unit=args.unit
    )
    args.output.write_text(svg)


if __name__ == "__main__":
    main()
