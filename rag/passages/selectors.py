"""Reads of chunks' stored passages: the offline composer's one query per answer."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rag.models import ChunkPassages
from rag.passages.prepared import ChunkUnits, PassageUnit, vectors_unpack


@dataclass(frozen=True)
class StoredPassages:
    units: ChunkUnits
    # Unit-length rows: the units, then the questions (`units.asked`).
    vectors: np.ndarray


def chunk_passages_get(
    *, chunk_ids: Sequence[str], model_id: str, multilingual: bool = False
) -> dict[str, StoredPassages]:
    """The chunks' passages whose vectors are `model_id`'s (the multilingual side's when
    `multilingual`); a chunk without them (not made yet, another model) is left out. Ids are the
    retrieved chunks' (already scoped to the asker's workspace by retrieval)."""
    if not chunk_ids:
        return {}
    rows = ChunkPassages.objects.filter(chunk_id__in=list(chunk_ids))
    if multilingual:
        rows = rows.filter(multi_model=model_id, multi_vectors__isnull=False)
        column = "multi_vectors"
    else:
        rows = rows.filter(model=model_id)
        column = "vectors"
    found: dict[str, StoredPassages] = {}
    for chunk_id, language, units, asked, data in rows.values_list(
        "chunk_id", "language", "units", "asked", column
    ):
        parsed = ChunkUnits(
            language=language,
            units=tuple(PassageUnit(text=t, asked=a, row=r) for t, a, r in units),
            asked=tuple(asked),
        )
        count = len(parsed.units) + len(parsed.asked)
        if count == 0:
            found[str(chunk_id)] = StoredPassages(parsed, np.zeros((0, 0), dtype=np.float32))
            continue
        matrix = vectors_unpack(data, rows=count)
        if matrix is not None:
            found[str(chunk_id)] = StoredPassages(parsed, matrix)
    return found
