"""core.llm.lines: a streamed body's lines, split on bytes, as the event-stream format defines them."""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterable, Iterator

from core.llm.lines import body_lines, paced_reads

BODY = (
    'data: {"choices": [{"delta": {"content": "caf\u00e9 \u2028 \U0001f642"}}]}\r\n'
    "\r\n"
    ": a comment\n"
    "data: [DONE]\r"
    "\n"
    "event: end\r"
    "data: last"
).encode()
LINES = [
    'data: {"choices": [{"delta": {"content": "caf\u00e9 \u2028 \U0001f642"}}]}',
    "",
    ": a comment",
    "data: [DONE]",
    "event: end",
    "data: last",
]


def _lines(reads: Iterable[bytes]) -> list[str]:
    return list(itertools.chain.from_iterable(body_lines(reads)))


def test_every_way_of_cutting_the_body_into_reads_gives_the_same_lines() -> None:
    """CRLF, LF and CR endings; a CRLF, a multi-byte character or a line cut between two reads; a
    last line without an ending; U+2028 inside a JSON string is not a line end."""
    assert _lines([BODY]) == LINES
    for first, second in itertools.combinations(range(1, len(BODY)), 2):
        reads = [BODY[:first], b"", BODY[first:second], BODY[second:]]
        assert _lines(reads) == LINES, (first, second)
    assert _lines(BODY[i : i + 1] for i in range(len(BODY))) == LINES


def test_each_read_hands_over_the_lines_it_ended_together() -> None:
    reads = [b"data: a\n\ndata: b", b"\n\n", b"data: c", b"", b"\n\ndata: d\n\n"]
    assert list(body_lines(reads)) == [
        ["data: a", ""],
        ["data: b", ""],
        ["data: c", "", "data: d", ""],
    ]


def test_a_body_ending_in_a_lone_cr_or_nothing() -> None:
    assert _lines([b"data: x\r"]) == ["data: x"]
    assert _lines([]) == []
    assert _lines([b"\xff\xfe data\n"]) == ["\ufffd\ufffd data"]


def test_a_long_line_read_in_many_pieces_is_joined_once() -> None:
    line = b"data: " + b"x" * 200_000
    reads = [line[i : i + 7] for i in range(0, len(line), 7)] + [b"\n\n"]
    assert _lines(reads) == [line.decode(), ""]


def _timed_reads(count: int, started: list[float]) -> Iterator[bytes]:
    """`count` reads, each noting when the reader asked for it."""
    for n in range(count):
        started.append(time.monotonic())
        yield b"piece %d" % n


def test_reads_are_spaced_once_armed_and_the_first_armed_one_is_not_held() -> None:
    asked: list[float] = []
    got: list[bytes] = []
    # The answer's first text came with the second read.
    for piece in paced_reads(_timed_reads(5, asked), interval=0.05, armed=lambda: len(got) >= 2):
        got.append(piece)
    assert got == [b"piece %d" % n for n in range(5)]
    gaps = [later - earlier for earlier, later in itertools.pairwise(asked)]
    assert gaps[0] < 0.04  # not armed yet: the second read at once
    assert all(gap >= 0.049 for gap in gaps[1:]), gaps


def test_no_interval_or_not_armed_reads_at_once() -> None:
    for interval, armed in ((0.0, True), (0.2, False)):
        asked: list[float] = []
        reads = paced_reads(_timed_reads(4, asked), interval=interval, armed=lambda on=armed: on)
        assert len(list(reads)) == 4
        assert asked[-1] - asked[0] < 0.1
