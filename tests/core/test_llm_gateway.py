"""The LLM gateway against the scripted OpenAI-compatible server, through the real openai client."""

from __future__ import annotations

import itertools
import threading
import time
from dataclasses import replace

import pytest
from django.db import connection

from core.llm import errors
from core.llm.errors import LLMError
from core.llm.gateway import llm_complete, llm_stream
from core.llm.types import JSON_MODE_PROMPT, JSON_MODE_RESPONSE_FORMAT, LLMEndpoint
from tests.support.llm_server import REPLY_TOKENS, Reply, ScriptedLLMServer
from tests.support.processes import free_port

MESSAGES = [{"role": "system", "content": "Reply in JSON."}, {"role": "user", "content": "Hi"}]
CONTENT = '{"status": "small_talk", "answer": "Hello there, how can I help you today?"}'


def _first_tokens(count: int) -> str:
    """What the scripted server streams of CONTENT in its first `count` chunks."""
    return "".join(REPLY_TOKENS.findall(CONTENT)[:count])


def test_complete_returns_text_usage_and_asks_for_json(
    llm: ScriptedLLMServer, endpoint: LLMEndpoint
) -> None:
    llm.enqueue(Reply(content=CONTENT, prompt_tokens=42, completion_tokens=17))

    result = llm_complete(endpoint=endpoint, messages=MESSAGES)

    assert result.text == CONTENT
    usage = result.usage
    assert (usage.model, usage.prompt_tokens, usage.completion_tokens) == ("scripted-model", 42, 17)
    assert (usage.attempts, usage.json_mode, usage.finish_reason) == (
        1,
        JSON_MODE_RESPONSE_FORMAT,
        "stop",
    )
    assert 0 <= usage.latency_ms < 5000
    [request] = llm.chat_requests()
    assert request.body["response_format"] == {"type": "json_object"}
    assert request.body["model"] == "scripted-model"
    assert request.body["temperature"] == 0.0
    assert request.messages == MESSAGES
    assert request.headers["authorization"] == "Bearer test-key"


def test_stream_yields_deltas_as_they_arrive(llm: ScriptedLLMServer, endpoint: LLMEndpoint) -> None:
    llm.enqueue(Reply(content=CONTENT, token_delay=0.1, prompt_tokens=30))
    arrivals: list[tuple[float, str]] = []

    stream = llm_stream(endpoint=endpoint, messages=MESSAGES)
    for delta in stream:
        arrivals.append((time.monotonic(), delta))

    deltas = [delta for _, delta in arrivals]
    assert len(deltas) >= 8
    assert "".join(deltas) == CONTENT
    # Incremental: the deltas are spread over the server's pacing, not delivered in one burst.
    assert arrivals[-1][0] - arrivals[0][0] >= 0.1 * (len(deltas) - 2)
    assert stream.result.text == CONTENT
    assert stream.result.usage.first_token_ms is not None
    assert stream.result.usage.first_token_ms < stream.result.usage.latency_ms
    assert (stream.result.usage.prompt_tokens, stream.result.usage.completion_tokens) == (
        30,
        len(deltas),
    )
    [request] = llm.chat_requests()
    assert request.body["stream"] is True
    assert request.body["stream_options"] == {"include_usage": True}


def test_a_paced_stream_reads_the_tokens_in_fewer_reads_and_never_holds_the_first(
    llm: ScriptedLLMServer, endpoint: LLMEndpoint
) -> None:
    """LLM_STREAM_READ_INTERVAL_MS: after the first text, what the server sent between two reads comes
    in one read and one delta, so the deltas are at least one interval apart; none is lost."""
    llm.enqueue(Reply(content=CONTENT, token_delay=0.04))
    arrivals: list[float] = []
    started = time.monotonic()

    stream = llm_stream(endpoint=replace(endpoint, stream_read_interval=0.15), messages=MESSAGES)
    text = ""
    for delta in stream:
        arrivals.append(time.monotonic())
        text += delta

    assert text == CONTENT == stream.result.text
    assert arrivals[0] - started < 0.15  # the first token as it comes
    tokens = stream.result.usage.completion_tokens
    assert tokens == len(REPLY_TOKENS.findall(CONTENT)) >= 10
    assert 2 <= len(arrivals) <= tokens // 2, (len(arrivals), tokens)
    gaps = [later - earlier for earlier, later in itertools.pairwise(arrivals)]
    assert all(gap >= 0.14 for gap in gaps), gaps


