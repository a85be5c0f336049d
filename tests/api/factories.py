"""Factories for API tests: workspaces, bots, keys and signing secrets, and a widget visitor's session."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from django.test import Client

from api.models import BotSigningSecret, WidgetKey
from api.services import bot_signing_secret_create, server_api_key_create, widget_key_create
from bots.models import Bot
from core.models import Workspace


def workspace_make(name: str | None = None) -> Workspace:
    name = name or f"ws-{uuid.uuid4().hex[:8]}"
    return Workspace.objects.create(name=name, slug=name)


def bot_make(workspace: Workspace | None = None, name: str = "Helper") -> Bot:
    return Bot.objects.create(workspace=workspace or workspace_make(), name=name)


def server_key_make(
    workspace: Workspace, *, scopes: tuple[str, ...] = (), expires_at: datetime | None = None
) -> tuple[str, uuid.UUID]:
    key, raw = server_api_key_create(
        workspace=workspace, name="test key", scopes=scopes, expires_at=expires_at
    )
    return raw, key.pk


def widget_key_make(bot: Bot, origins: tuple[str, ...] = ("https://shop.example",)) -> WidgetKey:
    return widget_key_create(bot=bot, name="site", allowed_origins=origins)


def widget_session_open(client: Client, key: str, *, origin: str) -> dict[str, Any]:
    """A visitor's session through the widget key (``POST /api/v1/sessions``): the response's body, with
    ``headers``, what the widget sends on every later call."""
    response = client.post(
        "/api/v1/sessions",
        data={},
        content_type="application/json",
        headers={"Authorization": f"Bearer {key}", "Origin": origin},
    )
    assert response.status_code == 201, response.content
    body: dict[str, Any] = response.json()
    body["headers"] = {
        "Authorization": f"Bearer {key}",
        "Origin": origin,
        "X-Parley-Session": body["session_token"],
    }
    return body


def signing_secret_make(bot: Bot) -> BotSigningSecret:
    return bot_signing_secret_create(bot=bot)


def bearer(raw_key: str) -> dict[str, str]:
    return {"HTTP_AUTHORIZATION": f"Bearer {raw_key}"}
