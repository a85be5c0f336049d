"""The agent console in real headless Chromium (against uvicorn, the worker and the local Slack server)
answers a conversation that came from Slack: the queue and the conversation show its channel, the
agent's reply reaches the Slack thread, and Return to bot is announced there too."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from tests.connectors.conftest import slack_channel_make
from tests.connectors.test_slack_flows import FIRST_ANSWER_TIMEOUT, event_post
from tests.handoff.pages import agent_page
from tests.support.factories import BotFactory
from tests.support.slack_server import SlackMessage, SlackServer, slack_mention

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker, pytest.mark.timeout(300)]


def test_an_agent_answers_a_slack_conversation_from_the_console_and_slack_gets_it_in_the_thread(
    browser: Browser, live_api: str, celery_worker: str, slack: SlackServer
) -> None:
    bot = BotFactory(name="Lumi", escalation_allowed=True)
    channel = slack_channel_make(bot=bot, server=slack)
    agent = agent_page(browser, live_api, username="alice", workspaces=[bot.workspace])
    expect(agent.locator("#queue")).to_contain_text("Nobody is waiting")

    event_post(
        channel, slack_mention(channel="C30", ts="3000.000001", text="I want to talk to a human")
    )
    entry = agent.locator("#queue button").first
    expect(entry).to_contain_text("Lumi", timeout=FIRST_ANSWER_TIMEOUT * 1000)
    expect(entry.locator(".channel")).to_have_text("Slack")
    entry.click()
    expect(agent.locator("#conv-title")).to_contain_text("Lumi · Slack")
    expect(agent.locator("#log")).to_contain_text("I want to talk to a human")
    agent.get_by_role("button", name="Claim").click()
    expect(agent.locator("#owner")).to_contain_text("agent: alice")

    agent.fill("#reply-text", "Hello from the console: try another socket.")
    agent.press("#reply-text", "Enter")

    def replied(thread: list[SlackMessage]) -> bool:
        return any(m.text.endswith("Hello from the console: try another socket.") for m in thread)

    slack.wait_thread("C30", "3000.000001", replied, what="the agent's reply in the Slack thread")
    agent.get_by_role("button", name="Return to bot").click()
    expect(agent.locator("#owner")).to_contain_text("bot")

    def returned(thread: list[SlackMessage]) -> bool:
        return any("chatting with the assistant again" in m.text for m in thread)

    thread = slack.wait_thread("C30", "3000.000001", returned, what="the return to the bot")
    texts = [m.text for m in thread]
    assert texts.index("_Waiting for an agent…_") < len(texts) - 1
    assert all(m.thread_ts == "3000.000001" for m in thread)
