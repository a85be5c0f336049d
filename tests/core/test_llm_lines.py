"""core.llm.lines: a streamed body's lines, split on bytes, as the event-stream format defines them."""

from __future__ import annotations

import itertools

from core.llm.lines import body_lines

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


def test_every_way_of_cutting_the_body_into_reads_gives_the_same_lines() -> None:
    """CRLF, LF and CR endings; a CRLF, a multi-byte character or a line cut between two reads; a
    last line without an ending; U+2028 inside a JSON string is not a line end."""
    assert list(body_lines([BODY])) == LINES
    for first, second in itertools.combinations(range(1, len(BODY)), 2):
        reads = [BODY[:first], b"", BODY[first:second], BODY[second:]]
        assert list(body_lines(reads)) == LINES, (first, second)
    assert list(body_lines(BODY[i : i + 1] for i in range(len(BODY)))) == LINES


def test_a_body_ending_in_a_lone_cr_or_nothing() -> None:
    assert list(body_lines([b"data: x\r"])) == ["data: x"]
    assert list(body_lines([])) == []
    assert list(body_lines([b"\xff\xfe data\n"])) == ["\ufffd\ufffd data"]


def test_a_long_line_read_in_many_pieces_is_joined_once() -> None:
    line = b"data: " + b"x" * 200_000
    reads = [line[i : i + 7] for i in range(0, len(line), 7)] + [b"\n\n"]
    assert list(body_lines(reads)) == [line.decode(), ""]
