"""The agents' live queue across workspaces: one console stream carries the queues of all the agent's
workspaces (it used to carry the first one only), and never another workspace's.

Against the real uvicorn server and Redis: in headless Chromium, and over plain HTTP for the stream's
resumable cursor.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import contextmanager

import httpx
import pytest
from django.test import Client
from httpx_sse import EventSource, ServerSentEvent, connect_sse
from playwright.sync_api import Browser, Page, expect

from bots.models import Bot
from conversations.models import Conversation
from handoff.live import queue_channel
from handoff.models import HandoffReason
from handoff.services import handoff_open
from streams.live import live_publish
from tests.api.factories import bot_make, workspace_make
from tests.handoff.pages import agent_make, agent_page

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(180)]
WAIT_SECONDS = 20.0


def _waiting(bot: Bot) -> Conversation:
    conversation = Conversation.objects.create(
        bot=bot, channel="widget", visitor_id=uuid.uuid4().hex[:12]
    )
    handoff_open(conversation_id=conversation.pk, reason=HandoffReason.VISITOR_REQUEST)
    return conversation


def _queue_stream_open(page: Page) -> None:
    """The console's queue EventSource is connected (so what follows arrives live, not by a page load)."""
    page.wait_for_function(
        "() => typeof queueEvents !== 'undefined' && queueEvents.readyState === EventSource.OPEN"
    )


@pytest.fixture
def two_shops() -> tuple[Bot, Bot]:
    return bot_make(workspace_make("Atlas shop"), name="Atlas"), bot_make(
        workspace_make("Bruno shop"), name="Bruno"
    )


def test_an_agent_of_two_workspaces_sees_both_queues_live_and_an_agent_of_one_never_the_other(
    browser: Browser, live_api: str, two_shops: tuple[Bot, Bot]
) -> None:
    atlas, bruno = two_shops
    both = agent_page(
        browser, live_api, username="multi", workspaces=[atlas.workspace, bruno.workspace]
    )
    only_atlas = agent_page(browser, live_api, username="solo", workspaces=[atlas.workspace])
    for page in (both, only_atlas):
        expect(page.locator("#queue")).to_contain_text("Nobody is waiting")
        _queue_stream_open(page)

    # The second workspace first (the one the old console never streamed), then the first.
    _waiting(bruno)
    expect(both.locator("#queue button")).to_have_count(1)
    expect(both.locator("#queue")).to_contain_text("Bruno")
    _waiting(atlas)
    expect(both.locator("#queue button")).to_have_count(2)
    expect(both.locator("#queue")).to_contain_text("Atlas")
    expect(both.locator("#notice")).to_contain_text("new waiting conversation")

    # The one-workspace agent got Atlas's conversation live, published after Bruno's, and never Bruno's.
    expect(only_atlas.locator("#queue button")).to_have_count(1)
    expect(only_atlas.locator("#queue")).to_contain_text("Atlas")
    expect(only_atlas.locator("#queue")).not_to_contain_text("Bruno")


def _session_cookie(user: object) -> dict[str, str]:
    client = Client()
    client.force_login(user)
    return {"sessionid": client.cookies["sessionid"].value}


@contextmanager
def _queue_stream(
    base: str, cookies: dict[str, str], *, last_event_id: str = ""
) -> Iterator[EventSource]:
    """The console's queue stream, connected: its start is fixed once the response headers are in."""
    headers = {"Last-Event-ID": last_event_id} if last_event_id else {}
    with (
        httpx.Client(base_url=base, cookies=cookies, timeout=WAIT_SECONDS) as client,
        connect_sse(client, "GET", "/agent/api/queue/events", headers=headers) as source,
    ):
        assert source.response.status_code == 200
        yield source


def _read_until(
    source: EventSource, done: Callable[[list[ServerSentEvent]], bool]
) -> list[ServerSentEvent]:
    """The stream's events until `done(events_so_far)`; bounded, since heartbeats keep a read timeout away."""
    pool = ThreadPoolExecutor(max_workers=1)
    future = pool.submit(_collect, source, done)
    try:
        return future.result(timeout=WAIT_SECONDS)
    except FutureTimeout:
        source.response.close()
        raise AssertionError(f"the awaited events did not come within {WAIT_SECONDS} s") from None
    finally:
        pool.shutdown(wait=False)


