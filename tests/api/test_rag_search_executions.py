"""Every rag_search is audited: through the API (JSON and SSE) it leaves one RagSearchExecution whose
execution_id (the spec's `call_…` shape) is the response's, with its contexts and scores; a failing LLM leaves
its error on the row, and a call that fails outright leaves a failed row with its error."""

from __future__ import annotations

import re
import uuid

import httpx
import pytest
from django.test import Client
from httpx_sse import connect_sse
from pytest_django.fixtures import Settings

from api.contracts import MAX_QUERY_CHARS
from conversations.models import Conversation, RagSearchExecution
from conversations.pipeline import rag_search_answer
from core.llm import errors
from rag.models import WorkspaceEmbedding
from tests.api.factories import bearer, bot_make, server_key_make, widget_key_make
from tests.support.knowledge import document_ingested
from tests.support.llm_server import Reply, ScriptedLLMServer

GUIDE = "# Bike rental\n\nA day rental costs 25 euros and includes a helmet. Children's bikes are half price."
QUERY = "How much does a day rental cost?"
SPEC_EXECUTION_ID = re.compile(
    r"^call_[A-Za-z0-9]{24}$"
)  # rag-search-tool: "call_HB55iUMZE3dZ3QKCHGKE6qYF"


@pytest.fixture
def shop():
    bot = bot_make()
    document = document_ingested(
        workspace=bot.workspace, text=GUIDE, bots=[bot], filename="guide.md"
    )
    raw, key_id = server_key_make(bot.workspace)
    return bot, document, raw, key_id


def _search(raw: str, **body: object):
    return Client().post(
        "/api/v1/rag_search",
        {"query": QUERY, **body},
        content_type="application/json",
        **bearer(raw),
    )


@pytest.mark.django_db
def test_a_json_rag_search_leaves_one_completed_execution_with_its_contexts(shop) -> None:
    bot, document, raw, key_id = shop
    response = _search(raw, document_ids=[str(document.pk)])
    assert response.status_code == 200, response.content
    body = response.json()

    execution = RagSearchExecution.objects.get()
    assert execution.execution_id == body["execution_id"] and SPEC_EXECUTION_ID.match(
        body["execution_id"]
    )
    assert (execution.status, execution.answer_status, execution.error_code) == (
        "completed",
        "found_in_context",
        "",
    )
    assert (execution.workspace_id, execution.bot_id, execution.caller_kind) == (
        bot.workspace_id,
        None,
        "server",
    )
    assert (execution.api_key_id, execution.query, execution.document_ids) == (
        key_id,
        QUERY,
        [document.pk],
    )
    assert execution.response == body["response"] and execution.sources_used == body[
        "sources_used"
    ] == [1]
    assert (
        execution.model == body["model"] == "offline"
        and execution.completed_at >= execution.created_at
    )
    assert "day rental" in execution.expanded_query.lower()
    [context] = execution.contexts
    assert (context["rank"], context["chunk_id"], context["used_in_response"]) == (
        1,
        body["contexts"][0]["chunk_id"],
        True,
    )
    assert (
        context["vector_score"] > 0
        and context["fused_score"] > 0
        and context["text_score"] is not None
    )
    assert execution.parsed_output["status"] == "found_in_context" and execution.raw_output
    assert {"embed", "search", "prompt", "llm", "total"} <= set(execution.latencies)


