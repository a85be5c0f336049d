"""Source writes on behalf of an API caller: the bots named are checked first (the same rule as a
document upload: left out, every bot the caller may use), the configuration by the sources app."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from django.db import transaction

from api.access import bots_for_principal
from api.documents.services import document_bots_resolve
from api.principal import Principal
from core.models import Workspace
from sources.models import Source, SourceSync
from sources.services import source_config_check, source_create, source_sync_request


def source_create_for_principal(
    *,
    principal: Principal,
    name: str,
    kind: str,
    config: Mapping[str, Any],
    bot_ids: Sequence[uuid.UUID] | None,
    credentials: Mapping[str, Any] | None,
    schedule_minutes: int,
    sync: bool,
) -> tuple[Source, SourceSync | None]:
    source_config_check(kind=kind, config=config)
    if bot_ids is None:
        bots = list(bots_for_principal(principal=principal).order_by("name"))
    else:
        bots = document_bots_resolve(principal=principal, bot_ids=bot_ids)
    with transaction.atomic():
        source = source_create(
            workspace=Workspace.objects.get(pk=principal.workspace_id),
            name=name,
            kind=kind,
            config=config,
            bots=bots,
            credentials=credentials,
            schedule_minutes=schedule_minutes,
        )
        first = source_sync_request(source=source, trigger="api")[0] if sync else None
    return source, first
