"""CSV: one chunk per row (FAQ tables), each value labelled with its column's header."""

from __future__ import annotations

import csv
import io

from rag.errors import IngestError
from rag.parsing.blocks import Block, ParsedDocument
from rag.parsing.decode import text_decode


def parse_csv(data: bytes, filename: str) -> ParsedDocument:
    text = text_decode(data)
    try:
        dialect = csv.Sniffer().sniff(text[:4096], delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel
    rows = [
        row for row in csv.reader(io.StringIO(text), dialect) if any(cell.strip() for cell in row)
    ]
    if len(rows) < 2:
        raise IngestError("no_text", "The CSV needs a header row and at least one data row.")
    header = [name.strip() or f"column {index + 1}" for index, name in enumerate(rows[0])]
    blocks = []
    for row in rows[1:]:
        pairs = [
            f"{name}: {value.strip()}"
            for name, value in zip(header, row, strict=False)
            if value.strip()
        ]
        blocks.append(Block(text="\n".join(pairs), standalone=True))
    return ParsedDocument(blocks=blocks, modality="text")
