"""Repairs in words: every repair code the contract can record has its rule in words, chunk ids become the
page's [n] labels, a code the table does not know still shows its message, and a turn's audit page shows
them (or that the output met the contract)."""

from __future__ import annotations

import ast
import html
from pathlib import Path

import pytest
from django.test import Client

from conversations.models import Conversation, Turn
from conversations.repairs_explained import REPAIR_RULES, repairs_explain
from conversations.types import Repair
from core.models import Membership
from tests.support.factories import BotFactory, MembershipFactory

CONTRACT = Path(__file__).resolve().parents[2] / "conversations" / "contract"


def _codes_recorded() -> set[str]:
    """The codes the contract's modules pass to `Repair(...)`, `draft.repair(...)` and `_release_chunks`,
    read from their syntax trees; f-string codes (`f"{name}_coerced"`, in `_string_list`) expand with the
    field names its callers give it."""
    codes: set[str] = set()
    calls = [
        node
        for module in CONTRACT.glob("*.py")
        for node in ast.walk(ast.parse(module.read_text()))
        if isinstance(node, ast.Call)
    ]
    list_fields = {
        call.args[2].value
        for call in calls
        if getattr(call.func, "id", None) == "_string_list"
        and len(call.args) == 3
        and isinstance(call.args[2], ast.Constant)
    }
    assert list_fields, "no _string_list call found: update this scan"
    for node in calls:
        name = getattr(node.func, "attr", None) or getattr(node.func, "id", None)
        args = node.args[1:] if name == "_release_chunks" else node.args
        if name not in {"Repair", "repair", "_release_chunks"} or not args:
            continue
        first = args[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            codes.add(first.value)
        elif isinstance(first, ast.JoinedStr):
            suffix = "".join(part.value for part in first.values if isinstance(part, ast.Constant))
            codes.update(f"{field}{suffix}" for field in list_fields)
    return codes


def test_every_repair_the_contract_records_has_its_rule_in_words() -> None:
    codes = _codes_recorded()

    assert len(codes) > 30  # the scan found the contract's repairs
    assert codes - REPAIR_RULES.keys() == set()
    assert all(rule.endswith(".") and len(rule) > 15 for rule in REPAIR_RULES.values())


def test_chunks_are_named_by_their_marker_and_unknown_codes_keep_their_message() -> None:
    chunk = "0f8e2c4a-5a1b-4b8e-9a3c-2d6f1e7b9c01"
    repairs = [
        Repair("chunk_usage_missing", f"Retrieved chunk {chunk} was missing; added as unused."),
        {"code": "something_new", "message": "A repair this table has never seen."},
    ]

    missing, unknown = repairs_explain(repairs=repairs, chunk_labels={chunk: "[2] (Price list)"})

    assert missing.rule == "Every retrieved chunk appears in context_usage."
    assert missing.change == "Retrieved chunk [2] (Price list) was missing; added as unused."
    assert (unknown.code, unknown.rule, unknown.change) == (
        "something_new",
        "",
        "A repair this table has never seen.",
    )


@pytest.mark.django_db
def test_a_turns_audit_page_shows_its_repairs_in_words() -> None:
    member = MembershipFactory(role=Membership.Role.OWNER)
    conversation = Conversation.objects.create(bot=BotFactory(workspace=member.workspace))
    chunk = "6b0c8d7e-1f2a-4c3b-8d9e-0a1b2c3d4e5f"
    repaired = Turn.objects.create(
        conversation=conversation,
        client_message_id="m1",
        user_text="How long does delivery take?",
        retrieved_chunks=[{"chunk_id": chunk, "rank": 1, "title": "Delivery guide"}],
        repairs=[
            Repair("confidence_coerced", "confidence_score '0.9' was a string.").as_json(),
            Repair("unused_chunk_without_reason", f"Chunk {chunk} is unused.").as_json(),
        ],
    )
    clean = Turn.objects.create(conversation=conversation, client_message_id="m2", user_text="Hi")
    client = Client()
    client.force_login(member.user)

    page = html.unescape(
        client.get(f"/admin/conversations/turn/{repaired.pk}/change/").content.decode()
    )
    clean_page = client.get(f"/admin/conversations/turn/{clean.pk}/change/").content.decode()

    assert "<strong>confidence_score is a number, not a string.</strong>" in page
    assert "Chunk [1] (Delivery guide) is unused." in page
    assert "None: the output met the contract." in clean_page
