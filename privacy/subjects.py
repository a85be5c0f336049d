"""Whose data a privacy request is about: an external user id, a visitor id (the widget's id for a
browser, or the one an API client gave) or a conversation id, always within one workspace,
resolved to that visitor's conversations. The one access choke point of this app: an id of another
workspace reads as unknown (a 404), as an id nobody used does."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from django.db.models import Q
from django.utils.crypto import salted_hmac

from conversations.models import Conversation, RagSearchExecution
from core.errors import ErrorKind, ParleyError
from rag.models import Document

EXTERNAL_USER = "external_user"
CONVERSATION = "conversation"
VISITOR = "visitor"


class VisitorNotFound(ParleyError):
    code = "visitor_not_found"
    kind = ErrorKind.NOT_FOUND


class VisitorSubjectInvalid(ParleyError):
    code = "visitor_subject_invalid"
    kind = ErrorKind.INVALID


@dataclass(frozen=True)
class VisitorSubject:
    """A visitor within a workspace: by external user id (all their conversations, private documents
    and searches) or by one conversation (its turns, messages, session documents and searches)."""

    workspace_id: uuid.UUID
    kind: str
    value: str

    @property
    def digest(self) -> str:
        """A keyed hash of who it is: an erasure keeps this, never the id itself."""
        message = f"{self.workspace_id}:{self.kind}:{self.value}"
        return salted_hmac("parley.privacy.subject", message, algorithm="sha256").hexdigest()

    def conversation_ids(self) -> list[uuid.UUID]:
        if self.kind == CONVERSATION:
            rows = Conversation.objects.filter(pk=self.value, bot__workspace_id=self.workspace_id)
        elif self.kind == VISITOR:
            rows = Conversation.objects.filter(
                Q(widget_visitor_id=self.value) | Q(visitor_id=self.value),
                bot__workspace_id=self.workspace_id,
            )
        else:
            rows = Conversation.objects.filter(
                bot__workspace_id=self.workspace_id, external_user_id=self.value
            )
        return list(rows.order_by("created_at").values_list("pk", flat=True))

    def documents_filter(self, conversation_ids: list[uuid.UUID]) -> Q:
        """The visitor's private documents: their conversations' session documents, and those
        uploaded for the external user."""
        mine = Q(conversation_id__in=conversation_ids)
        if self.kind == EXTERNAL_USER:
            mine |= Q(external_user_id=self.value)
        return Q(workspace_id=self.workspace_id) & mine

    def searches_filter(self, conversation_ids: list[uuid.UUID]) -> Q:
        mine = Q(conversation_id__in=conversation_ids)
        if self.kind == EXTERNAL_USER:
            mine |= Q(external_user_id=self.value)
        return Q(workspace_id=self.workspace_id) & mine

    def known(self) -> bool:
        """Whether anything of the visitor is stored in the workspace."""
        ids = self.conversation_ids()
        return (
            bool(ids)
            or Document.objects.filter(self.documents_filter(ids)).exists()
            or RagSearchExecution.objects.filter(self.searches_filter(ids)).exists()
        )


def visitor_subject_get(
    *,
    workspace_id: uuid.UUID | str | None,
    external_user_id: str | None = None,
    conversation_id: uuid.UUID | str | None = None,
    visitor_id: str | None = None,
) -> VisitorSubject:
    """The subject named by exactly one of the three ids; VisitorNotFound when the workspace holds
    nothing of it. A conversation id alone names its workspace (the management commands)."""
    if sum(bool(value) for value in (external_user_id, conversation_id, visitor_id)) != 1:
        raise VisitorSubjectInvalid(
            "name one of an external user id, a visitor id or a conversation id"
        )
    if conversation_id:
        try:
            conversation_uuid = uuid.UUID(str(conversation_id))
        except ValueError as error:
            raise VisitorNotFound("no such conversation") from error
        rows = Conversation.objects.filter(pk=conversation_uuid)
        if workspace_id is not None:
            rows = rows.filter(bot__workspace_id=workspace_id)
        owner = rows.values_list("bot__workspace_id", flat=True).first()
        if owner is None:
            raise VisitorNotFound("no such conversation")
        return VisitorSubject(workspace_id=owner, kind=CONVERSATION, value=str(conversation_uuid))
    if workspace_id is None:
        raise VisitorSubjectInvalid("an external user id or a visitor id needs its workspace")
    subject = VisitorSubject(
        workspace_id=uuid.UUID(str(workspace_id)),
        kind=VISITOR if visitor_id else EXTERNAL_USER,
        value=str(visitor_id or external_user_id),
    )
    if not subject.known():
        raise VisitorNotFound(f"nothing is stored for this {subject.kind.replace('_', ' ')} id")
    return subject
