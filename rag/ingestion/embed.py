"""Embed the chunks of a batch of documents together: full model batches across documents, per-document progress.

Chunks are embedded in order of token count, so each model batch holds texts of similar
length and pads little; the vectors go back to their documents in draft order. A document whose
workspace has a multilingual model gets that model's vectors too (`PreparedDocument.multi_vectors`),
in the same plan of batches, so progress counts both. Then each chunk's quotable passages are embedded
with the same models (`documents_passages`, rag.passages), for the offline composer.
"""

from __future__ import annotations

import logging

from django.conf import settings

from rag.errors import IngestError
from rag.ingestion.claims import documents_progress_report
from rag.ingestion.prepare import PreparedDocument
from rag.passages.make import document_sources, passages_make
from textmodels.embeddings import embedding_provider_get
from textmodels.embeddings.errors import EmbeddingError

logger = logging.getLogger(__name__)

PARSED_PROGRESS = 15
EMBEDDED_PROGRESS = 95


def documents_embed(*, prepared: list[PreparedDocument], claim_id: str) -> list[list[list[float]]]:
    """Each document's chunk vectors, in draft order (and its multilingual ones, set on the item);
    progress is reported after every model batch but the last (not at all with `claim_id` "": a
    ready document re-embedded beside its live chunks, rag.ingestion.replace, has no claim)."""
    size = settings.PARLEY_EMBEDDING_BATCH_SIZE
    slots_by_model: dict[tuple[str, bool], list[tuple[int, int]]] = {}
    for index, item in enumerate(prepared):
        ordinals = range(len(item.drafts))
        slots_by_model.setdefault((item.model_id, False), []).extend((index, n) for n in ordinals)
        if item.multi_model_id:
            slots = slots_by_model.setdefault((item.multi_model_id, True), [])
            slots.extend((index, n) for n in ordinals)
    plan: list[tuple[str, bool, list[tuple[int, int]]]] = []
    for (model_id, multi), slots in slots_by_model.items():
        slots.sort(key=lambda slot: prepared[slot[0]].drafts[slot[1]].token_count, reverse=True)
        plan.extend(
            (model_id, multi, slots[start : start + size]) for start in range(0, len(slots), size)
        )

    vectors: list[list[list[float]]] = [[[] for _ in item.drafts] for item in prepared]
    multi_vectors: list[list[list[float]]] = [[[] for _ in item.drafts] for item in prepared]
    done = [0] * len(prepared)
    total = [len(item.drafts) * (2 if item.multi_model_id else 1) for item in prepared]
    for step, (model_id, multi, batch) in enumerate(plan):
        texts = [prepared[index].drafts[ordinal].embed_text for index, ordinal in batch]
        embedded = embedding_provider_get(model_id=model_id).embed_texts(texts)
        target = multi_vectors if multi else vectors
        for (index, ordinal), vector in zip(batch, embedded, strict=True):
            target[index][ordinal] = vector
            done[index] += 1
        if claim_id and step < len(plan) - 1:
            _report(prepared=prepared, done=done, total=total, claim_id=claim_id)
    for item, item_multi in zip(prepared, multi_vectors, strict=True):
        item.multi_vectors = item_multi if item.multi_model_id else []
    return vectors


def documents_passages(*, prepared: list[PreparedDocument]) -> None:
    """Set each document's chunk passages and their vectors: one call per pair of models across the
    batch, so the model sees full batches however small the documents (and a sentence two documents
    share is embedded once). A failure to embed them does not fail the documents: their chunks are
    stored without passages, which the backfill makes later (the composer splits and embeds such
    chunks itself meanwhile)."""
    groups: dict[tuple[str, str], list[PreparedDocument]] = {}
    for item in prepared:
        groups.setdefault((item.model_id, item.multi_model_id), []).append(item)
    for (model_id, multi_model_id), items in groups.items():
        sources = [
            source
            for item in items
            for source in document_sources(
                texts=[draft.text for draft in item.drafts], title=item.title
            )
        ]
        try:
            made = passages_make(sources=sources, model_id=model_id, multi_model_id=multi_model_id)
        except EmbeddingError as exc:
            names = ", ".join(str(item.document.pk) for item in items)
            logger.warning("documents %s: passages left to the backfill (%s)", names, exc)
            made = []
        start = 0
        for item in items:
            count = len(item.drafts)
            item.passages = made[start : start + count] if made else []
            start += count


def documents_progress_parsed(*, prepared: list[PreparedDocument], claim_id: str) -> None:
    zero = [0] * len(prepared)
    _report(prepared=prepared, done=zero, total=zero, claim_id=claim_id)


def _report(
    *, prepared: list[PreparedDocument], done: list[int], total: list[int], claim_id: str
) -> None:
    """Report each document's share of embedded chunks; losing every claim stops the work."""
    span = EMBEDDED_PROGRESS - PARSED_PROGRESS
    percents = {
        str(item.document.pk): PARSED_PROGRESS + span * count // max(1, whole)
        for item, count, whole in zip(prepared, done, total, strict=True)
    }
    if not documents_progress_report(claim_id=claim_id, percents=percents):
        raise IngestError("claim_lost", "Another worker took this document over.")
