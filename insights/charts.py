"""Server-side SVG charts: plain geometry computed here, drawn by the templates under
templates/admin/insights/charts/ (no JavaScript, no CDN). Every bar carries the link to its turns."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

# One colour per answer status, readable on the admin's light and dark themes.
STATUS_COLOURS = {
    "found_in_context": "#2e7d32",
    "not_found_in_context": "#ef6c00",
    "small_talk": "#1976d2",
    "out_of_scope": "#8e24aa",
    "human_escalation": "#c62828",
    "injection_attempt": "#455a64",
}
# The drawing's own units, about the pixels of a card at 1400 px: its 12.5-unit labels read at ~12 px
# there (a 720-unit drawing shrank its 10-unit labels to 6 px in a card; issue 26).
WIDTH, HEIGHT, MARGIN_LEFT, MARGIN_BOTTOM, MARGIN_TOP = 480, 200, 40, 30, 10
# At most this many x labels, so that a date label keeps room of its own.
X_LABELS = 8


@dataclass(frozen=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    colour: str
    href: str
    title: str
    value: int
    css_id: str = ""


@dataclass(frozen=True)
class Tick:
    position: float
    label: str


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    plot_left: int
    plot_bottom: int
    bars: list[Bar]
    x_ticks: list[Tick]
    y_ticks: list[Tick]
    maximum: int


@dataclass(frozen=True)
class Segment:
    """One stacked piece of a column: a status's count in one time bucket."""

    key: str
    value: int
    href: str
    title: str


def stacked_columns(
    columns: Sequence[tuple[str, Sequence[Segment]]], *, id_prefix: str = "col"
) -> Chart:
    """Columns of stacked segments (e.g. statuses per day); each column labelled underneath."""
    maximum = max((sum(s.value for s in segments) for _, segments in columns), default=0)
    step = _y_step(maximum)
    scale = -(-maximum // step) * step  # the axis' top: a whole number of steps, at least maximum
    plot_w, plot_h = WIDTH - MARGIN_LEFT, HEIGHT - MARGIN_BOTTOM - MARGIN_TOP
    slot = plot_w / max(len(columns), 1)
    bars: list[Bar] = []
    x_ticks: list[Tick] = []
    label_every = max(1, -(-len(columns) // X_LABELS))
    for n, (label, segments) in enumerate(columns):
        x = MARGIN_LEFT + n * slot + slot * 0.1
        top = float(HEIGHT - MARGIN_BOTTOM)
        for segment in segments:
            height = plot_h * segment.value / scale if scale else 0.0
            top -= height
            bars.append(
                Bar(
                    x=round(x, 2),
                    y=round(top, 2),
                    width=round(slot * 0.8, 2),
                    height=round(height, 2),
                    colour=STATUS_COLOURS.get(segment.key, "#607d8b"),
                    href=segment.href,
                    title=segment.title,
                    value=segment.value,
                    css_id=f"{id_prefix}-{n}-{segment.key}",
                )
            )
        if n % label_every == 0:
            x_ticks.append(Tick(position=round(x + slot * 0.4, 2), label=label))
    return Chart(
        width=WIDTH,
        height=HEIGHT,
        plot_left=MARGIN_LEFT,
        plot_bottom=HEIGHT - MARGIN_BOTTOM,
        bars=bars,
        x_ticks=x_ticks,
        y_ticks=_y_ticks(scale, step, plot_h),
        maximum=maximum,
    )


def simple_columns(
    values: Sequence[tuple[str, int, str, str]], *, colour: str, id_prefix: str
) -> Chart:
    """One bar per (label, value, href, title), e.g. a histogram."""
    columns = [
        (label, [Segment(key=f"{id_prefix}{n}", value=value, href=href, title=title)])
        for n, (label, value, href, title) in enumerate(values)
    ]
    chart = stacked_columns(columns, id_prefix=id_prefix)
    bars = [
        Bar(**{**bar.__dict__, "colour": colour, "css_id": f"{id_prefix}-{n}"})
        for n, bar in enumerate(chart.bars)
    ]
    return Chart(
        width=chart.width,
        height=chart.height,
        plot_left=chart.plot_left,
        plot_bottom=chart.plot_bottom,
        bars=bars,
        x_ticks=chart.x_ticks,
        y_ticks=chart.y_ticks,
        maximum=chart.maximum,
    )


# At most this many steps up the y axis, each a whole count: 1, 2, 5, 10, 20, 25, 50... (issue 51 read
# "0, 1, 2, 2, 3" on a four-step axis of 3, with bars of 1 above its "1").
Y_STEPS = 5
_NICE = (1, 2, 5, 10, 20, 25, 50)


def _y_step(maximum: int) -> int:
    """The smallest whole step in 1-2-5 series that reaches `maximum` in at most Y_STEPS steps."""
    factor = 1
    while True:
        for nice in _NICE:
            step = nice * factor
            if step * Y_STEPS >= maximum:
                return step
        factor *= 100


def _y_ticks(scale: int, step: int, plot_h: float) -> list[Tick]:
    """One tick per step from 0 to the axis' top, placed on the scale the bars are drawn to."""
    if scale <= 0:
        return []
    return [
        Tick(position=round(HEIGHT - MARGIN_BOTTOM - plot_h * value / scale, 2), label=str(value))
        for value in range(0, scale + 1, step)
    ]
