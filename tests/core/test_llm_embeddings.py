"""The gateway's embeddings calls against the scripted OpenAI-compatible server, through the real openai client:
vectors in input order with usage, the shared retry policy (5xx and 429 retried, 4xx fails fast), one client per
endpoint, and the embedding provider of rag built on it."""

from __future__ import annotations

from dataclasses import replace

import pytest

from core.llm import errors
from core.llm.errors import LLMError
from core.llm.gateway import embeddings_create, openai_client
from core.llm.types import EmbeddingEndpoint, LLMEndpoint
from tests.support.llm_server import Reply, ScriptedLLMServer
from textmodels.embeddings.errors import EmbeddingError
from textmodels.embeddings.remote import OpenAIProvider

TEXTS = ["Charge the battery indoors.", "Store it half charged.", "Check the tyres weekly."]


@pytest.fixture
def embedding_endpoint(llm: ScriptedLLMServer) -> EmbeddingEndpoint:
    return EmbeddingEndpoint(
        model="scripted-embed",
        base_url=llm.base_url,
        api_key="embed-key",
        read_timeout=2.0,
        max_retries=2,
        backoff_base=0.05,
        backoff_max=3.0,
    )


def test_vectors_come_back_in_input_order_with_usage(
    llm: ScriptedLLMServer, embedding_endpoint
) -> None:
    result = embeddings_create(endpoint=embedding_endpoint, texts=TEXTS)

    assert len(result.vectors) == 3 and all(len(vector) == 16 for vector in result.vectors)
    assert result.vectors[0] != result.vectors[1]
    assert (
        result.vectors[0]
        == embeddings_create(endpoint=embedding_endpoint, texts=TEXTS[:1]).vectors[0]
    )
    assert (result.model, result.prompt_tokens, result.attempts) == ("scripted-embed", 3, 1)
    request = llm.embedding_requests()[0]
    assert (request.body["model"], request.body["input"]) == ("scripted-embed", TEXTS)
    assert request.headers["authorization"] == "Bearer embed-key"


@pytest.mark.parametrize(
    "failure", [Reply.error(503, "overloaded"), Reply.rate_limited(retry_after="0.2")]
)
def test_transient_failures_are_retried(
    llm: ScriptedLLMServer, embedding_endpoint, failure: Reply
) -> None:
    llm.enqueue_embeddings(failure)

    result = embeddings_create(endpoint=embedding_endpoint, texts=TEXTS)

    assert (len(result.vectors), result.attempts) == (3, 2)
    assert len(llm.embedding_requests()) == 2


def test_permanent_failures_fail_fast(llm: ScriptedLLMServer, embedding_endpoint) -> None:
    llm.enqueue_embeddings(Reply.error(400, "input too long"))

    with pytest.raises(LLMError) as raised:
        embeddings_create(endpoint=embedding_endpoint, texts=TEXTS)

    assert (raised.value.code, raised.value.transient, raised.value.attempts) == (
        errors.LLM_BAD_REQUEST,
        False,
        1,
    )
    assert len(llm.embedding_requests()) == 1


def test_retries_run_out_with_a_transient_error(llm: ScriptedLLMServer, embedding_endpoint) -> None:
    llm.enqueue_embeddings(*[Reply.error(500, "down")] * 2)

    with pytest.raises(LLMError) as raised:
        embeddings_create(endpoint=replace(embedding_endpoint, max_retries=1), texts=TEXTS)

    assert (raised.value.code, raised.value.transient, raised.value.attempts) == (
        errors.LLM_SERVER_ERROR,
        True,
        2,
    )


def test_chat_and_embeddings_share_one_client_per_endpoint(
    llm: ScriptedLLMServer, embedding_endpoint
) -> None:
    chat = LLMEndpoint(
        model="scripted-model", base_url=llm.base_url, api_key="embed-key", read_timeout=2.0
    )

    assert openai_client(embedding_endpoint) is openai_client(chat)  # same URL, key and timeouts
    assert openai_client(embedding_endpoint) is not openai_client(
        replace(embedding_endpoint, api_key="other")
    )


def test_the_rag_provider_batches_and_names_transient_errors(
    llm: ScriptedLLMServer, embedding_endpoint
) -> None:
    provider = OpenAIProvider(
        model_id="openai/scripted-embed", endpoint=embedding_endpoint, batch_size=2
    )

    assert len(provider.embed_texts(TEXTS)) == 3
    assert [len(r.body["input"]) for r in llm.embedding_requests()] == [2, 1]
    llm.enqueue_embeddings(*[Reply.error(502, "bad gateway")] * 3)
    with pytest.raises(EmbeddingError) as raised:
        provider.embed_query("battery")
    assert raised.value.transient and "unavailable" in str(raised.value)
