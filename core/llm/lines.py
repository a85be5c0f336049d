"""Lines of a streamed HTTP body, split on bytes: what an LLM's server-sent events are read by.

httpx's `iter_lines()` decodes every network read to text and then splits it, two generator layers per
read; a streamed answer is one read per token. Splitting the bytes and decoding only whole lines gives
the same lines (the event-stream format ends a line with CRLF, LF or CR, and a multi-byte character
never contains those bytes) for less CPU: a streamed answer of 35 deltas cost the client thread 1.2 ms
less at 20 ms between tokens, 2.2–3.1 ms less at 4 ms (docs/decisions/answer-path-cpu.md). It also
keeps a U+2028 inside a JSON string on its line, where httpx's `str.splitlines()` would cut it.

`paced_reads` spaces the reads themselves once the answer has begun (LLM_STREAM_READ_INTERVAL_MS).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator


def body_lines(pieces: Iterable[bytes]) -> Iterator[list[str]]:
    """The lines of the body whose reads are `pieces`, without their line endings: one list per read
    that ends at least one line, so a reader can handle what one read brought at once. A last line
    without an ending is still yielded. Bytes that are not UTF-8 are replaced, as httpx's text decoding
    does."""
    unfinished: list[bytes] = []  # the reads of a line not ended yet, joined once it ends
    for piece in pieces:
        if not piece:
            continue
        if not _ends_a_line(piece) and not (unfinished and unfinished[-1].endswith(b"\r")):
            unfinished.append(piece)
            continue
        lines = b"".join((*unfinished, piece)).splitlines(keepends=True)
        # An unfinished last line waits for its end; so does one ending in CR, which may be the first
        # half of a CRLF whose LF comes with the next read.
        unfinished = [] if lines[-1].endswith(b"\n") else [lines.pop()]
        if lines:
            yield [_text(line) for line in lines]
    if unfinished:
        yield [_text(b"".join(unfinished))]


def _ends_a_line(piece: bytes) -> bool:
    return b"\n" in piece or b"\r" in piece


def _text(line: bytes) -> str:
    return line.rstrip(b"\r\n").decode("utf-8", errors="replace")


def paced_reads(
    pieces: Iterable[bytes], *, interval: float, armed: Callable[[], bool]
) -> Iterator[bytes]:
    """The reads of `pieces`, the next one no sooner than `interval` seconds after the last once
    `armed()` says so (after the answer's first text: its first token is never held).

    A token server sends one network write per token, and a reader that reads as they come wakes,
    reads and parses once per token. Between two paced reads the tokens wait in the socket's buffer
    and arrive in one read: the same bytes, in fewer wake-ups. The visitor's updates go out at most
    every API_SSE_PARTIAL_INTERVAL_MS anyway; the answer's end is seen at most `interval` later.
    The read timeout still applies to each read, from when it starts.
    """
    if interval <= 0:
        yield from pieces
        return
    for piece in pieces:
        read_at = time.monotonic()
        yield piece
        if armed():
            wait = read_at + interval - time.monotonic()
            if wait > 0:
                time.sleep(wait)