def test_prompt_only_json_when_the_endpoint_lacks_response_format(
    llm: ScriptedLLMServer, endpoint: LLMEndpoint
) -> None:
    llm.enqueue(Reply(content=CONTENT))

    result = llm_complete(endpoint=replace(endpoint, json_response_format=False), messages=MESSAGES)

    assert result.usage.json_mode == JSON_MODE_PROMPT
    assert "response_format" not in llm.chat_requests()[0].body


def test_a_400_on_response_format_falls_back_to_prompt_only(
    llm: ScriptedLLMServer, endpoint: LLMEndpoint
) -> None:
    llm.enqueue(Reply(content=CONTENT, reject_fields=("response_format",)), Reply(content=CONTENT))

    result = llm_complete(endpoint=endpoint, messages=MESSAGES)

    assert result.text == CONTENT
    assert (result.usage.json_mode, result.usage.attempts) == (JSON_MODE_PROMPT, 2)
    first, second = llm.chat_requests()
    assert "response_format" in first.body
    assert "response_format" not in second.body


def test_a_stream_rejecting_stream_options_is_retried_plain(
    llm: ScriptedLLMServer, endpoint: LLMEndpoint
) -> None:
    llm.enqueue(Reply(content=CONTENT, reject_fields=("stream_options",)), Reply(content=CONTENT))

    stream = llm_stream(endpoint=endpoint, messages=MESSAGES)

    assert "".join(stream) == CONTENT
    assert stream.result.usage.prompt_tokens is None  # no usage asked for, none recorded
    first, second = llm.chat_requests()
    assert {"stream_options", "response_format"} <= set(first.body)
    assert not {"stream_options", "response_format"} & set(second.body)


def test_a_timeout_is_retried(llm: ScriptedLLMServer, endpoint: LLMEndpoint) -> None:
    llm.enqueue(Reply.hanging(3.0), Reply(content=CONTENT))

    started = time.monotonic()
    result = llm_complete(endpoint=endpoint, messages=MESSAGES)

    assert result.text == CONTENT
    assert result.usage.attempts == 2
    assert 1.0 <= time.monotonic() - started < 3.0  # the read timeout, not the hang, decided


def test_a_timeout_past_the_retries_fails_with_a_stable_code(
    llm: ScriptedLLMServer, endpoint: LLMEndpoint
) -> None:
    llm.enqueue(Reply.hanging(3.0), Reply.hanging(3.0))

    with pytest.raises(LLMError) as raised:
        llm_complete(endpoint=replace(endpoint, max_retries=1), messages=MESSAGES)

    assert (raised.value.code, raised.value.attempts, raised.value.transient) == (
        errors.LLM_TIMEOUT,
        2,
        True,
    )


def test_a_500_then_success(llm: ScriptedLLMServer, endpoint: LLMEndpoint) -> None:
    llm.enqueue(Reply.error(500, "upstream exploded"), Reply(content=CONTENT))

    result = llm_complete(endpoint=endpoint, messages=MESSAGES)

    assert (result.text, result.usage.attempts) == (CONTENT, 2)
    assert len(llm.chat_requests()) == 2


def test_a_streamed_503_then_success(llm: ScriptedLLMServer, endpoint: LLMEndpoint) -> None:
    llm.enqueue(Reply.error(503, "overloaded"), Reply(content=CONTENT))

    stream = llm_stream(endpoint=endpoint, messages=MESSAGES)

    assert "".join(stream) == CONTENT
    assert stream.result.usage.attempts == 2


