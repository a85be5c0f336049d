"""The admin's whole path in headless Chromium: create a bot from scratch with every section, topics and
lexicon; preview the complete prompt; save a template override and roll it back; export and import its context."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from bots.models import Bot, PromptTemplateVersion
from core.models import Membership
from tests.support.browser import admin_login, artifact_path
from tests.support.factories import PASSWORD, MembershipFactory

SECTION_FIELDS = {
    "name": "Velo",
    "role": "after-sales assistant",
    "domain": "Lumen Bikes e-bikes",
    "target_audience": "Lumen riders",
    "locale": "en",
    "response_expectations": "Practical steps, no jargon.",
    "formatting_rules": "Numbered lists for procedures.",
    "vocabulary_constraints": "Say e-bike, never moped.",
    "regulatory_constraints": "No legal advice.",
    "forbidden_statements": "Never promise delivery dates.",
    "mandatory_mentions": "Stop riding if the battery is damaged.",
    "specific_instructions": "Ask for the bike model when unclear.",
    "escalation_triggers": "talk to a human\nagent",
    "escalation_unavailable_text": "Nobody can join right now.",
    "escalation_confidence_threshold": "0.4",
    "relaxation_statement": "General cycling know-how may come from general knowledge.",
    "refusal_text": "I only help with Lumen Bikes.",
    "no_answer_text": "I could not find that.",
    "injection_refusal_text": "I cannot process this.",
    "escalation_text": "A colleague will take over.",
}
# Django's messages: the bot's page also shows its no-document notice as a list of that class.
MESSAGES = ".messagelist:not(#bot-no-documents)"


@pytest.mark.browser
def test_an_admin_configures_a_bot_from_scratch(page: Page, admin_base: str) -> None:
    membership = MembershipFactory(role=Membership.Role.OWNER, workspace__name="Lumen Bikes")
    admin_login(page, base_url=admin_base, username=membership.user.username, password=PASSWORD)

    # Create the bot: every section, two topics and a lexicon group.
    page.goto(f"{admin_base}/admin/bots/bot/add/")
    page.select_option("#id_workspace", label="Lumen Bikes")
    for field, value in SECTION_FIELDS.items():
        page.fill(f"#id_{field}", value)
    page.select_option("#id_formality", "friendly")
    page.check("#id_escalation_allowed")
    page.select_option("#id_rag_strictness", "relaxed")
    page.check("#id_explainability")
    page.click("summary:has-text('LLM')")
    page.fill("#id_llm_model", "gpt-4o-mini")
    page.fill("#id_topics-0-name", "Battery & charging")
    page.click("#topics-group .add-row a")
    page.fill("#id_topics-1-name", "Competitor bikes")
    page.select_option("#id_topics-1-kind", "excluded")
    page.fill("#id_lexicon_groups-0-terms", "e-bike, pedelec, electric bike")
    page.fill("#id_lexicon_groups-0-definition", "A pedal-assisted bicycle.")
    page.click("input[name=_continue]")
    expect(page.locator(MESSAGES)).to_contain_text("was added successfully")
    expect(page.locator("#bot-no-documents")).to_contain_text("This bot knows no document")
    bot = Bot.objects.get(name="Velo")
    assert set(bot.topics.values_list("name", flat=True)) == {
        "Battery & charging",
        "Competitor bikes",
        "Small talk",
    }

    # Preview the complete prompt with an edited sample question.
    page.click("text=Preview prompt")
    page.fill("#id_question", "How long does a full charge take?")
    page.click("input[name=render]")
    prompt = page.locator("#rendered-prompt")
    for text in (
        "# SECTION 1",
        "1.2 RAG policy (relaxed)",
        "# SECTION 2",
        "# SECTION 3",
        "# SECTION 4",
    ):
        expect(prompt).to_contain_text(text)
    expect(prompt).to_contain_text('"How long does a full charge take?"')
    expect(prompt).to_contain_text('"Competitor bikes"')
    page.screenshot(path=str(artifact_path("admin-prompt-preview.png")), full_page=True)

    # Save an override (a bad one is refused with its line), a second version, then roll back to the first.
    page.goto(f"{admin_base}/admin/bots/bot/{bot.pk}/templates/answer/")
    page.fill("#id_source", "Be brief.\n{{ ''.__class__ }}")
    page.click("#template-form input[type=submit]")
    expect(page.locator("#template-errors")).to_contain_text("Line 2: forbidden in the sandbox")
    for number, text in ((1, "First"), (2, "Second")):
        page.fill(
            "#id_source",
            f'{text} override for {{{{ bot.name }}}}.\n{{% include "sections/3_runtime_data.jinja" %}}',
        )
        page.fill("#id_note", f"{text} try")
        page.click("#template-form input[type=submit]")
        expect(page.locator(MESSAGES)).to_contain_text(f"Saved version {number}")
    page.click("input[value='Activate v1']")
    expect(page.locator(MESSAGES)).to_contain_text("Version 1 is active again")
    expect(page.locator("#active-template")).to_contain_text("version 1")
    page.select_option("select[name=old]", "1")
    page.select_option("select[name=new]", "2")
    page.click("#compare-form input[type=submit]")
    expect(page.locator("#template-diff")).to_contain_text("+Second override")
    assert PromptTemplateVersion.objects.get(bot=bot, is_active=True).number == 1

    # Export the context, edit the file, and import it back.
    page.goto(f"{admin_base}/admin/bots/bot/{bot.pk}/change/")
    with page.expect_download() as download_info:
        page.click("text=Export context")
    exported = json.loads(Path(download_info.value.path()).read_text())
    assert "Battery & charging" in exported["covered_topics"]
    exported["covered_topics"].append("Warranty & repairs")
    page.goto(f"{admin_base}/admin/bots/bot/{bot.pk}/context/import/")
    page.set_input_files(
        "#id_file",
        files=[
            {
                "name": "context.json",
                "mimeType": "application/json",
                "buffer": json.dumps(exported).encode(),
            }
        ],
    )
    page.click("input[value=Import]")
    page.wait_for_url(re.compile(rf".*/admin/bots/bot/{bot.pk}/change/$"))
    expect(page.locator(MESSAGES)).to_contain_text("Imported 4 topics and 1 lexicon groups")
    expect(page.locator("#topics-group input[value='Warranty & repairs']")).to_have_count(1)
    assert bot.topics.filter(name="Warranty & repairs").exists()
    page.screenshot(path=str(artifact_path("admin-bot-change.png")), full_page=True)
