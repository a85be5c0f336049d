"""The chat turn, rag_search and chunk endpoints in JSON (offline provider, real ingestion and retrieval), and
their isolation: a stranger's key, another workspace, another external user, a forged signature — all with the
same answers as for things that do not exist."""

from __future__ import annotations

import uuid

import pytest
from django.test import Client

from api.principal import external_user_signature
from conversations.models import Conversation, Turn
from rag.models import Chunk, Document
from tests.api.factories import (
    bearer,
    bot_make,
    server_key_make,
    signing_secret_make,
    widget_key_make,
    workspace_make,
)
from tests.support.knowledge import document_ingested

pytestmark = pytest.mark.django_db

ORIGIN = "https://shop.example"
GUIDE = "# Bike rental\n\nA day rental costs 25 euros and includes a helmet. Children's bikes are half price."
PRIVATE = "# Alice's plan\n\nAlice's bike rental plan gives her a day rental for 19 euros."


@pytest.fixture
def shop():
    bot = bot_make()
    document_ingested(workspace=bot.workspace, text=GUIDE, bots=[bot], filename="guide.md")
    raw, _ = server_key_make(bot.workspace)
    return bot, raw


def _session(client: Client, key: str, **headers: str) -> dict:
    response = client.post(
        "/api/v1/sessions",
        {},
        content_type="application/json",
        HTTP_ORIGIN=ORIGIN,
        **bearer(key),
        **headers,
    )
    assert response.status_code == 201, response.content
    return response.json()


def _turn(client: Client, conversation_id: str, message: str, cid: str, **headers: str):
    return client.post(
        f"/api/v1/conversations/{conversation_id}/turns",
        {"message": message, "client_message_id": cid},
        content_type="application/json",
        **headers,
    )


def _widget_visitor(key: str) -> tuple[Client, dict, dict[str, str]]:
    """A visitor of a widget (its key): its client, its session and the headers each of its turns sends."""
    client = Client()
    session = _session(client, key)
    headers = {
        "HTTP_ORIGIN": ORIGIN,
        "HTTP_X_PARLEY_SESSION": session["session_token"],
        **bearer(key),
    }
    return client, session, headers


def test_widget_visitor_chat_turn_answers_with_citations_and_is_idempotent(shop) -> None:
    bot, _ = shop
    key = widget_key_make(bot).key
    client, session, headers = _widget_visitor(key)
    first = _turn(
        client, session["conversation_id"], "How much does a day rental cost?", "m-1", **headers
    )
    assert first.status_code == 200, first.content
    body = first.json()
    assert (
        body["status"] == "found_in_context"
        and "25 euros" in body["answer"]
        and body["owner"] == "bot"
    )
    citation = body["citations"][0]
    assert set(citation) == {
        "n",
        "chunk_id",
        "document_id",
        "title",
        "url",
        "page_number",
        "start_time",
        "text_preview",
    }
    assert citation["url"] == ""  # an uploaded file, not a web page
    again = _turn(
        client, session["conversation_id"], "How much does a day rental cost?", "m-1", **headers
    )
    assert again.json() == body and Turn.objects.count() == 1

    chunk = client.get(f"/api/v1/chunks/{citation['chunk_id']}", HTTP_ORIGIN=ORIGIN, **bearer(key))
    assert chunk.status_code == 200
    assert chunk.json() == {
        "id": citation["chunk_id"],
        "document_id": citation["document_id"],
        "text": Chunk.objects.get(pk=citation["chunk_id"]).text,
        "page_number": None,
        "bbox": [],
        "start_time": None,
        "end_time": None,
        "metadata": {"filename": "guide.md", "languages": ["eng"], "modality": "text"},
    }


def test_a_muted_conversation_answers_202_forwarded_to_agent(shop) -> None:
    bot, raw = shop
    conversation = Conversation.objects.create(bot=bot, owner="agent")
    response = _turn(Client(), str(conversation.pk), "Hello?", "m-1", **bearer(raw))
    assert response.status_code == 202
    body = response.json()
    assert (body["status"], body["owner"], body["message"]["text"]) == (
        "forwarded_to_agent",
        "agent",
        "Hello?",
    )
    assert not Turn.objects.exists()
    assert (
        conversation.messages.get().role == "visitor"
    )  # handed to the agent (handoff.visitor_message_post)

    # A client that asked for a stream (the widget does) gets the same JSON, labelled as JSON.
    body = {"message": "Still there?", "client_message_id": "m-2", "stream": True}
    streamed = Client().post(
        f"/api/v1/conversations/{conversation.pk}/turns",
        body,
        content_type="application/json",
        HTTP_ACCEPT="text/event-stream",
        **bearer(raw),
    )
    assert streamed.status_code == 202 and streamed["Content-Type"] == "application/json"
    assert streamed.json()["status"] == "forwarded_to_agent"