def test_a_429_waits_for_retry_after(llm: ScriptedLLMServer, endpoint: LLMEndpoint) -> None:
    llm.enqueue(Reply.rate_limited(retry_after="1"), Reply(content=CONTENT))

    result = llm_complete(endpoint=endpoint, messages=MESSAGES)

    first, second = llm.chat_requests()
    assert second.at - first.at >= 1.0
    assert result.usage.attempts == 2


def test_a_retry_after_longer_than_the_longest_wait_fails_at_once(
    llm: ScriptedLLMServer, endpoint: LLMEndpoint
) -> None:
    llm.enqueue(Reply.rate_limited(retry_after="120"))

    started = time.monotonic()
    with pytest.raises(LLMError) as raised:
        llm_complete(endpoint=endpoint, messages=MESSAGES)

    assert (raised.value.code, raised.value.status_code) == (errors.LLM_RATE_LIMITED, 429)
    assert time.monotonic() - started < 1.0


@pytest.mark.parametrize(
    ("status", "code"),
    [
        (401, errors.LLM_AUTH_FAILED),
        (403, errors.LLM_FORBIDDEN),
        (404, errors.LLM_NOT_FOUND),
        (422, errors.LLM_REJECTED),
    ],
)
def test_permanent_errors_fail_fast(
    llm: ScriptedLLMServer, endpoint: LLMEndpoint, status: int, code: str
) -> None:
    llm.enqueue(Reply.error(status, "nope"))

    with pytest.raises(LLMError) as raised:
        llm_complete(endpoint=endpoint, messages=MESSAGES)

    assert (raised.value.code, raised.value.status_code, raised.value.transient) == (
        code,
        status,
        False,
    )
    assert len(llm.chat_requests()) == 1


def test_a_400_without_response_format_is_permanent(
    llm: ScriptedLLMServer, endpoint: LLMEndpoint
) -> None:
    llm.enqueue(Reply.error(400, "context length exceeded"))

    with pytest.raises(LLMError) as raised:
        llm_complete(endpoint=endpoint, messages=MESSAGES, json_output=False)

    assert raised.value.code == errors.LLM_BAD_REQUEST
    assert "response_format" not in llm.chat_requests()[0].body


def test_an_unreachable_endpoint_is_a_connection_error() -> None:
    endpoint = LLMEndpoint(
        model="m", base_url=f"http://127.0.0.1:{free_port()}/v1", max_retries=1, backoff_base=0.01
    )

    with pytest.raises(LLMError) as raised:
        llm_complete(endpoint=endpoint, messages=MESSAGES)

    assert (raised.value.code, raised.value.attempts) == (errors.LLM_CONNECTION_ERROR, 2)


@pytest.mark.django_db(transaction=True)
def test_the_db_connection_is_released_during_the_call(
    llm: ScriptedLLMServer, endpoint: LLMEndpoint
) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    held = connection.connection
    assert held is not None
    llm.enqueue(Reply(content=CONTENT, token_delay=0.02))

    stream = llm_stream(endpoint=endpoint, messages=MESSAGES)
    iterator = iter(stream)
    next(iterator)  # mid-call: the first delta is in, the rest still streaming

    assert (
        connection.connection is None
    )  # handed back: to the pool (where it stays open), or closed
    if connection.pool is None:
        assert held.closed
    else:
        assert connection.pool.get_stats()["pool_available"] >= 1
    "".join(iterator)
    with connection.cursor() as cursor:  # Django reconnects on the next query
        cursor.execute("SELECT 1")
        assert cursor.fetchone() == (1,)


@pytest.mark.django_db
def test_a_connection_inside_a_transaction_is_kept(
    llm: ScriptedLLMServer, endpoint: LLMEndpoint
) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    llm.enqueue(Reply(content=CONTENT))

    llm_complete(endpoint=endpoint, messages=MESSAGES)

    assert connection.in_atomic_block
    assert connection.connection is not None
    assert not connection.needs_rollback


