"""Score a document's chunks with the injection detector before they are stored (indirect injection):
one batch per document, reusing the chunk vectors when they come from the detector's own model."""

from __future__ import annotations

from rag.embeddings import LOCAL_MODEL_ID
from rag.guard import DEFAULT_THRESHOLD, Detection, injection_detect_batch
from rag.ingestion.prepare import PreparedDocument


def chunks_screen(*, prepared: PreparedDocument, vectors: list[list[float]]) -> list[Detection]:
    """The detector's verdict on each chunk, in draft order (a chunk is quarantined when flagged())."""
    reused = vectors if prepared.model_id == LOCAL_MODEL_ID else None
    texts = [draft.text for draft in prepared.drafts]
    return injection_detect_batch(texts=texts, embeddings=reused, documents=True)


def chunk_quarantined(detection: Detection) -> bool:
    return detection.flagged(DEFAULT_THRESHOLD)
