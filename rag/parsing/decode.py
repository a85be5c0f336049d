"""Bytes to text: UTF-8 first, then charset-normalizer's best guess; refuse binary or undecidable input."""

from __future__ import annotations

from charset_normalizer import from_bytes

from rag.errors import IngestError

_BOMS = (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")


def text_decode(data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    if b"\x00" in data[:4096] and not data.startswith(_BOMS):
        raise IngestError(
            "unknown_encoding",
            "The file looks binary, not text: its encoding could not be recognised.",
        )
    best = from_bytes(data).best()
    if best is None or best.chaos > 0.2:
        raise IngestError(
            "unknown_encoding", "The text's encoding could not be recognised; save it as UTF-8."
        )
    return str(best)
