"""Chat completions: JSON asked for (response_format where the endpoint takes it, the prompt alone where it
rejects it), text deltas streamed as they arrive, retries only before the first delta."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator, Sequence

import httpx
import openai

from core.llm import errors
from core.llm.connections import db_connections_released
from core.llm.gateway.clients import openai_client
from core.llm.gateway.events import stream_chunks
from core.llm.gateway.retry import CALL_ERRORS, Attempts, interrupted
from core.llm.lines import paced_reads
from core.llm.types import (
    JSON_MODE_NONE,
    JSON_MODE_PROMPT,
    JSON_MODE_RESPONSE_FORMAT,
    LLMEndpoint,
    LLMResult,
    LLMUsage,
)

logger = logging.getLogger(__name__)


def llm_complete(
    *, endpoint: LLMEndpoint, messages: Sequence[dict[str, str]], json_output: bool = True
) -> LLMResult:
    """One chat completion, retried on transient errors. Raises LLMError."""
    stream = llm_stream(
        endpoint=endpoint, messages=messages, json_output=json_output, streaming=False
    )
    for _ in stream:
        pass
    return stream.result


def llm_stream(
    *,
    endpoint: LLMEndpoint,
    messages: Sequence[dict[str, str]],
    json_output: bool = True,
    streaming: bool = True,
) -> LLMStream:
    """Text deltas as they arrive; `.result` holds the full text and usage once exhausted."""
    return LLMStream(endpoint, list(messages), json_output, streaming)


class LLMStream:
    """An iterator of text deltas, one per network read of the answer (the tokens it brought). Retries
    happen only before the first delta is yielded."""

    def __init__(
        self,
        endpoint: LLMEndpoint,
        messages: list[dict[str, str]],
        json_output: bool,
        streaming: bool,
    ) -> None:
        self.endpoint = endpoint
        self.messages = messages
        self.json_output = json_output
        self.streaming = streaming
        self._result: LLMResult | None = None

    @property
    def result(self) -> LLMResult:
        if self._result is None:
            raise RuntimeError("the stream has not been read to its end")
        return self._result

    def __iter__(self) -> Iterator[str]:
        endpoint = self.endpoint
        started = time.monotonic()
        minimal = False
        client = openai_client(endpoint)
        attempts = Attempts(endpoint)
        with db_connections_released():
            for attempt in attempts:
                state = _AttemptState()
                try:
                    yield from self._attempt(client, minimal, state, started)
                except CALL_ERRORS as exc:
                    error = attempts.failed(exc)
                    if state.yielded:
                        raise interrupted(error) from exc
                    if (
                        error.code == errors.LLM_BAD_REQUEST
                        and not minimal
                        and self._sends_optional_fields()
                    ):
                        # Endpoints differ in the optional fields they accept (response_format,
                        # stream_options): one 400 buys one retry with the plain request.
                        logger.warning(
                            "%s rejected the request (%s); retrying without optional fields",
                            endpoint.model,
                            error.message,
                        )
                        minimal = True
                        continue
                    attempts.retry(exc, error)
                    continue
                json_mode = _json_mode(self.json_output, self._wants_format() and not minimal)
                self._result = LLMResult(
                    text="".join(state.parts),
                    usage=LLMUsage(
                        model=state.model or endpoint.model,
                        prompt_tokens=state.prompt_tokens,
                        completion_tokens=state.completion_tokens,
                        latency_ms=round((time.monotonic() - started) * 1000),
                        attempts=attempt,
                        json_mode=json_mode,
                        finish_reason=state.finish_reason,
                        first_token_ms=state.first_token_ms,
                    ),
                )
                return

    def _wants_format(self) -> bool:
        return self.json_output and self.endpoint.json_response_format

    def _sends_optional_fields(self) -> bool:
        return self._wants_format() or self.streaming

    def _attempt(
        self, client: openai.OpenAI, minimal: bool, state: _AttemptState, started: float
    ) -> Iterator[str]:
        endpoint = self.endpoint
        kwargs: dict[str, object] = {
            "model": endpoint.model,
            "messages": self.messages,
            "temperature": endpoint.temperature,
            "max_tokens": endpoint.max_tokens,
        }
        if self._wants_format() and not minimal:
            kwargs["response_format"] = {"type": "json_object"}
        if not self.streaming:
            response = client.chat.completions.create(**kwargs)  # type: ignore[call-overload]  # kwargs is built per endpoint; the overloads want literal keywords
            choice = response.choices[0] if response.choices else None
            state.model = response.model or ""
            state.record_usage(response.usage)
            state.finish_reason = choice.finish_reason if choice else None
            text = (choice.message.content or "") if choice else ""
            state.add(text, started)
            yield text
            return
        if not minimal:
            kwargs["stream_options"] = {"include_usage": True}
        # The raw stream, its chunks read as plain JSON: the SDK's typed chunks cost ~0.4 ms of CPU each
        # (pydantic models), a quarter of a streamed answer's CPU in the streams worker (bench/api).
        with client.chat.completions.with_streaming_response.create(
            stream=True, **kwargs
        ) as response:  # type: ignore[call-overload]  # kwargs is built per endpoint, as above
            reads = paced_reads(
                response.iter_bytes(),
                interval=endpoint.stream_read_interval,
                armed=lambda: state.yielded,
            )
            for chunks in stream_chunks(reads, request=response.http_request):
                text = ""  # what one read brought: one delta, however many tokens it holds
                for chunk in chunks:
                    state.model = chunk.get("model") or state.model
                    state.record_usage(chunk.get("usage"))
                    for choice in chunk.get("choices") or ():
                        state.finish_reason = choice.get("finish_reason") or state.finish_reason
                        text += (choice.get("delta") or {}).get("content") or ""
                if text:
                    state.add(text, started)
                    state.yielded = True
                    yield text
        if state.finish_reason is None:
            # A close-delimited stream cut short ends like a complete one; only the missing finish tells.
            raise httpx.RemoteProtocolError("the stream ended without a finish_reason")


class _AttemptState:
    def __init__(self) -> None:
        self.parts: list[str] = []
        self.yielded = False
        self.model = ""
        self.prompt_tokens: int | None = None
        self.completion_tokens: int | None = None
        self.finish_reason: str | None = None
        self.first_token_ms: int | None = None

    def add(self, text: str, started: float) -> None:
        if self.first_token_ms is None:
            self.first_token_ms = round((time.monotonic() - started) * 1000)
        self.parts.append(text)

    def record_usage(self, usage: object) -> None:
        if isinstance(usage, dict):  # a raw streamed chunk's
            self.prompt_tokens = usage.get("prompt_tokens")
            self.completion_tokens = usage.get("completion_tokens")
        elif usage is not None:
            self.prompt_tokens = getattr(usage, "prompt_tokens", None)
            self.completion_tokens = getattr(usage, "completion_tokens", None)


def _json_mode(json_output: bool, use_format: bool) -> str:
    if not json_output:
        return JSON_MODE_NONE
    return JSON_MODE_RESPONSE_FORMAT if use_format else JSON_MODE_PROMPT
