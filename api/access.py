"""The access choke points: one function per resource decides what a Principal may touch.

Each answers "not found" for objects that do not exist and for objects the caller may not
see alike, so a response never reveals whether something exists in another tenant.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db.models import Q, QuerySet

from api.errors import ApiError, ErrorCode
from api.principal import Principal, PrincipalKind
from bots.models import Bot
from conversations.models import Conversation
from rag.models import Chunk, Document
from sources.models import Source
from streams.sse.buffer import StreamOwner, stream_owner_get


def bots_for_principal(*, principal: Principal) -> QuerySet[Bot]:
    """The bots a caller may use: its workspace's, or only its own bot for a widget key.

    Chunk and document look-ups filter through this (``document__bot__in=...``) so that the
    tenancy rule is written once.
    """
    bots = Bot.objects.filter(workspace_id=principal.workspace_id)
    if principal.bot_id is not None:
        bots = bots.filter(pk=principal.bot_id)
    return bots


def bot_get_for_principal(*, principal: Principal, bot_id: uuid.UUID) -> Bot:
    bot = bots_for_principal(principal=principal).filter(pk=bot_id).first()
    if bot is None:
        raise ApiError(ErrorCode.NOT_FOUND)
    return bot


def conversation_get_for_principal(
    *, principal: Principal, conversation_id: uuid.UUID
) -> Conversation:
    """Widget callers reach only the conversation their visitor session names; an external user only theirs."""
    conversation = (
        Conversation.objects.filter(
            pk=conversation_id, bot__in=bots_for_principal(principal=principal)
        )
        .select_related("bot")
        .first()
    )
    if conversation is None:
        raise ApiError(ErrorCode.NOT_FOUND)
    if principal.kind == PrincipalKind.WIDGET and (
        principal.visitor is None or principal.visitor.conversation_id != conversation.pk
    ):
        raise ApiError(ErrorCode.NOT_FOUND)
    if conversation.external_user_id and conversation.external_user_id != (
        principal.external_user_id or ""
    ):
        raise ApiError(ErrorCode.NOT_FOUND)
    return conversation


def stream_get_for_principal(*, principal: Principal, stream_id: str) -> StreamOwner:
    owner = stream_owner_get(stream_id=stream_id)
    if owner is None or not _may_read_stream(principal, owner):
        raise ApiError(ErrorCode.NOT_FOUND)
    return owner


def _may_read_stream(principal: Principal, owner: StreamOwner) -> bool:
    if owner.workspace_id != str(principal.workspace_id):
        return False
    if principal.bot_id is not None and owner.bot_id != str(principal.bot_id):
        return False
    if owner.external_user_id and owner.external_user_id != principal.external_user_id:
        return False
    if principal.kind == PrincipalKind.WIDGET and owner.visitor_id:
        return principal.visitor is not None and principal.visitor.visitor_id == owner.visitor_id
    return True


# --- Documents and chunks (chat, rag_search and GET /chunks) -------------------------------------------


def documents_for_principal(*, principal: Principal) -> QuerySet[Document]:
    """The documents a caller may read: its workspace's shared documents (a widget key: its bot's),
    its visitor session's own documents, and never another external user's private ones."""
    documents = Document.objects.filter(workspace_id=principal.workspace_id)
    shared = Q(conversation__isnull=True)
    if principal.bot_id is not None:
        shared &= Q(bots=principal.bot_id)
    session = (
        Q(conversation_id=principal.visitor.conversation_id) if principal.visitor else Q(pk__in=[])
    )
    documents = documents.filter(shared | session)
    return documents.filter(external_user_id__in=["", principal.external_user_id or ""]).distinct()


def document_ids_readable(
    *, principal: Principal, document_ids: list[uuid.UUID]
) -> list[uuid.UUID]:
    """The ids as given when the caller may read every one of them; else the same 404 as a missing document."""
    found = set(
        documents_for_principal(principal=principal)
        .filter(pk__in=document_ids)
        .values_list("pk", flat=True)
    )
    if len(found) != len(set(document_ids)):
        raise ApiError(ErrorCode.NOT_FOUND)
    return document_ids


def chunk_get_for_principal(*, principal: Principal, chunk_id: uuid.UUID) -> Chunk:
    chunk = (
        Chunk.objects.filter(pk=chunk_id, document__in=documents_for_principal(principal=principal))
        .only(
            "id", "document_id", "text", "page_number", "bbox", "start_time", "end_time", "metadata"
        )
        .first()
    )
    if chunk is None:
        raise ApiError(ErrorCode.NOT_FOUND)
    return chunk


# --- Documents API (list, manage) ---------------------------------------------------------------------


def documents_manageable_for_principal(*, principal: Principal) -> QuerySet[Document]:
    """The documents a caller may list and manage (documents API): its workspace's, session
    documents included, minus other external users' documents.

    A document created for an external user is that user's alone; shared documents (no external
    user) stay visible to everyone in the workspace. A bot-bound key sees only its bot's documents.
    Retrieval reads through ``documents_for_principal`` instead, which keeps session documents to
    their own session.
    """
    documents = Document.objects.filter(workspace_id=principal.workspace_id).filter(
        Q(external_user_id="") | Q(external_user_id=principal.external_user_id or "")
    )
    if principal.bot_id is not None:
        bound = Document.objects.filter(
            Q(bots=principal.bot_id) | Q(conversation__bot_id=principal.bot_id)
        )
        documents = documents.filter(pk__in=bound.values("pk"))
    return documents


def document_get_for_principal(*, principal: Principal, document_id: uuid.UUID) -> Document:
    document = (
        documents_manageable_for_principal(principal=principal).filter(pk=document_id).first()
    )
    if document is None:
        raise ApiError(ErrorCode.NOT_FOUND)
    return document


def documents_uploaded_with_key(*, principal: Principal, key: str) -> list[Document]:
    """The documents an earlier upload with this Idempotency-Key created for the caller (its
    workspace and external user), in the upload's order; [] without a key.

    Each file's key is ``<key>#<place>``: every place an upload may have (API_DOCUMENTS_MAX_FILES) is
    looked up, so a retry finds the whole first upload whatever it carries, through the unique index."""
    if not key:
        return []
    places = range(int(settings.API_DOCUMENTS_MAX_FILES))
    found = Document.objects.filter(
        workspace_id=principal.workspace_id,
        external_user_id=principal.external_user_id or "",
        upload_key__in=[f"{key}#{n}" for n in places],
    )
    return sorted(found, key=lambda document: int(document.upload_key.rpartition("#")[2]))


# --- Sources API -----------------------------------------------------------------------------------------


def sources_for_principal(*, principal: Principal) -> QuerySet[Source]:
    """The knowledge sources a caller may see and manage: its workspace's; a bot-bound key only those
    that feed its bot. Another workspace's source reads as not found."""
    sources = Source.objects.filter(workspace_id=principal.workspace_id)
    if principal.bot_id is not None:
        sources = sources.filter(bots=principal.bot_id)
    return sources


def source_get_for_principal(*, principal: Principal, source_id: uuid.UUID) -> Source:
    source = sources_for_principal(principal=principal).filter(pk=source_id).first()
    if source is None:
        raise ApiError(ErrorCode.NOT_FOUND)
    return source
