"""Score documents' chunks with the injection detector before they are stored (indirect injection):
one detector batch for all the documents of an ingestion batch (the few sentences it embeds go to the
model together), reusing the chunk vectors when they come from the detector's own model."""

from __future__ import annotations

from rag.embeddings import LOCAL_MODEL_ID
from rag.guard import DEFAULT_THRESHOLD, Detection, injection_detect_batch
from rag.ingestion.prepare import PreparedDocument


def chunks_screen(*, prepared: PreparedDocument, vectors: list[list[float]]) -> list[Detection]:
    """The detector's verdict on each chunk, in draft order (a chunk is quarantined when flagged())."""
    return chunks_screen_batch(prepared=[prepared], vectors=[vectors])[0]


def chunks_screen_batch(
    *, prepared: list[PreparedDocument], vectors: list[list[list[float]]]
) -> list[list[Detection]]:
    """Each document's verdicts, as `chunks_screen` gives them, from one detector batch."""
    texts = [draft.text for item in prepared for draft in item.drafts]
    reused = [
        vector if item.model_id == LOCAL_MODEL_ID else None
        for item, item_vectors in zip(prepared, vectors, strict=True)
        for vector in item_vectors
    ]
    sources = [number for number, item in enumerate(prepared) for _ in item.drafts]
    detections = injection_detect_batch(
        texts=texts, embeddings=reused, documents=True, sources=sources
    )
    verdicts, start = [], 0
    for item in prepared:
        verdicts.append(detections[start : start + len(item.drafts)])
        start += len(item.drafts)
    return verdicts


def chunk_quarantined(detection: Detection) -> bool:
    return detection.flagged(DEFAULT_THRESHOLD)