def _collect(
    source: EventSource, done: Callable[[list[ServerSentEvent]], bool]
) -> list[ServerSentEvent]:
    events: list[ServerSentEvent] = []
    for event in source.iter_sse():
        events.append(event)
        if done(events):
            return events
    raise AssertionError("the queue stream ended")


def _changed_ids(source: EventSource, until: set[str]) -> list[tuple[str, str]]:
    """(conversation id, event id) of queue changes, in order, until all of `until` were seen."""

    def changes(events: list[ServerSentEvent]) -> list[tuple[str, str]]:
        return [(e.json()["conversation_id"], e.id) for e in events if e.event == "queue_changed"]

    return changes(_read_until(source, lambda events: until <= {c for c, _ in changes(events)}))


def test_queue_stream_merges_the_agents_workspaces_and_resumes_all_of_them_with_last_event_id(
    live_api: str, two_shops: tuple[Bot, Bot]
) -> None:
    atlas, bruno = two_shops
    both = _session_cookie(
        agent_make(username="multi", workspaces=[atlas.workspace, bruno.workspace])
    )
    solo = _session_cookie(agent_make(username="solo", workspaces=[atlas.workspace]))
    with _queue_stream(live_api, both) as both_events, _queue_stream(live_api, solo) as solo_events:
        first_bruno, first_atlas = str(_waiting(bruno).pk), str(_waiting(atlas).pk)
        seen = _changed_ids(both_events, {first_bruno, first_atlas})
        assert sorted(conversation for conversation, _ in seen) == sorted(
            [first_bruno, first_atlas]
        )
        # Bruno's change was published before both of Atlas's: in this stream it would have come before the second.
        second_atlas = str(_waiting(atlas).pk)
        solo_seen = _changed_ids(solo_events, {first_atlas, second_atlas})
        assert [conversation for conversation, _ in solo_seen] == [first_atlas, second_atlas]

    # The last id is a cursor over both queues: resuming from it gives what came after, from both, once.
    cursor = seen[-1][1]
    assert cursor.count(":") == 2, cursor
    later_bruno = str(_waiting(bruno).pk)
    with _queue_stream(live_api, both, last_event_id=cursor) as resumed_events:
        resumed = _changed_ids(resumed_events, {second_atlas, later_bruno})
    assert sorted(conversation for conversation, _ in resumed) == sorted(
        [second_atlas, later_bruno]
    )


def test_queue_stream_resends_a_split_event_whole_to_a_client_cut_in_its_middle(
    live_api: str, two_shops: tuple[Bot, Bot]
) -> None:
    atlas, bruno = two_shops
    cookies = _session_cookie(
        agent_make(username="multi", workspaces=[atlas.workspace, bruno.workspace])
    )
    data = {
        "conversation_id": "big",
        "change": "waiting",
        "note": "x" * 5000,
    }  # over the tests' 2 KiB limit

    def last_piece(events: list[ServerSentEvent]) -> bool:
        pieces = [e.json() for e in events if e.event == "queue_changed_delta_sse"]
        return bool(pieces) and pieces[-1]["seq"] == pieces[-1]["total"] - 1

    with _queue_stream(live_api, cookies) as source:
        entry_id = live_publish(
            channel=queue_channel(workspace_id=atlas.workspace_id), event="queue_changed", data=data
        )
        pieces = _read_until(source, last_piece)
    assert len(pieces) >= 3 and all(p.event == "queue_changed_delta_sse" for p in pieces)
    stream_id = queue_channel(workspace_id=atlas.workspace_id).stream_id
    # Every piece but the last carries the cursor from before the event; the last, the one after it.
    assert len({p.id for p in pieces[:-1]}) == 1 and f"{stream_id}:{entry_id}" not in pieces[0].id
    assert f"{stream_id}:{entry_id}" in pieces[-1].id

    with _queue_stream(live_api, cookies, last_event_id=pieces[1].id) as source:
        again = _read_until(source, last_piece)
    assert [p.json()["seq"] for p in again] == list(range(len(pieces)))
    assert json.loads("".join(p.json()["chunk"] for p in again)) == data
