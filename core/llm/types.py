"""Plain data of the OpenAI-compatible gateway: where to call (chat, embeddings, vision, audio), what came back."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings

JSON_MODE_RESPONSE_FORMAT = "response_format"
JSON_MODE_PROMPT = "prompt"
JSON_MODE_NONE = "none"


@dataclass(frozen=True)
class Endpoint:
    """What every call to an OpenAI-compatible endpoint needs: where, the model, and the one retry
    policy's limits (from the LLM_* settings for both kinds of call)."""

    model: str
    base_url: str | None = None
    api_key: str = ""
    connect_timeout: float = 5.0
    read_timeout: float = 60.0
    max_retries: int = 2
    backoff_base: float = 0.5
    backoff_max: float = 20.0


def _call_limits() -> dict[str, Any]:
    return {
        "connect_timeout": settings.LLM_CONNECT_TIMEOUT,
        "read_timeout": settings.LLM_READ_TIMEOUT,
        "max_retries": settings.LLM_MAX_RETRIES,
        "backoff_base": settings.LLM_RETRY_BACKOFF,
        "backoff_max": settings.LLM_RETRY_MAX_WAIT,
    }


@dataclass(frozen=True)
class LLMEndpoint(Endpoint):
    """One OpenAI-compatible chat endpoint and model, with its generation limits."""

    # Capability flag: does this endpoint accept response_format={"type": "json_object"}?
    json_response_format: bool = True
    temperature: float = 0.0
    max_tokens: int = 1024
    # Seconds between two reads of a streamed answer once its first text came (core.llm.lines.paced_reads).
    stream_read_interval: float = 0.0

    @classmethod
    def from_settings(cls, **overrides: Any) -> LLMEndpoint:
        values = {
            "model": settings.LLM_MODEL,
            "base_url": settings.LLM_BASE_URL or None,
            "api_key": settings.LLM_API_KEY or "",
            "json_response_format": settings.LLM_JSON_RESPONSE_FORMAT,
            "temperature": settings.LLM_TEMPERATURE,
            "max_tokens": settings.LLM_MAX_TOKENS,
            "stream_read_interval": settings.LLM_STREAM_READ_INTERVAL_MS / 1000,
            **_call_limits(),
        }
        return cls(**{**values, **overrides})


@dataclass(frozen=True)
class EmbeddingEndpoint(Endpoint):
    """One OpenAI-compatible embeddings endpoint and model."""

    @classmethod
    def from_settings(cls, *, model: str, **overrides: Any) -> EmbeddingEndpoint:
        values = {
            "model": model,
            "base_url": settings.PARLEY_EMBEDDING_OPENAI_BASE_URL or None,
            "api_key": settings.PARLEY_EMBEDDING_OPENAI_API_KEY or "",
            **_call_limits(),
        }
        return cls(**{**values, **overrides})


@dataclass(frozen=True)
class MediaEndpoint(Endpoint):
    """An OpenAI-compatible vision (chat with image input) or transcription endpoint and model.

    Retries and backoff follow the LLM_* settings, as embeddings do; the read timeout is the kind's
    own (PARLEY_VISION_TIMEOUT, PARLEY_TRANSCRIPTION_TIMEOUT)."""

    @classmethod
    def vision(cls, *, model: str, **overrides: object) -> MediaEndpoint:
        return cls._from_settings(kind="VISION", model=model, overrides=overrides)

    @classmethod
    def transcription(cls, *, model: str, **overrides: object) -> MediaEndpoint:
        return cls._from_settings(kind="TRANSCRIPTION", model=model, overrides=overrides)

    @classmethod
    def _from_settings(
        cls, *, kind: str, model: str, overrides: dict[str, object]
    ) -> MediaEndpoint:
        """`kind` names the settings: PARLEY_<kind>_OPENAI_BASE_URL, _OPENAI_API_KEY and _TIMEOUT."""
        values: dict[str, Any] = {
            "model": model,
            "base_url": getattr(settings, f"PARLEY_{kind}_OPENAI_BASE_URL") or None,
            "api_key": getattr(settings, f"PARLEY_{kind}_OPENAI_API_KEY") or "",
            **_call_limits(),
            "read_timeout": getattr(settings, f"PARLEY_{kind}_TIMEOUT"),
        }
        return cls(**{**values, **overrides})


@dataclass(frozen=True)
class TranscriptSegment:
    start: float
    end: float
    text: str


@dataclass(frozen=True)
class TranscriptionResult:
    segments: list[TranscriptSegment]
    language: str
    model: str
    latency_ms: int
    attempts: int


@dataclass(frozen=True)
class LLMUsage:
    model: str
    prompt_tokens: int | None
    completion_tokens: int | None
    latency_ms: int
    attempts: int
    json_mode: str
    finish_reason: str | None = None
    first_token_ms: int | None = None


@dataclass(frozen=True)
class LLMResult:
    text: str
    usage: LLMUsage

    @property
    def truncated(self) -> bool:
        return self.usage.finish_reason == "length"


@dataclass(frozen=True)
class EmbeddingsResult:
    """One vector per input text, in input order, with the call's usage."""

    vectors: list[list[float]]
    model: str
    prompt_tokens: int | None
    latency_ms: int
    attempts: int
