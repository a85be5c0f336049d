"""Score documents' chunks with the guard's document screen before they are stored (indirect
injection): one screen for all the documents of an ingestion batch."""

from __future__ import annotations

from guard.detector import Detection
from guard.screen import documents_screen
from rag.ingestion.prepare import PreparedDocument


def chunks_screen(*, prepared: PreparedDocument, vectors: list[list[float]]) -> list[Detection]:
    """The detector's verdict on each chunk, in draft order (a chunk is quarantined when
    guard.screen.chunk_quarantined says so)."""
    return chunks_screen_batch(prepared=[prepared], vectors=[vectors])[0]


def chunks_screen_batch(
    *, prepared: list[PreparedDocument], vectors: list[list[list[float]]]
) -> list[list[Detection]]:
    """Each document's verdicts, as `chunks_screen` gives them, from one detector batch."""
    return documents_screen(
        documents=[[draft.text for draft in item.drafts] for item in prepared],
        vectors=vectors,
        model_ids=[item.model_id for item in prepared],
    )
