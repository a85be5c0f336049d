"""Admin for handoffs: conversations with their whole transcript (turns, messages and owner changes, by time)
and their handoffs; handoff policies; answer feedback with its question and answer."""

from __future__ import annotations

from typing import Any, TypeVar

from django.contrib import admin
from django.db.models import Model, QuerySet
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.html import format_html
from django.utils.text import Truncator

from conversations.models import Conversation
from core.admin_scoping import WorkspaceListFilter, WorkspaceScopedAdmin
from handoff.models import FeedbackReason, Handoff, HandoffPolicy, TurnFeedback
from handoff.transcript import conversation_transcript, turn_shown_text

_ChildT = TypeVar("_ChildT", bound=Model)


class _ReadOnlyInline(admin.TabularInline[_ChildT, Conversation]):
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


class HandoffInline(_ReadOnlyInline[Handoff]):
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
class ConversationAdmin(WorkspaceScopedAdmin[Conversation]):
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
    # The messages and owner changes are in the transcript (templates/admin/conversations/conversation/).
    inlines = [HandoffInline]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Conversation]:
        return super().get_queryset(request).distinct()

    def render_change_form(
        self,
        request: HttpRequest,
        context: dict[str, Any],
        add: bool = False,
        change: bool = False,
        form_url: str = "",
        obj: Conversation | None = None,
    ) -> HttpResponse:
        # Only when the page is drawn, for the object the scoped queryset already found (a
        # conversation of another workspace never gets here).
        context["transcript"] = conversation_transcript(conversation_id=obj.pk) if obj else []
        return super().render_change_form(request, context, add, change, form_url, obj)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


FEEDBACK_LIST_CHARS = 90
# In words: the model's emoji labels render as empty boxes without an emoji font.
FEEDBACK_RATING_WORDS = {
    str(TurnFeedback.Rating.UP): "Helpful",
    str(TurnFeedback.Rating.DOWN): "Not helpful",
}


class FeedbackRatingFilter(admin.SimpleListFilter):
    title = "rating"
    parameter_name = "rating"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return list(FEEDBACK_RATING_WORDS.items())

    def queryset(
        self, request: HttpRequest, queryset: QuerySet[TurnFeedback]
    ) -> QuerySet[TurnFeedback]:
        return queryset.filter(rating=self.value()) if self.value() else queryset


@admin.register(TurnFeedback)
class TurnFeedbackAdmin(WorkspaceScopedAdmin[TurnFeedback]):
    """A feedback row reads on its own: the visitor's question, what the bot answered and the reasons,
    with links to the turn's audit and its conversation."""

    workspace_lookup = "turn__conversation__bot__workspace"
    list_display = [
        "created_at",
        "rating_words",
        "question_short",
        "answer_short",
        "reason_words",
        "comment",
        "turn_link",
    ]
    list_filter = [FeedbackRatingFilter]
    list_select_related = ["turn__conversation__bot"]
    search_fields = ["turn__user_text", "turn__reply_text", "comment"]
    readonly_fields = [
        "rating_words",
        "reason_words",
        "comment",
        "question",
        "answer",
        "turn_link",
        "conversation_link",
        "created_at",
        "updated_at",
    ]
    fields = list(readonly_fields)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.display(description="rating", ordering="rating")
    def rating_words(self, feedback: TurnFeedback) -> str:
        return FEEDBACK_RATING_WORDS.get(feedback.rating, feedback.rating)

    @admin.display(description="reasons")
    def reason_words(self, feedback: TurnFeedback) -> str:
        labels = dict(FeedbackReason.choices)
        return ", ".join(str(labels.get(reason, reason)) for reason in feedback.reasons) or "–"

    @admin.display(description="question")
    def question(self, feedback: TurnFeedback) -> str:
        return feedback.turn.user_text

    @admin.display(description="answer")
    def answer(self, feedback: TurnFeedback) -> str:
        return turn_shown_text(turn=feedback.turn)

    @admin.display(description="question", ordering="turn__user_text")
    def question_short(self, feedback: TurnFeedback) -> str:
        return Truncator(feedback.turn.user_text).chars(FEEDBACK_LIST_CHARS)

    @admin.display(description="answer")
    def answer_short(self, feedback: TurnFeedback) -> str:
        return Truncator(turn_shown_text(turn=feedback.turn)).chars(FEEDBACK_LIST_CHARS)

    @admin.display(description="turn")
    def turn_link(self, feedback: TurnFeedback) -> str:
        url = reverse("admin:conversations_turn_change", args=[feedback.turn_id])
        return format_html('<a class="feedback-turn" href="{}">audit of the turn</a>', url)

    @admin.display(description="conversation")
    def conversation_link(self, feedback: TurnFeedback) -> str:
        conversation = feedback.turn.conversation
        url = reverse("admin:conversations_conversation_change", args=[conversation.pk])
        return format_html('<a class="feedback-conversation" href="{}">{}</a>', url, conversation)


@admin.register(HandoffPolicy)
class HandoffPolicyAdmin(WorkspaceScopedAdmin[HandoffPolicy]):
    workspace_lookup = "bot__workspace"
    list_display = ["bot", "timeout_seconds"]
