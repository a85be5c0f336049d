"""The e-mail connector end to end with the real worker and a real SMTP server: an answer found in a
document goes out with its sources as footnotes, then a handoff round trip by mail (the waiting notice,
the agent joining, the agent's reply signed, the return to the bot)."""

from __future__ import annotations

import json

import pytest

from conversations.models import Conversation
from handoff.services import (
    agent_message_post,
    agent_profile_update,
    handoff_claim,
    handoff_return_to_bot,
)
from tests.connectors.conftest import email_channel_make, mail_make, mailgun_post
from tests.connectors.test_slack_flows import ANSWER, CHARGING, FIRST_ANSWER_TIMEOUT
from tests.support.answers import found_answer
from tests.support.factories import BotFactory, UserFactory
from tests.support.knowledge import document_ingested
from tests.support.llm_server import Reply, ScriptedLLMServer
from tests.support.smtp_server import SmtpServer, mail_text

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker, pytest.mark.timeout(240)]

RIDER = "rider@example.org"


def test_an_answer_with_footnotes_then_a_handoff_round_trip_by_mail(
    celery_worker: str, llm: ScriptedLLMServer, smtp: SmtpServer
) -> None:
    bot = BotFactory(
        name="Lumi",
        escalation_allowed=True,
        llm_provider="openai",
        llm_model="scripted-model",
        llm_timeout_seconds=120,
    )
    document = document_ingested(
        workspace=bot.workspace,
        text=f"# Charging\n\n{CHARGING}",
        bots=[bot],
        filename="charging.md",
    )
    chunk = document.chunks.get()
    channel = email_channel_make(bot=bot, server=smtp)
    sentence = CHARGING.split(". ")[0] + "."
    llm.enqueue(
        Reply(content=json.dumps(found_answer(str(chunk.pk), answer=ANSWER, sentence=sentence)))
    )

    mime, first_id = mail_make(text="How long does a full charge take?")
    assert mailgun_post(channel, mime).status_code == 200
    (answer,) = smtp.wait_to(RIDER, lambda mails: len(mails) == 1, timeout=FIRST_ANSWER_TIMEOUT)
    assert mail_text(answer).strip() == f"{ANSWER}\n\nSources:\n[1] {document.title}"
    assert answer["In-Reply-To"] == first_id

    # "A human, please" (the guard's request for a human: no model call), replying in the thread.
    mime, _ = mail_make(
        text="I want to talk to a human\n\n> earlier mail", in_reply_to=answer["Message-ID"]
    )
    assert mailgun_post(channel, mime).status_code == 200
    smtp.wait_to(
        RIDER,
        lambda mails: "Waiting for an agent" in mail_text(mails[-1]),
        what="the waiting notice",
    )
    conversation = Conversation.objects.get()
    assert conversation.owner == "waiting_agent" and conversation.channel == "email"

    agent = UserFactory(username="alice")
    agent_profile_update(user=agent, display_name="Alice")
    handoff_claim(conversation_id=conversation.pk, agent=agent)
    smtp.wait_to(
        RIDER, lambda mails: "Alice joined" in mail_text(mails[-1]), what="the agent joining"
    )
    agent_message_post(
        conversation_id=conversation.pk, agent=agent, text="Which charger do you use?"
    )
    mails = smtp.wait_to(
        RIDER, lambda mails: "Which charger" in mail_text(mails[-1]), what="the agent's reply"
    )
    assert mail_text(mails[-1]).strip() == "Which charger do you use?\n\n— Alice"
    assert mails[-1]["Subject"] == "Re: Charging"
    handoff_return_to_bot(conversation_id=conversation.pk, agent=agent)
    mails = smtp.wait_to(
        RIDER, lambda mails: "assistant again" in mail_text(mails[-1]), what="the return to the bot"
    )
    assert (
        len(mails) == 6
    )  # answer, the bot's handoff text, waiting, joined, reply, back to the bot
    assert len(llm.chat_requests()) == 1
