"""The support check's inputs for a turn: the chunks given to the LLM as passages, with the units and
multilingual vectors retrieval read of them (made at ingestion, rag.passages), and the sentences'
embedding with the same model."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from conversations.contract.support.apply import SupportInputs
from conversations.contract.support.check import Embed, SupportPassage
from rag.relevance.estimate import ChunkInput
from rag.retrieval import RetrievedChunk
from textmodels.embeddings import embed_texts
from textmodels.language import language_detect


def support_passages(
    *,
    chunks: Sequence[RetrievedChunk],
    known: Mapping[str, ChunkInput],
    model_id: str,
    language: str,
) -> SupportInputs:
    passages = []
    for chunk in chunks:
        read = known.get(chunk.id)
        if read is not None and read.units.units:
            count = len(read.units.units)
            vectors = read.vectors[:count] if read.vectors.ndim == 2 else read.vectors
            passages.append(
                SupportPassage(
                    chunk_id=chunk.id,
                    text=chunk.text,
                    language=read.units.language or language,
                    units=tuple(unit.text for unit in read.units.units),
                    vectors=vectors,
                )
            )
        else:
            passages.append(
                SupportPassage(
                    chunk_id=chunk.id,
                    text=chunk.text,
                    language=language_detect(chunk.text) or language,
                )
            )
    return SupportInputs(passages=tuple(passages), language=language, embed=_embedder(model_id))


def _embedder(model_id: str) -> Embed | None:
    if not model_id:
        return None

    def embed(texts: Sequence[str]) -> np.ndarray:
        return np.asarray(embed_texts(list(texts), model_id=model_id), dtype=np.float32)

    return embed
