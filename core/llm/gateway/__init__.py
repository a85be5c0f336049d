"""The OpenAI-compatible gateway: the only package of Parley that imports `openai` (chat, embeddings, vision,
audio).

Every call goes through one client factory (`clients`: explicit timeouts, the client's own retries off) and
one retry policy (`retry`: transient failures retried with backoff and jitter, permanent ones fail fast),
records usage, and releases Django's DB connections for its length. Chat (`chat`) asks for JSON
(response_format when the endpoint takes it, falling back to the prompt alone when it rejects it) and
streams text deltas, read from the server-sent events as plain JSON (`events`); `media` holds the other
calls.
"""

from core.llm.gateway.chat import LLMStream, llm_complete, llm_stream
from core.llm.gateway.clients import openai_client
from core.llm.gateway.media import embeddings_create, transcription_create, vision_describe

__all__ = [
    "LLMStream",
    "embeddings_create",
    "llm_complete",
    "llm_stream",
    "openai_client",
    "transcription_create",
    "vision_describe",
]
