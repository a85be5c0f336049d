"""The gateway's calls other than chat: embeddings, an image described, audio transcribed."""

from __future__ import annotations

import base64
import time
from collections.abc import Sequence

from openai.types.chat import ChatCompletionMessageParam

from core.llm import errors
from core.llm.connections import db_connections_released
from core.llm.errors import LLMError
from core.llm.gateway.clients import openai_client
from core.llm.gateway.retry import call_retried
from core.llm.types import (
    EmbeddingEndpoint,
    EmbeddingsResult,
    MediaEndpoint,
    TranscriptionResult,
    TranscriptSegment,
)


def embeddings_create(*, endpoint: EmbeddingEndpoint, texts: Sequence[str]) -> EmbeddingsResult:
    """One embeddings call for `texts` (the caller batches), retried on transient errors. Raises LLMError."""
    started = time.monotonic()
    client = openai_client(endpoint)
    with db_connections_released():
        retried = call_retried(
            endpoint=endpoint,
            call=lambda: client.embeddings.create(model=endpoint.model, input=list(texts)),
        )
    response, attempt = retried.value, retried.attempts
    ordered = sorted(response.data, key=lambda item: item.index)
    if len(ordered) != len(texts):
        message = f"{len(ordered)} vectors for {len(texts)} texts"
        raise LLMError(errors.LLM_REJECTED, message, attempts=attempt, model=endpoint.model)
    usage = response.usage
    return EmbeddingsResult(
        vectors=[list(item.embedding) for item in ordered],
        model=response.model or endpoint.model,
        prompt_tokens=getattr(usage, "prompt_tokens", None),
        latency_ms=round((time.monotonic() - started) * 1000),
        attempts=attempt,
    )


def vision_describe(
    *, endpoint: MediaEndpoint, image_png: bytes, instruction: str, max_tokens: int = 200
) -> str:
    """A chat completion over one PNG image (a data URL) and an instruction, retried on transient errors.

    Raises LLMError; an empty answer is an error too (LLM_REJECTED), so callers never store nothing."""
    client = openai_client(endpoint)
    url = "data:image/png;base64," + base64.b64encode(image_png).decode("ascii")
    messages: list[ChatCompletionMessageParam] = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": instruction},
                {"type": "image_url", "image_url": {"url": url}},
            ],
        }
    ]
    with db_connections_released():
        retried = call_retried(
            endpoint=endpoint,
            call=lambda: client.chat.completions.create(
                model=endpoint.model, messages=messages, temperature=0.0, max_tokens=max_tokens
            ),
        )
    response, attempt = retried.value, retried.attempts
    choice = response.choices[0] if response.choices else None
    text = ((choice.message.content or "") if choice else "").strip()
    if not text:
        raise LLMError(
            errors.LLM_REJECTED,
            "the vision model answered nothing",
            attempts=attempt,
            model=endpoint.model,
        )
    return text


def transcription_create(
    *, endpoint: MediaEndpoint, audio: bytes, filename: str
) -> TranscriptionResult:
    """Timestamped segments of one audio file (verbose_json), retried on transient errors. Raises LLMError."""
    started = time.monotonic()
    client = openai_client(endpoint)
    with db_connections_released():
        retried = call_retried(
            endpoint=endpoint,
            call=lambda: client.audio.transcriptions.create(
                model=endpoint.model,
                file=(filename, audio),
                response_format="verbose_json",
                timestamp_granularities=["segment"],
            ),
        )
    response, attempt = retried.value, retried.attempts
    segments = [
        TranscriptSegment(start=float(seg.start), end=float(seg.end), text=seg.text.strip())
        for seg in (getattr(response, "segments", None) or [])
    ]
    if not segments and (text := (getattr(response, "text", "") or "").strip()):
        # An endpoint that ignores the timestamps still gives the text: one segment for all of it.
        duration = float(getattr(response, "duration", 0.0) or 0.0)
        segments = [TranscriptSegment(start=0.0, end=duration, text=text)]
    return TranscriptionResult(
        segments=segments,
        language=getattr(response, "language", "") or "",
        model=endpoint.model,
        latency_ms=round((time.monotonic() - started) * 1000),
        attempts=attempt,
    )
