"""Document writes on behalf of an API caller: every bot and conversation named is checked first.

Nothing is stored unless the whole request is valid: references and files are checked before
the first document is created, and all of one request's documents commit together.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from django.conf import settings
from django.core.files import File
from django.core.files.base import ContentFile
from django.db import IntegrityError, transaction
from django.utils.text import slugify
from rest_framework.exceptions import ValidationError

from api.access import (
    bots_for_principal,
    conversation_get_for_principal,
    documents_uploaded_with_key,
)
from api.errors import ApiError, ErrorCode
from api.principal import Principal
from bots.models import Bot
from core.models import Workspace
from rag.models import Document
from rag.parsing import SUPPORTED_EXTENSIONS
from rag.services import NewFile, documents_create

_TEXT_SUFFIX = {"text": ".txt", "markdown": ".md"}


def document_bots_resolve(*, principal: Principal, bot_ids: Sequence[uuid.UUID]) -> list[Bot]:
    """The named bots, all of which the caller must be allowed to use (unknown and foreign read alike)."""
    wanted = list(dict.fromkeys(bot_ids))
    bots = {bot.pk: bot for bot in bots_for_principal(principal=principal).filter(pk__in=wanted)}
    missing = [str(bot_id) for bot_id in wanted if bot_id not in bots]
    if missing:
        raise ValidationError(
            {"bot_ids": [f"No bot you may use has the id {bot_id}." for bot_id in missing]}
        )
    return [bots[bot_id] for bot_id in wanted]


def _conversation_resolve(
    *, principal: Principal, conversation_id: uuid.UUID | None
) -> uuid.UUID | None:
    if conversation_id is None:
        return None
    try:
        return conversation_get_for_principal(
            principal=principal, conversation_id=conversation_id
        ).pk
    except ApiError:
        raise ValidationError(
            {"conversation_id": ["No conversation you may use has this id."]}
        ) from None


def _files_check(files: Sequence[File[Any]]) -> None:
    limit = settings.PARLEY_UPLOAD_MAX_BYTES
    for file in files:
        name = PurePath(file.name or "").name
        if (file.size or 0) > limit:
            raise ApiError(
                ErrorCode.PAYLOAD_TOO_LARGE,
                f"{name} is {file.size:,} bytes, over the {limit:,}-byte limit per file.",
                extra={"filename": name, "max_bytes": limit},
            )
        if PurePath(name).suffix.lower() not in SUPPORTED_EXTENSIONS:
            supported = ", ".join(sorted({suffix.lstrip(".") for suffix in SUPPORTED_EXTENSIONS}))
            raise ValidationError(
                {"files": [f"{name or 'A file'}: this type is not supported. Use: {supported}."]}
            )


@dataclass(frozen=True)
class DocumentsCreated:
    documents: list[Document]
    replayed: bool = False  # an upload with this Idempotency-Key had already created them


def documents_create_for_principal(
    *,
    principal: Principal,
    files: Sequence[File[Any]],
    titles: Sequence[str] = (),
    bot_ids: Sequence[uuid.UUID] | None = None,
    conversation_id: uuid.UUID | None = None,
    idempotency_key: str = "",
) -> DocumentsCreated:
    """Store the files as pending documents of the caller's workspace (and external user), queued for
    ingestion, for the named bots; with `bot_ids` None, for every bot the caller may use (as the
    admin's upload does), and for none when it is empty or the document is a conversation's.

    With an ``idempotency_key``, a client that lost the answer may send the upload again: the documents
    the first request created come back (``replayed``) and nothing is stored twice, even when both
    requests run at once (the second loses on the unique key and reads the first's documents).
    """
    if bot_ids and conversation_id:
        raise ValidationError(
            {"conversation_id": ["A document belongs to bots or to one conversation, not both."]}
        )
    _files_check(files)
    external_user_id = principal.external_user_id or ""
    keys = _upload_keys(idempotency_key, count=len(files))
    earlier = documents_uploaded_with_key(principal=principal, key=idempotency_key)
    if earlier:
        return DocumentsCreated(earlier, replayed=True)
    named = None if bot_ids is None else document_bots_resolve(principal=principal, bot_ids=bot_ids)
    session = _conversation_resolve(principal=principal, conversation_id=conversation_id)
    if named is not None:
        bots = named
    else:  # left out: every bot the caller may use, as the admin's upload; a session's, none
        bots = [] if session else list(bots_for_principal(principal=principal).order_by("name"))
    workspace = Workspace.objects.get(pk=principal.workspace_id)
    titled = zip(files, [*titles, *[""] * len(files)], keys or [""] * len(files), strict=False)
    uploads = [NewFile(file=file, title=title, upload_key=key) for file, title, key in titled]
    try:
        created = documents_create(
            workspace=workspace,
            files=uploads,
            bots=bots,
            conversation_id=session,
            external_user_id=external_user_id,
        )
    except IntegrityError:
        earlier = documents_uploaded_with_key(principal=principal, key=idempotency_key)
        if not earlier:
            raise
        return DocumentsCreated(earlier, replayed=True)
    return DocumentsCreated(created)


def _upload_keys(key: str, *, count: int) -> list[str]:
    """Each file's Document.upload_key: the request's key and the file's place in the upload."""
    return [f"{key}#{n}" for n in range(count)] if key else []


def document_text_file(*, title: str, text: str, text_format: str) -> ContentFile[bytes]:
    """A text (or Markdown) file holding the given content, named after the title."""
    name = (slugify(title)[:80] or "document") + _TEXT_SUFFIX[text_format]
    return ContentFile(text.encode("utf-8"), name=name)


def document_update(
    *, document: Document, principal: Principal, title: str | None, bot_ids: list[uuid.UUID] | None
) -> Document:
    """Rename a document and/or replace the bots it is attached to (a session document takes no bots)."""
    if title is not None and not title.strip():
        raise ValidationError({"title": ["The title is empty."]})
    bots = None if bot_ids is None else document_bots_resolve(principal=principal, bot_ids=bot_ids)
    if bots and document.conversation_id:
        raise ValidationError({"bot_ids": ["A session document cannot be attached to bots."]})
    with transaction.atomic():
        if title is not None:
            # save(), not a queryset update: the audit trail sees the rename (audit.registry).
            document.title = title
            document.save(update_fields=["title", "updated_at"])
        if bots is not None:
            document.bots.set(bots)
    return Document.objects.prefetch_related("bots").get(pk=document.pk)
