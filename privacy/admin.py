"""The record of visitors' erasures, read-only and scoped to the user's workspaces: when, asked by
whom, its state and what it removed (never whom: the subject is gone once it is done). And the
conversations' action that erases their visitors, added to the conversation admin (handoff)."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

import handoff.admin  # noqa: F401 (the conversation admin, registered before the action is added)
from conversations.admin import ReadOnlyAdmin
from conversations.models import Conversation
from core.admin_scoping import WorkspaceListFilter, WorkspaceScopedAdmin, role_action
from privacy.models import VisitorErasure
from privacy.services.forget import visitors_erase_by_conversations


@admin.register(VisitorErasure)
class VisitorErasureAdmin(ReadOnlyAdmin[VisitorErasure], WorkspaceScopedAdmin[VisitorErasure]):
    list_display = ["created_at", "workspace", "subject_kind", "status", "attempts", "completed_at"]
    list_filter = [WorkspaceListFilter, "status", "subject_kind"]
    list_select_related = ["workspace"]
    fields = [
        "workspace",
        "subject_kind",
        "status",
        "attempts",
        "counts",
        "error_code",
        "error_message",
        "notes",
        "requested_by",
        "created_at",
        "completed_at",
    ]


# The owners': erasing a person is a decision about the workspace's data, as its settings are (the
# erasure record itself stays read-only: its admin has no add page).
@role_action(grant=("core", "workspace", "change"))
@admin.action(description="Erase these conversations' visitors (all their conversations)")
def visitors_erase(
    model_admin: admin.ModelAdmin[Conversation],
    request: HttpRequest,
    queryset: QuerySet[Conversation],
) -> None:
    erasures = visitors_erase_by_conversations(
        conversation_ids=list(queryset.values_list("pk", flat=True)),
        requested_by=f"staff:{request.user.pk}",
    )
    notes = sum(len(erasure.notes) for erasure in erasures)
    model_admin.message_user(
        request,
        f"{len(erasures)} visitor(s) erased"
        + (f", {notes} note(s) in their records" if notes else ""),
        messages.SUCCESS,
    )


# The conversation admin is handoff's (below this app): its registered instance gets the action.
_conversations = admin.site.get_model_admin(Conversation)
_conversations.actions = [*(_conversations.actions or []), visitors_erase]
