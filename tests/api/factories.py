"""Factories for API tests: workspaces, bots, keys and signing secrets."""

from __future__ import annotations

import uuid
from datetime import datetime

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


def signing_secret_make(bot: Bot) -> BotSigningSecret:
    return bot_signing_secret_create(bot=bot)


def bearer(raw_key: str) -> dict[str, str]:
    return {"HTTP_AUTHORIZATION": f"Bearer {raw_key}"}
