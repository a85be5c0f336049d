"""The embedding provider of an OpenAI-compatible endpoint: batches texts through `core.llm.gateway`,
and turns its errors into EmbeddingError (transient or permanent, for ingestion's retries)."""

from __future__ import annotations

from core.llm.errors import LLMError
from core.llm.gateway import embeddings_create
from core.llm.types import EmbeddingEndpoint
from textmodels.embeddings.errors import EmbeddingError


class OpenAIProvider:
    def __init__(self, *, model_id: str, endpoint: EmbeddingEndpoint, batch_size: int) -> None:
        self.model_id = model_id
        self.endpoint = endpoint
        self.batch_size = batch_size

    def embed_texts(self, texts: list[str]) -> list[list[float]]:
        vectors: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            batch = texts[start : start + self.batch_size]
            try:
                result = embeddings_create(endpoint=self.endpoint, texts=batch)
            except LLMError as exc:
                verb = "unavailable" if exc.transient else "refused the request"
                raise EmbeddingError(
                    f"Embedding endpoint {verb}: {exc}", transient=exc.transient
                ) from exc
            vectors.extend(result.vectors)
        return vectors

    def embed_query(self, text: str) -> list[float]:
        return self.embed_texts([text])[0]
