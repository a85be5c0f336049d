"""Chat turns and rag_search streamed for real: uvicorn relays SSE while the Celery worker runs the pipeline
(offline provider), read with httpx-sse; big events arrive as `_delta_sse` pieces; a client resumes with
Last-Event-ID."""

from __future__ import annotations

import httpx
import pytest
from httpx_sse import connect_sse

from conversations.models import Conversation
from tests.api.factories import bot_make, server_key_make
from tests.api.test_sse_live import join_deltas
from tests.support.knowledge import document_ingested

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker, pytest.mark.timeout(120)]

GUIDE = (
    "# Bike rental\n\nA day rental costs 25 euros and includes a helmet. Children's bikes are half price.\n\n"
    "# Repairs\n\nFlat tyres are repaired while you wait. A full service takes two working days and costs 60 euros."
)


@pytest.fixture
def shop():
    bot = bot_make()
    document_ingested(workspace=bot.workspace, text=GUIDE, bots=[bot], filename="guide.md")
    for n, topic in enumerate(
        [
            "day rental prices",
            "weekend rental prices",
            "group rental prices",
            "rental deposits",
            "rental insurance",
            "rental helmets",
        ]
    ):
        text = (
            f"# {topic.title()}\n\n"
            + f"Our {topic} for bikes are explained on this page in detail. " * 6
        )
        document_ingested(workspace=bot.workspace, text=text, bots=[bot], filename=f"extra-{n}.md")
    raw, _ = server_key_make(bot.workspace)
    return bot, {"Authorization": f"Bearer {raw}"}


def _stream(client: httpx.Client, method: str, url: str, *, headers: dict[str, str], **kwargs):
    with connect_sse(
        client, method, url, headers=dict(headers), **kwargs
    ) as source:  # it sets Accept in place
        assert source.response.status_code == 200, source.response.read()
        stream_id = source.response.headers["X-Parley-Stream-Id"]
        return stream_id, list(source.iter_sse())


def test_chat_turn_streams_phases_answer_deltas_and_the_result(
    live_api: str, celery_worker: str, shop
) -> None:
    bot, headers = shop
    conversation = Conversation.objects.create(bot=bot)
    url = f"{live_api}/api/v1/conversations/{conversation.pk}/turns"
    body = {
        "message": "How much does a day rental cost?",
        "client_message_id": "m-1",
        "stream": True,
    }
    with httpx.Client(timeout=60) as client:
        stream_id, events = _stream(client, "POST", url, json=body, headers=headers)
        joined = join_deltas(events)
        names = [name for name, _, _ in joined]
        assert (
            names[0] == "tool_update" and names[-1] == "tool_end" and "tool_partial_update" in names
        )
        phases = [data["phase"] for name, _, data in joined if name == "tool_update"]
        assert (
            phases[0] == "SEARCH_PREPARATION"
            and "RETRIEVAL" in phases
            and phases[-1] == "COMPILING_RESULTS"
        )
        result = joined[-1][2]
        streamed = "".join(
            data["content"] for name, _, data in joined if name == "tool_partial_update"
        )
        assert (
            result["status"] == "found_in_context"
            and streamed == result["answer"]
            and "25 euros" in streamed
        )
        assert all(
            data["output_key"] == "response"
            for name, _, data in joined
            if name == "tool_partial_update"
        )

        # Resume after the first event: exactly the rest comes back.
        resume = {**headers, "Last-Event-ID": events[0].id}
        _, rest = _stream(
            client, "GET", f"{live_api}/api/v1/streams/{stream_id}/events", headers=resume
        )
        assert [e.id for e in rest] == [e.id for e in events[1:]]

        # The same client message again: the stored turn, as JSON, no second run.
        again = client.post(url, json={**body, "stream": False}, headers=headers)
        assert again.status_code == 200 and again.json() == result


def test_rag_search_streams_with_the_spec_events_and_a_big_result_in_delta_pieces(
    live_api: str, celery_worker: str, shop
) -> None:
    _, headers = shop
    with httpx.Client(timeout=60) as client:
        _, events = _stream(
            client,
            "POST",
            f"{live_api}/api/v1/rag_search",
            json={"query": "How much does a day rental cost?"},
            headers={**headers, "Accept": "text/event-stream"},
        )
    assert any(e.event == "tool_end_delta_sse" for e in events)  # over the 2 KiB test limit: split
    joined = join_deltas(events)
    result = joined[-1][2]
    assert joined[-1][0] == "tool_end"
    assert set(result) == {"response", "contexts", "sources_used", "model", "execution_id"}
    assert result["sources_used"] and '<citation id="' in result["response"]


def test_the_web_announced_first_event_is_buffered_once_and_survives_a_resume(
    live_api: str, celery_worker: str, shop
) -> None:
    _, headers = shop
    with httpx.Client(timeout=60) as client:
        stream_id, events = _stream(
            client,
            "POST",
            f"{live_api}/api/v1/rag_search",
            json={"query": "How much does a repair cost?", "stream": True},
            headers=headers,
        )
        first = events[0]
        assert (first.event, first.json()) == (
            "tool_update",
            {"phase": "SEARCH_PREPARATION", "status": "started"},
        )
        phases = [e.json()["phase"] for e in events if e.event == "tool_update"]
        assert phases.count("SEARCH_PREPARATION") == 1  # the worker did not announce it again
        replay_url = f"{live_api}/api/v1/streams/{stream_id}/events"
        _, replay = _stream(
            client, "GET", replay_url, headers=headers
        )  # a reconnect with no id: everything
        assert [(e.id, e.event, e.data) for e in replay] == [
            (e.id, e.event, e.data) for e in events
        ]
        _, rest = _stream(client, "GET", replay_url, headers={**headers, "Last-Event-ID": first.id})
        assert [e.id for e in rest] == [e.id for e in events[1:]] and rest[-1].event.startswith(
            "tool_end"
        )
