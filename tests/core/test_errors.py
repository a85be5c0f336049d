"""One error vocabulary: every exception class Parley defines is a `core.errors.ParleyError` (a stable
code, a message, extra, a kind), and each HTTP edge maps the kind to a status once."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest
from django.test import Client

from conversations.models import Conversation
from core.errors import HTTP_STATUS, ErrorKind, ParleyError
from handoff.services import HandoffError
from tests.api.factories import bot_make, widget_key_make, workspace_make

ROOT = Path(__file__).resolve().parents[2]
APPS = (
    "agent",
    "api",
    "bots",
    "config",
    "conversations",
    "core",
    "handoff",
    "prompt_context",
    "prompts",
    "rag",
    "streams",
    "widget",
)


def _exception_classes() -> list[tuple[str, str]]:
    """(module, class) of every class in the apps whose name says it is an error."""
    found = []
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.ClassDef) and node.name.endswith(
                    ("Error", "Rejected", "NotFound", "Missing")
                ):
                    found.append((module.removesuffix(".__init__"), node.name))
    return found


def test_every_error_class_is_a_parley_error_with_a_code() -> None:
    classes = _exception_classes()
    assert len(classes) >= 14
    for module, name in classes:
        cls = getattr(importlib.import_module(module), name)
        if not issubclass(cls, BaseException):
            continue
        assert issubclass(cls, ParleyError), f"{module}.{name} is not a ParleyError"
        assert cls.code and cls.kind in HTTP_STATUS


def test_an_error_carries_its_code_message_and_extra() -> None:
    error = HandoffError("handoff_not_allowed", "the conversation is owned by resolved")
    assert error.kind is ErrorKind.CONFLICT and error.http_status == 409
    assert error.as_json() == {
        "code": "handoff_not_allowed",
        "message": "the conversation is owned by resolved",
        "extra": {},
    }


@pytest.mark.django_db
def test_the_api_maps_a_service_error_by_its_kind_with_its_code_as_the_reason() -> None:
    bot = bot_make(workspace_make())
    bot.escalation_allowed = True
    bot.save()
    origin = "https://shop.example"
    key = widget_key_make(bot, origins=(origin,)).key
    client = Client()
    headers = {"Authorization": f"Bearer {key}", "Origin": origin}
    session = client.post(
        "/api/v1/sessions", data={}, content_type="application/json", headers=headers
    ).json()
    Conversation.objects.filter(pk=session["conversation_id"]).update(owner="resolved")
    response = client.post(
        f"/api/v1/conversations/{session['conversation_id']}/handoff",
        data={},
        content_type="application/json",
        headers={**headers, "X-Parley-Session": session["session_token"]},
    )
    assert response.status_code == 409
    body = response.json()
    assert (body["code"], body["extra"]["reason"]) == ("conflict", "handoff_not_allowed")
