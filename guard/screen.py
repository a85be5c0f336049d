"""The two screens the detector stands behind: visitors' messages before any model reads them
(conversations' guards) and documents' chunks before they are stored (rag's ingestion: indirect
injection). Callers pass text and the vectors they already have; the verdicts are plain Detections."""

from __future__ import annotations

from collections.abc import Sequence

from guard.detector import (
    DEFAULT_THRESHOLD,
    DEFAULT_WATCH,
    Detection,
    injection_detect,
    injection_detect_batch,
)
from textmodels.embeddings import LOCAL_MODEL_ID


def message_flagged(*, text: str, threshold: float = DEFAULT_THRESHOLD) -> Detection | None:
    """The detector's verdict when `text` is refused (at or above the bot's threshold), else None."""
    detection = injection_detect(text=text)
    return detection if detection.flagged(threshold) else None


def message_watched(
    *, text: str, threshold: float = DEFAULT_THRESHOLD, watch: float = DEFAULT_WATCH
) -> Detection | None:
    """The detector's verdict when `text` falls in the watch band [watch, threshold): the message is
    answered like any other (the prompt frames it as untrusted data) and recorded as a security event.
    The turn already scored it in message_flagged: the detector's cache answers."""
    detection = injection_detect(text=text)
    return detection if detection.watched(threshold=threshold, watch=watch) else None


def documents_screen(
    *,
    documents: Sequence[Sequence[str]],
    vectors: Sequence[Sequence[Sequence[float]]],
    model_ids: Sequence[str],
) -> list[list[Detection]]:
    """Each document's chunks' verdicts, in order, from one detector batch (the few sentences it embeds
    go to the model together). A document's vectors are reused when `model_ids` says they come from the
    detector's own model; its chunks are numbered as one source, so a short one is read with its
    neighbours."""
    texts = [text for chunks in documents for text in chunks]
    reused: list[Sequence[float] | None] = [
        vector if model_id == LOCAL_MODEL_ID else None
        for model_id, document_vectors in zip(model_ids, vectors, strict=True)
        for vector in document_vectors
    ]
    sources = [number for number, chunks in enumerate(documents) for _ in chunks]
    detections = injection_detect_batch(
        texts=texts, embeddings=reused, documents=True, sources=sources
    )
    verdicts, start = [], 0
    for chunks in documents:
        verdicts.append(detections[start : start + len(chunks)])
        start += len(chunks)
    return verdicts


def chunk_quarantined(detection: Detection) -> bool:
    """A chunk flagged at the document threshold is kept out of retrieval."""
    return detection.flagged(DEFAULT_THRESHOLD)
