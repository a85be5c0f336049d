"""Admin for handoffs: conversations with their owner history, agents' replies and feedback; policies; feedback."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from conversations.models import Conversation
from core.admin_scoping import WorkspaceListFilter, WorkspaceScopedAdmin
from handoff.models import Handoff, HandoffPolicy, Message, OwnerEvent, TurnFeedback


class _ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


class OwnerEventInline(_ReadOnlyInline):
    model = OwnerEvent
    fields = readonly_fields = ("created_at", "from_owner", "to_owner", "actor", "agent", "reason")


class MessageInline(_ReadOnlyInline):
    model = Message
    fields = readonly_fields = ("created_at", "role", "author", "text")


class HandoffInline(_ReadOnlyInline):
    model = Handoff
    fields = readonly_fields = (
        "opened_at",
        "reason",
        "detail",
        "claimed_by",
        "claimed_at",
        "timed_out_at",
        "closed_at",
        "outcome",
    )


if admin.site.is_registered(Conversation):  # this richer view replaces a plain registration, if any
    admin.site.unregister(Conversation)


@admin.register(Conversation)
class ConversationAdmin(WorkspaceScopedAdmin):
    workspace_lookup = "bot__workspace"
    list_display = ["created_at", "bot", "channel", "owner", "visitor_id"]
    list_filter = [
        "owner",
        "channel",
        "turns__status",
        "turns__feedback__rating",
        WorkspaceListFilter,
        "bot",
    ]
    list_select_related = ["bot"]
    search_fields = ["=id", "visitor_id", "external_user_id"]
    readonly_fields = [
        "id",
        "bot",
        "channel",
        "visitor_id",
        "external_user_id",
        "owner",
        "created_at",
        "updated_at",
    ]
    inlines = [HandoffInline, OwnerEventInline, MessageInline]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Conversation]:
        return super().get_queryset(request).distinct()

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(TurnFeedback)
class TurnFeedbackAdmin(WorkspaceScopedAdmin):
    workspace_lookup = "turn__conversation__bot__workspace"
    list_display = ["created_at", "rating", "reasons", "comment", "turn"]
    list_filter = ["rating"]
    list_select_related = ["turn"]
    readonly_fields = ["turn", "rating", "reasons", "comment", "created_at", "updated_at"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(HandoffPolicy)
class HandoffPolicyAdmin(WorkspaceScopedAdmin):
    workspace_lookup = "bot__workspace"
    list_display = ["bot", "timeout_seconds"]