@pytest.mark.django_db
def test_the_longest_query_the_schema_allows_is_answered_and_one_more_character_is_refused(
    shop,
) -> None:
    """Issue 14: a 4,000-character query returns results or an empty list, never an error; the
    schema's maxLength and the validation agree on where the limit is."""
    _, _, raw, _ = shop
    longest = (QUERY + " ") * (MAX_QUERY_CHARS // (len(QUERY) + 1))
    longest += "x" * (MAX_QUERY_CHARS - len(longest))
    assert len(longest) == MAX_QUERY_CHARS
    response = _search(raw, query=longest)
    assert response.status_code == 200, response.content
    assert isinstance(response.json()["contexts"], list)
    refused = _search(raw, query="\f" + longest)
    assert refused.status_code == 400, refused.content
    assert refused.json()["code"] == "invalid_request", refused.json()


@pytest.mark.django_db
def test_a_refused_call_stores_nothing(shop) -> None:
    bot, _, _, _ = shop
    key = widget_key_make(bot)  # widget keys have no rag_search scope
    response = Client().post(
        "/api/v1/rag_search",
        {"query": QUERY},
        content_type="application/json",
        HTTP_ORIGIN="https://shop.example",
        **bearer(key.key),
    )
    assert response.status_code == 403 and response.json()["code"] == "insufficient_scope"
    assert not RagSearchExecution.objects.exists()


@pytest.mark.django_db
def test_a_search_for_a_bot_and_a_session_records_them(shop) -> None:
    bot, _, _, _ = shop
    conversation = Conversation.objects.create(bot=bot, external_user_id="alice")

    result = rag_search_answer(
        workspace_id=bot.workspace_id,
        query=QUERY,
        bot_id=bot.pk,
        conversation_id=conversation.pk,
        external_user_id="alice",
    )

    execution = RagSearchExecution.objects.get(execution_id=result["execution_id"])
    assert (execution.bot_id, execution.conversation_id, execution.external_user_id) == (
        bot.pk,
        conversation.pk,
        "alice",
    )
    assert (execution.caller_kind, execution.api_key_id, execution.document_ids) == ("", None, None)
    assert (
        execution.status == "completed" and len(execution.contexts) == len(result["contexts"]) == 1
    )


@pytest.mark.django_db
def test_a_failing_llm_leaves_its_error_on_the_execution(
    shop, settings, llm: ScriptedLLMServer
) -> None:
    _, _, raw, _ = shop
    _llm_failing(settings, llm)

    body = _search(raw).json()

    execution = RagSearchExecution.objects.get(execution_id=body["execution_id"])
    assert execution.status == "completed" and execution.llm_error_code == errors.LLM_SERVER_ERROR
    assert execution.model == body["model"] == "offline-fallback(scripted-model)"
    assert "upstream exploded" in execution.llm_error_message
    assert [attempt["generator"] for attempt in execution.attempts] == ["fallback_generator"]
    assert len(llm.chat_requests()) == 1


@pytest.mark.django_db
def test_a_call_that_fails_leaves_a_failed_execution_with_its_error(
    shop, settings, llm: ScriptedLLMServer
) -> None:
    bot, _, raw, _ = shop
    settings.PARLEY_EMBEDDING_OPENAI_BASE_URL, settings.LLM_MAX_RETRIES = llm.base_url, 0
    model = (
        f"openai/refused-{uuid.uuid4().hex[:6]}"  # a fresh name: providers are cached per process
    )
    WorkspaceEmbedding.objects.update_or_create(
        workspace=bot.workspace, defaults={"embedding_model": model}
    )
    llm.enqueue_embeddings(Reply.error(400, "model not served here"))

    response = _search(raw)

    assert response.status_code == 500 and response.json()["code"] == "internal_error"
    execution = RagSearchExecution.objects.get()
    assert (execution.status, execution.error_code) == ("failed", "embedding_failed")
    assert "model not served here" in execution.error_message and execution.completed_at is not None
    assert execution.query == QUERY and execution.response == "" and "total" in execution.latencies


@pytest.mark.django_db(transaction=True)
@pytest.mark.worker
@pytest.mark.timeout(120)
def test_a_streamed_rag_search_leaves_the_execution_its_tool_end_names(
    live_api: str, celery_worker: str
) -> None:
    bot = bot_make()
    document_ingested(workspace=bot.workspace, text=GUIDE, bots=[bot], filename="guide.md")
    raw, key_id = server_key_make(bot.workspace)
    headers = {"Authorization": f"Bearer {raw}"}
    with (
        httpx.Client(timeout=60) as client,
        connect_sse(
            client,
            "POST",
            f"{live_api}/api/v1/rag_search",
            json={"query": QUERY, "stream": True},
            headers=headers,
        ) as source,
    ):
        assert source.response.status_code == 200
        events = list(source.iter_sse())
    assert events[-1].event == "tool_end", [event.event for event in events]
    result = events[-1].json()

    execution = RagSearchExecution.objects.get(workspace=bot.workspace)
    assert execution.execution_id == result["execution_id"] and SPEC_EXECUTION_ID.match(
        execution.execution_id
    )
    assert (execution.status, execution.caller_kind, execution.api_key_id) == (
        "completed",
        "server",
        key_id,
    )
    assert [c["chunk_id"] for c in execution.contexts] == [
        c["chunk_id"] for c in result["contexts"]
    ]
    assert (
        execution.response == result["response"]
        and execution.sources_used == result["sources_used"]
    )


class _ModelCalls:
    """Wraps a local embedding model's provider: how many of its calls embedded `text` (a call made
    inside another, embed_query through embed_texts, counts once)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, model_id: str, text: str) -> None:
        from textmodels.embeddings import embedding_provider_get

        provider = embedding_provider_get(model_id=model_id)
        self.n = 0
        self.depth = 0
        for name in ("embed_query", "embed_texts"):
            real = getattr(provider, name)

            def counted(arg, _real=real):  # type: ignore[no-untyped-def]
                texts = [arg] if isinstance(arg, str) else list(arg)
                self.n += texts.count(text) if self.depth == 0 else 0
                self.depth += 1
                try:
                    return _real(arg)
                finally:
                    self.depth -= 1

            monkeypatch.setattr(provider, name, counted)


@pytest.mark.django_db
@pytest.mark.parametrize("llm_path", ["offline", "llm_failing"])
def test_the_question_is_embedded_once_per_model_in_a_search(
    shop, settings, monkeypatch, llm_path: str, request: pytest.FixtureRequest
) -> None:
    """The guard's MiniLM vector is the one retrieval searches with (and the offline composer's,
    the fallback's); the multilingual model's is computed once, by retrieval."""
    from guard.detector import detection_cache_clear
    from textmodels.embeddings import LOCAL_MODEL_ID, MULTI_MODEL_ID, query_cache_clear

    _, _, raw, _ = shop
    if llm_path == "llm_failing":
        llm = request.getfixturevalue("llm")
        _llm_failing(settings, llm)
    query_cache_clear()
    detection_cache_clear()
    minilm = _ModelCalls(monkeypatch, LOCAL_MODEL_ID, QUERY)
    multilingual = _ModelCalls(monkeypatch, MULTI_MODEL_ID, QUERY)
    assert _search(raw).status_code == 200
    assert (minilm.n, multilingual.n) == (1, 1)


def _llm_failing(settings: Settings, llm: ScriptedLLMServer) -> None:
    """The bot's LLM is the scripted server, whose next reply is a 500, without retries."""
    settings.LLM_PROVIDER, settings.LLM_BASE_URL, settings.LLM_MODEL = (
        "openai",
        llm.base_url,
        "scripted-model",
    )
    settings.LLM_MAX_RETRIES = 0
    llm.enqueue(Reply.error(500, "upstream exploded"))
