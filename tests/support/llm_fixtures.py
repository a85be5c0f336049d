"""Pytest fixtures of the scripted OpenAI-compatible server (one per session) and a chat endpoint on it,
shared by the gateway's tests (tests/core) and the answer engine's (tests/conversations)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from core.llm.types import LLMEndpoint
from tests.support.llm_server import ScriptedLLMServer


@pytest.fixture(scope="session")
def llm_server() -> Iterator[ScriptedLLMServer]:
    """The scripted OpenAI-compatible server; child processes (worker, uvicorn) reach it as LLM_BASE_URL."""
    server = ScriptedLLMServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def llm(llm_server: ScriptedLLMServer) -> Iterator[ScriptedLLMServer]:
    """The scripted server with an empty script; a test must consume every reply it queues."""
    llm_server.reset()
    yield llm_server
    assert not llm_server.replies, f"scripted replies left unused: {list(llm_server.replies)}"
    assert not llm_server.embedding_replies, (
        f"embedding replies left unused: {list(llm_server.embedding_replies)}"
    )
    assert not llm_server.transcription_replies, (
        f"transcription replies left unused: {list(llm_server.transcription_replies)}"
    )


@pytest.fixture
def endpoint(llm: ScriptedLLMServer) -> LLMEndpoint:
    return LLMEndpoint(
        model="scripted-model",
        base_url=llm.base_url,
        api_key="test-key",
        connect_timeout=2.0,
        read_timeout=1.0,
        max_retries=2,
        backoff_base=0.05,
        backoff_max=3.0,
    )
