"""The OpenAI-compatible gateway: the only module of Parley that imports `openai` (chat, embeddings, vision, audio).

Every call goes through one client factory (explicit timeouts, the client's own retries off) and
one retry policy (transient failures retried with backoff and jitter, permanent ones fail fast),
records usage, and releases Django's DB connections for its length. Chat asks for JSON
(response_format when the endpoint takes it, falling back to the prompt alone when it rejects it)
and streams text deltas.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import httpx
import httpx2
import openai

from core.llm import errors
from core.llm.backoff import retry_delay
from core.llm.connections import db_connections_released
from core.llm.errors import LLMError
from core.llm.lines import body_lines, paced_reads
from core.llm.types import (
    JSON_MODE_NONE,
    JSON_MODE_PROMPT,
    JSON_MODE_RESPONSE_FORMAT,
    EmbeddingEndpoint,
    EmbeddingsResult,
    Endpoint,
    LLMEndpoint,
    LLMResult,
    LLMUsage,
    MediaEndpoint,
    TranscriptionResult,
    TranscriptSegment,
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
        attempt = failures = 0
        minimal = False
        client = openai_client(endpoint)
        with db_connections_released():
            while True:
                attempt += 1
                state = _AttemptState()
                try:
                    yield from self._attempt(client, minimal, state, started)
                except (openai.APIError, httpx.HTTPError) as exc:
                    error = _classify(exc, endpoint, attempt)
                    if state.yielded:
                        raise _interrupted(error) from exc
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
                    failures += 1
                    _retry_wait(exc, error, failures, endpoint)
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
            response = client.chat.completions.create(**kwargs)  # type: ignore[call-overload]
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
        ) as response:  # type: ignore[call-overload]
            reads = paced_reads(
                response.iter_bytes(),
                interval=endpoint.stream_read_interval,
                armed=lambda: state.yielded,
            )
            for chunks in _stream_chunks(reads, request=response.http_request):
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


def _stream_chunks(
    reads: Iterable[bytes], *, request: httpx2.Request
) -> Iterator[list[dict[str, Any]]]:
    """The JSON chunks of a chat completion's server-sent events (its body's `reads`), up to `[DONE]`:
    one list per read, the chunks that read completed.

    An `error` chunk and a broken transport raise the SDK's own exceptions, so the retry policy
    classifies them as it does for every other call; the chunks read before it are handed over first.
    """
    data: list[str] = []  # the data lines of an event not ended yet (it may span reads)
    try:
        for lines in body_lines(reads):
            batch: list[dict[str, Any]] = []
            try:
                for payload in _event_payloads(lines, data):
                    if payload.startswith("[DONE]"):
                        if batch:
                            yield batch
                        return
                    batch.append(_chunk(payload, request))
            except openai.APIError:
                if batch:
                    yield batch
                raise
            if batch:
                yield batch
    except httpx2.TimeoutException as exc:
        raise openai.APITimeoutError(request=request) from exc
    except httpx2.TransportError as exc:
        raise openai.APIConnectionError(request=request) from exc


def _event_payloads(lines: list[str], data: list[str]) -> Iterator[str]:
    """The data of each event that `lines` end, its `data:` lines joined; `data` holds those of an
    event still open, from one read to the next. Other fields and comments are skipped."""
    for line in lines:
        if line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
        elif not line and data:  # a blank line ends the event
            yield "\n".join(data)
            data.clear()


def _chunk(payload: str, request: httpx2.Request) -> dict[str, Any]:
    """One event's data as a chunk; an `error` chunk or data that is not a JSON object raise."""
    try:
        chunk = json.loads(payload)
    except ValueError:
        raise openai.APIError(
            "the stream sent a chunk that is not JSON", request, body=payload
        ) from None
    if not isinstance(chunk, dict):
        raise openai.APIError(
            "the stream sent a chunk that is not a JSON object", request, body=payload
        )
    if chunk.get("error"):
        error = chunk["error"]
        message = error.get("message") if isinstance(error, dict) else None
        raise openai.APIError(
            str(message or "An error occurred during streaming"), request, body=error
        )
    return chunk


