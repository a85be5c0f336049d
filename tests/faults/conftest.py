"""The fault-injection suite's wiring: the session's real uvicorn server and Celery worker, a bot answering
through the scripted LLM server, a streamed turn followed to its end, and /healthz as a load balancer reads it.

Each test ends by checking what no fault may leave behind (`invariants_check`): no document pending or
processing, no chunk twice, no turn left unanswered; and /healthz back to ok."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from django.db.models import Count

from bots.models import Bot
from conversations.models import Conversation, Turn
from rag.models import Chunk, Document
from tests.api.conftest import live_api
from tests.api.factories import bot_make, server_key_make
from tests.api.test_sse_live import join_deltas
from tests.support.knowledge import document_ingested
from tests.support.llm_server import Reply, ScriptedLLMServer
from tests.support.outages import held
from tests.support.processes import wait_for
from tests.support.sse_follow import Followed, sse_follow

__all__ = ["live_api"]

GUIDE = (
    "# Bike rental\n\nA day rental costs 25 euros and includes a helmet. Children's bikes are half price.\n\n"
    "# Repairs\n\nFlat tyres are repaired while you wait. A full service takes two working days."
)
QUESTION = "How much does a day rental cost?"
SENTENCE = "A day rental costs 25 euros and includes a helmet."
# What the scripted model answers: two sentences of the guide, so that the first one streams (an LLM
# answer streams sentence by sentence, each once the support check passed it) while the model is held.
SECOND = "Children's bikes are half price."
ANSWER = f"{SENTENCE} {SECOND}"


@dataclass
class Shop:
    bot: Bot
    headers: dict[str, str]
    base: str
    answer: dict[
        str, Any
    ]  # what the scripted model answers: found in the guide's chunk, quoting it

    @property
    def answer_json(self) -> str:
        return json.dumps(self.answer)


@pytest.fixture
def shop(live_api: str, celery_worker: str) -> Shop:
    """A bot on the scripted LLM (a short read timeout, so a stalled stream is noticed fast)."""
    bot = bot_make(name="Faulty")
    Bot.objects.filter(pk=bot.pk).update(
        llm_provider="openai", llm_model="scripted-model", llm_timeout_seconds=2
    )
    guide = document_ingested(workspace=bot.workspace, text=GUIDE, bots=[bot], filename="guide.md")
    chunk = Chunk.objects.filter(document=guide, text__contains=SENTENCE).first()
    assert chunk is not None
    answer = {
        "status": "found_in_context",
        "answer": ANSWER,
        "confidence_score": "0.9",
        "topic": "Bike rental",
        "context_usage": [
            {"chunk": str(chunk.pk), "sentences": [SENTENCE, SECOND], "used_in_response": True}
        ],
    }
    raw, _ = server_key_make(bot.workspace)
    return Shop(bot=bot, headers={"Authorization": f"Bearer {raw}"}, base=live_api, answer=answer)


def turn_streamed(
    shop: Shop,
    *,
    conversation: Conversation,
    client_message_id: str,
    on_event: Callable[[Any], None] | None = None,
    deadline: float = 60.0,
) -> Followed:
    url = f"{shop.base}/api/v1/conversations/{conversation.pk}/turns"
    body = {"message": QUESTION, "client_message_id": client_message_id, "stream": True}
    with httpx.Client(timeout=30) as client:
        return sse_follow(
            client,
            base=shop.base,
            url=url,
            headers=shop.headers,
            json=body,
            on_event=on_event,
            deadline=deadline,
        )


def stream_outcome(followed: Followed) -> tuple[str, dict[str, Any]]:
    """The stream's last event (joined from its pieces): ("tool_end", result) or ("error", body).

    Every stream must end with one of the two, exactly once, and carry no event twice."""
    ids = [event.id for event in followed.events if event.id]
    assert len(ids) == len(set(ids)), f"an event arrived twice: {ids}"
    joined = join_deltas(followed.events)
    names = [name for name, _, _ in joined]
    finals = [name for name in names if name in ("tool_end", "error")]
    assert len(finals) == 1 and names[-1] == finals[0], names
    return names[-1], joined[-1][2]


def partial_text(followed: Followed) -> str:
    return "".join(
        json.loads(event.data)["content"]
        for event in followed.events
        if event.event == "tool_partial_update"
    )


def health(base: str) -> tuple[int, dict[str, Any]]:
    """/healthz of the real web process, as a load balancer probes it."""
    response = httpx.get(f"{base}/healthz", timeout=15)
    return response.status_code, response.json()


@dataclass(frozen=True)
class Probed:
    """/healthz as read during an outage, and how long it took to answer."""

    status: int
    body: dict[str, Any]
    seconds: float


def health_probed(base: str) -> Probed:
    started = time.monotonic()
    status, body = health(base)
    return Probed(status, body, time.monotonic() - started)


@dataclass(frozen=True)
class MidStream:
    conversation: Conversation
    followed: Followed
    health: Probed  # read while the service was down


def turn_through_outage(
    shop: Shop,
    llm: ScriptedLLMServer,
    *,
    outage: Callable[[], AbstractContextManager[None]],
    client_message_id: str,
) -> MidStream:
    """A streamed turn whose model pauses after its first tokens; at the first partial update the outage
    starts, /healthz is read, the model is let go (its answer completes while the service is down), and
    the outage lasts 1.5 s more before the service comes back."""
    resume = threading.Event()
    llm.enqueue(Reply(content=shop.answer_json, pause_after=30, resume=resume, token_delay=0.01))
    conversation = Conversation.objects.create(bot=shop.bot)
    probed: list[Probed] = []

    def outage_once(event: Any) -> None:
        if event.event != "tool_partial_update" or probed:
            return
        with outage():
            resume.set()
            probed.append(health_probed(shop.base))
            held(1.5)

    followed = turn_streamed(
        shop, conversation=conversation, client_message_id=client_message_id, on_event=outage_once
    )
    assert probed, "no partial update arrived: the outage never happened"
    return MidStream(conversation=conversation, followed=followed, health=probed[0])


def health_recovers(base: str, *, timeout: float = 45) -> dict[str, Any]:
    seen: dict[str, Any] = {}

    def ok() -> bool:
        status, seen["body"] = health(base)
        return status == 200

    wait_for(ok, timeout=timeout, interval=0.5, what="/healthz to report the recovery")
    return seen["body"]


def invariants_check() -> None:
    """What no fault may leave behind."""
    stuck = Document.objects.filter(status__in=["pending", "processing"])
    wait_for(lambda: not stuck.exists(), timeout=60, interval=0.5, what="no document stuck")
    duplicates = (
        Chunk.objects.values("document_id", "ordinal").annotate(n=Count("id")).filter(n__gt=1)
    )
    assert not duplicates.exists()
    for document in Document.objects.filter(status="ready"):
        ordinals = sorted(Chunk.objects.filter(document=document).values_list("ordinal", flat=True))
        assert ordinals == list(range(document.chunk_count)), document.filename
    unanswered = Turn.objects.filter(completed_at__isnull=True)
    assert not unanswered.exists(), list(unanswered.values_list("client_message_id", flat=True))


def manual_text(n: int, *, paragraphs: int) -> str:
    """A long document (many chunks, so ingestion is still embedding when a fault strikes)."""
    sentence = "The rear hub motor of model {n} needs a torque check every {k} hundred kilometres. "
    return "\n\n".join(sentence.format(n=n, k=k) * 6 for k in range(paragraphs))


def documents_finish(ids: list[Any], *, timeout: float, what: str) -> None:
    """Wait until none of the documents is pending or processing, then check each ended ready and whole
    (each chunk once, more than a few of them)."""

    def finished() -> bool:
        return not Document.objects.filter(
            pk__in=ids, status__in=["pending", "processing"]
        ).exists()

    wait_for(finished, timeout=timeout, interval=0.5, what=what)
    for document in Document.objects.filter(pk__in=ids):
        assert (document.status, document.error) == ("ready", ""), document.error
        ordinals = sorted(Chunk.objects.filter(document=document).values_list("ordinal", flat=True))
        assert ordinals == list(range(document.chunk_count)) and document.chunk_count > 5