def test_rag_search_json_has_exactly_the_spec_shape(shop) -> None:
    _, raw = shop
    response = Client().post(
        "/api/v1/rag_search",
        {"query": "How much does a day rental cost?"},
        content_type="application/json",
        **bearer(raw),
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert set(body) == {"response", "contexts", "sources_used", "model", "execution_id"}
    assert body["sources_used"] == [1] and '<citation id="' in body["response"]
    assert set(body["contexts"][0]) == {
        "rank",
        "chunk_id",
        "document_id",
        "text_preview",
        "used_in_response",
    }


def test_rag_search_document_ids_must_be_readable_uuids(shop) -> None:
    bot, raw = shop
    foreign = document_ingested(workspace=workspace_make(), text=GUIDE)
    client = Client()

    def search(ids: list[str]):
        return client.post(
            "/api/v1/rag_search",
            {"query": "day rental price", "document_ids": ids},
            content_type="application/json",
            **bearer(raw),
        )

    assert search(["not-a-uuid"]).status_code == 400
    missing, other = search([str(uuid.uuid4())]), search([str(foreign.pk)])
    assert missing.status_code == other.status_code == 404 and missing.json() == other.json()
    own = bot.documents.get()
    assert search([str(own.pk)]).json()["contexts"][0]["document_id"] == str(own.pk)


def test_isolation_other_workspace_stranger_key_external_user_and_forged_signature(shop) -> None:
    bot, raw = shop
    secret = signing_secret_make(bot).secret
    private = document_ingested(
        workspace=bot.workspace, text=PRIVATE, bots=[bot], external_user_id="alice"
    )
    private_chunk = str(private.chunks.get().pk)
    client = Client()
    stranger, _ = server_key_make(workspace_make())
    conversation = Conversation.objects.create(bot=bot)
    missing = client.get(f"/api/v1/chunks/{uuid.uuid4()}", **bearer(raw)).json()
    assert client.get(f"/api/v1/chunks/{private_chunk}", **bearer(stranger)).json() == missing
    assert (
        client.get(f"/api/v1/chunks/{private_chunk}", **bearer(raw)).json() == missing
    )  # nobody's user
    as_bob = bearer(raw) | {"HTTP_X_PARLEY_EXTERNAL_USER": "bob"}
    assert client.get(f"/api/v1/chunks/{private_chunk}", **as_bob).json() == missing
    as_alice = bearer(raw) | {"HTTP_X_PARLEY_EXTERNAL_USER": "alice"}
    assert client.get(f"/api/v1/chunks/{private_chunk}", **as_alice).status_code == 200

    foreign_turn = _turn(client, str(conversation.pk), "Hi", "m-1", **bearer(stranger))
    no_such_turn = _turn(client, str(uuid.uuid4()), "Hi", "m-1", **bearer(raw))
    assert (
        foreign_turn.status_code == no_such_turn.status_code == 404
        and foreign_turn.json() == no_such_turn.json()
    )

    key = widget_key_make(bot).key
    signed = {
        "HTTP_X_PARLEY_EXTERNAL_USER": "alice",
        "HTTP_X_PARLEY_EXTERNAL_USER_SIGNATURE": external_user_signature(
            secret=secret, external_user_id="alice"
        ),
    }
    forged = {
        "HTTP_X_PARLEY_EXTERNAL_USER": "alice",
        "HTTP_X_PARLEY_EXTERNAL_USER_SIGNATURE": "0" * 64,
    }
    bob_session = _session(client, key)
    alice_session = _session(client, key, **signed)
    question = "What does Alice's bike rental plan cost for a day rental?"
    bob = _turn(
        client,
        bob_session["conversation_id"],
        question,
        "m-1",
        HTTP_ORIGIN=ORIGIN,
        HTTP_X_PARLEY_SESSION=bob_session["session_token"],
        **bearer(key),
    ).json()
    alice = _turn(
        client,
        alice_session["conversation_id"],
        question,
        "m-1",
        HTTP_ORIGIN=ORIGIN,
        HTTP_X_PARLEY_SESSION=alice_session["session_token"],
        **signed,
        **bearer(key),
    ).json()
    assert (
        private_chunk not in {c["chunk_id"] for c in bob["citations"]}
        and "19 euros" not in bob["answer"]
    )
    assert "19 euros" in alice["answer"]
    refused = _turn(
        client,
        alice_session["conversation_id"],
        question,
        "m-2",
        HTTP_ORIGIN=ORIGIN,
        HTTP_X_PARLEY_SESSION=alice_session["session_token"],
        **forged,
        **bearer(key),
    )
    assert (
        refused.status_code == 401 and refused.json()["code"] == "invalid_external_user_signature"
    )
    other_visitor = _turn(
        client,
        alice_session["conversation_id"],
        question,
        "m-3",
        HTTP_ORIGIN=ORIGIN,
        HTTP_X_PARLEY_SESSION=bob_session["session_token"],
        **bearer(key),
    )
    assert other_visitor.status_code == 404


def test_a_widget_key_reads_a_chunk_by_referer_only_where_a_browser_could_send_no_origin(
    shop,
) -> None:
    """Security review (issue 6): the Referer stands in for Origin only on GET/HEAD without Origin.

    A browser sends the key only in a header (Authorization or X-Api-Key), and a cross-origin request
    with such a header always carries Origin (no-cors requests cannot carry it): a key-bearing browser
    request without Origin is same-origin. Outside browsers Origin is as forgeable as Referer, so the
    fallback adds nothing there; these are the cases it must never widen.
    """
    bot, _ = shop
    key = widget_key_make(bot, origins=(ORIGIN,)).key
    chunk = Chunk.objects.filter(document__bots=bot).first()
    url = f"/api/v1/chunks/{chunk.pk}"
    client = Client()
    auth = {"HTTP_AUTHORIZATION": f"Bearer {key}"}
    same_origin = client.get(url, **auth, HTTP_REFERER=f"{ORIGIN}/faq/")
    assert same_origin.status_code == 200 and same_origin.json()["id"] == str(chunk.pk)
    assert "Access-Control-Allow-Origin" not in same_origin  # no Origin, no CORS answer
    refused = [
        client.get(
            url, **auth, HTTP_ORIGIN="https://evil.example", HTTP_REFERER=f"{ORIGIN}/faq/"
        ),  # Origin wins
        client.get(
            url, **auth, HTTP_ORIGIN="null", HTTP_REFERER=f"{ORIGIN}/faq/"
        ),  # sandboxed frame, file://
        client.get(url, **auth, HTTP_REFERER="https://evil.example/"),
        client.get(url, **auth),  # no Referer either (Referrer-Policy: no-referrer)
        client.post(
            "/api/v1/rag_search",
            {"query": "Price?"},
            content_type="application/json",
            **auth,
            HTTP_REFERER=f"{ORIGIN}/faq/",
        ),  # not a GET: browsers always send Origin
    ]
    assert [response.status_code for response in refused] == [401] * 5


def test_a_web_pages_citation_links_to_the_page_at_the_quoted_sentence(shop) -> None:
    """A document with a web address (a crawled page, or an upload given its URL) is cited by a link
    that opens the page scrolled to the sentence the answer quoted (a URL text fragment)."""
    bot, _ = shop
    Document.objects.filter(workspace=bot.workspace).update(
        source_url="https://help.shop.example/rentals?utm_source=x"
    )
    key = widget_key_make(bot).key
    client, session, headers = _widget_visitor(key)
    body = _turn(
        client, session["conversation_id"], "How much does a day rental cost?", "m-web", **headers
    ).json()
    citation = body["citations"][0]
    page, _, fragment = citation["url"].partition("#:~:text=")
    assert page == "https://help.shop.example/rentals?utm_source=x"
    # The quoted sentence ("A day rental costs 25 euros and includes a helmet."), percent-encoded.
    assert fragment.startswith("A%20day%20rental%20costs%2025%20euros")