def embeddings_create(*, endpoint: EmbeddingEndpoint, texts: Sequence[str]) -> EmbeddingsResult:
    """One embeddings call for `texts` (the caller batches), retried on transient errors. Raises LLMError."""
    started = time.monotonic()
    client = openai_client(endpoint)
    with db_connections_released():
        attempt = 0
        while True:
            attempt += 1
            try:
                response = client.embeddings.create(model=endpoint.model, input=list(texts))
                break
            except (openai.APIError, httpx.HTTPError) as exc:
                _retry_wait(exc, _classify(exc, endpoint, attempt), attempt, endpoint)
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
    messages = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": instruction},
                {"type": "image_url", "image_url": {"url": url}},
            ],
        }
    ]
    with db_connections_released():
        attempt = 0
        while True:
            attempt += 1
            try:
                response = client.chat.completions.create(
                    model=endpoint.model,
                    messages=messages,  # type: ignore[arg-type]
                    temperature=0.0,
                    max_tokens=max_tokens,
                )
                break
            except (openai.APIError, httpx.HTTPError) as exc:
                _retry_wait(exc, _classify(exc, endpoint, attempt), attempt, endpoint)
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
        attempt = 0
        while True:
            attempt += 1
            try:
                response = client.audio.transcriptions.create(
                    model=endpoint.model,
                    file=(filename, audio),
                    response_format="verbose_json",
                    timestamp_granularities=["segment"],
                )
                break
            except (openai.APIError, httpx.HTTPError) as exc:
                _retry_wait(exc, _classify(exc, endpoint, attempt), attempt, endpoint)
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


def _retry_wait(exc: Exception, error: LLMError, failures: int, endpoint: Endpoint) -> None:
    """The one retry policy: sleep before the next attempt, or raise `error` when retrying cannot help."""
    delay = retry_delay(
        exc,
        error,
        failures,
        max_retries=endpoint.max_retries,
        base=endpoint.backoff_base,
        longest=endpoint.backoff_max,
    )
    if delay is None:
        raise error from exc
    logger.warning("%s call failed (%s), retry %d in %.2fs", endpoint.model, error, failures, delay)
    time.sleep(delay)


_clients: dict[tuple[object, ...], openai.OpenAI] = {}
_clients_lock = threading.Lock()


def openai_client(endpoint: Endpoint) -> openai.OpenAI:
    """The one client factory: a client per process and endpoint, reused across calls.

    Building one costs ~25 ms (httpx loads the TLS trust store), so it is kept, keyed by process
    id so a forked worker never shares its parent's sockets. The gateway does its own retries
    (to name errors and honour Retry-After), so the client's are off.
    """
    key = (
        os.getpid(),
        endpoint.base_url,
        endpoint.api_key,
        endpoint.connect_timeout,
        endpoint.read_timeout,
    )
    client = _clients.get(key)
    if client is None:
        with _clients_lock:
            client = _clients.get(key)
            if client is None:
                client = _clients[key] = openai.OpenAI(
                    base_url=endpoint.base_url,
                    api_key=endpoint.api_key or "unused",
                    timeout=httpx2.Timeout(endpoint.read_timeout, connect=endpoint.connect_timeout),
                    max_retries=0,
                )
    return client


def _json_mode(json_output: bool, use_format: bool) -> str:
    if not json_output:
        return JSON_MODE_NONE
    return JSON_MODE_RESPONSE_FORMAT if use_format else JSON_MODE_PROMPT


_STATUS_CODES: dict[int, str] = {
    400: errors.LLM_BAD_REQUEST,
    401: errors.LLM_AUTH_FAILED,
    403: errors.LLM_FORBIDDEN,
    404: errors.LLM_NOT_FOUND,
    408: errors.LLM_TIMEOUT,
    409: errors.LLM_SERVER_ERROR,
    429: errors.LLM_RATE_LIMITED,
}


def _classify(exc: Exception, endpoint: Endpoint, attempt: int) -> LLMError:
    status: int | None = None
    if isinstance(exc, openai.APITimeoutError | httpx.TimeoutException):
        code = errors.LLM_TIMEOUT
    elif isinstance(exc, openai.APIConnectionError | httpx.TransportError):
        code = errors.LLM_CONNECTION_ERROR
    elif isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        code = (
            errors.LLM_SERVER_ERROR
            if status >= 500
            else _STATUS_CODES.get(status, errors.LLM_REJECTED)
        )
    else:  # an error event inside a stream
        code = errors.LLM_SERVER_ERROR
    message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    return LLMError(code, message, status_code=status, attempts=attempt, model=endpoint.model)


def _interrupted(error: LLMError) -> LLMError:
    message = f"the stream broke after its first tokens: {error.message}"
    return LLMError(
        errors.LLM_STREAM_INTERRUPTED,
        message,
        status_code=error.status_code,
        attempts=error.attempts,
        model=error.model,
    )
