"""The one module that calls an OpenAI-compatible embeddings endpoint; it sorts errors into transient and permanent."""

from __future__ import annotations

import openai

from rag.embeddings import EmbeddingError

_TRANSIENT = (openai.APIConnectionError, openai.APITimeoutError, openai.RateLimitError, openai.InternalServerError)


class OpenAIProvider:
    def __init__(self, *, model_id: str, model: str, base_url: str, api_key: str, batch_size: int) -> None:
        self.model_id = model_id
        self.model = model
        self.batch_size = batch_size
        # Retries belong to the Celery task (with backoff and a released claim), not to the client.
        self._client = openai.OpenAI(base_url=base_url, api_key=api_key, timeout=60.0, max_retries=0)

    def embed_texts(self, texts: list[str]) -> list[list[float]]:
        vectors: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            batch = texts[start : start + self.batch_size]
            try:
                response = self._client.embeddings.create(model=self.model, input=batch)
            except _TRANSIENT as exc:
                raise EmbeddingError(f"Embedding endpoint unavailable: {exc}", transient=True) from exc
            except openai.OpenAIError as exc:
                raise EmbeddingError(f"Embedding endpoint refused the request: {exc}", transient=False) from exc
            ordered = sorted(response.data, key=lambda item: item.index)
            vectors.extend(list(item.embedding) for item in ordered)
        return vectors

    def embed_query(self, text: str) -> list[float]:
        return self.embed_texts([text])[0]