def test_a_stream_broken_after_its_first_tokens_is_not_replayed(
    llm: ScriptedLLMServer, endpoint: LLMEndpoint
) -> None:
    llm.enqueue(Reply(content=CONTENT, cut_after=3))
    received: list[str] = []

    with pytest.raises(LLMError) as raised:
        for delta in llm_stream(endpoint=endpoint, messages=MESSAGES):
            received.append(delta)

    assert raised.value.code == errors.LLM_STREAM_INTERRUPTED
    assert "".join(received) == _first_tokens(3)
    assert len(llm.chat_requests()) == 1  # deltas were out: a retry would have duplicated them


def test_a_stream_cut_before_any_token_is_retried(
    llm: ScriptedLLMServer, endpoint: LLMEndpoint
) -> None:
    llm.enqueue(Reply(content=CONTENT, cut_after=0), Reply(content=CONTENT))

    stream = llm_stream(endpoint=endpoint, messages=MESSAGES)

    assert "".join(stream) == CONTENT
    assert stream.result.usage.attempts == 2


def test_an_error_event_before_any_token_is_retried(
    llm: ScriptedLLMServer, endpoint: LLMEndpoint
) -> None:
    llm.enqueue(Reply(content=CONTENT, raw_after=0), Reply(content=CONTENT))

    stream = llm_stream(endpoint=endpoint, messages=MESSAGES)

    assert "".join(stream) == CONTENT
    assert stream.result.usage.attempts == 2


@pytest.mark.parametrize(
    "raw", ['{"error": {"message": "the model is overloaded"}}', "not json at all"]
)
def test_an_error_event_or_a_garbled_chunk_mid_stream_interrupts_it(
    llm: ScriptedLLMServer, endpoint: LLMEndpoint, raw: str
) -> None:
    llm.enqueue(Reply(content=CONTENT, raw_after=2, raw_data=raw))
    received: list[str] = []

    with pytest.raises(LLMError) as raised:
        for delta in llm_stream(endpoint=endpoint, messages=MESSAGES):
            received.append(delta)

    assert raised.value.code == errors.LLM_STREAM_INTERRUPTED
    assert "".join(received) == _first_tokens(2)  # handed over before the bad chunk's error
    assert len(llm.chat_requests()) == 1


def test_a_stream_stalled_past_the_read_timeout_is_interrupted(
    llm: ScriptedLLMServer, endpoint: LLMEndpoint
) -> None:
    stalled = threading.Event()  # never set: the server holds the stream after two tokens
    llm.enqueue(Reply(content=CONTENT, pause_after=2, resume=stalled))
    received: list[str] = []
    started = time.monotonic()

    with pytest.raises(LLMError) as raised:
        for delta in llm_stream(endpoint=replace(endpoint, read_timeout=0.5), messages=MESSAGES):
            received.append(delta)

    assert (
        raised.value.code == errors.LLM_STREAM_INTERRUPTED
        and "timed out" in raised.value.message.lower()
    )
    assert "".join(received) == _first_tokens(2) and time.monotonic() - started < 5


def test_the_endpoint_reads_the_llm_settings(settings) -> None:  # type: ignore[no-untyped-def]
    settings.LLM_BASE_URL = "http://llm.internal:8080/v1"
    settings.LLM_API_KEY = "k"
    settings.LLM_MODEL = "mistral-small"
    settings.LLM_JSON_RESPONSE_FORMAT = False
    settings.LLM_READ_TIMEOUT = 12.5

    endpoint = LLMEndpoint.from_settings(max_retries=0)

    assert (endpoint.base_url, endpoint.api_key, endpoint.model) == (
        "http://llm.internal:8080/v1",
        "k",
        "mistral-small",
    )
    assert (endpoint.json_response_format, endpoint.read_timeout, endpoint.max_retries) == (
        False,
        12.5,
        0,
    )
