"""The turns' admin: filterable by status, topic, confidence band and repairs; the repairs in words on
the turn's page; the Try-it console served under it."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import Q, QuerySet
from django.http import HttpRequest
from django.urls import URLPattern, path
from django.utils.html import format_html, format_html_join
from django.utils.text import capfirst

from conversations.admin.readonly import ReadOnlyAdmin, shortened
from conversations.models import Turn
from conversations.repairs_explained import CONTRACT_MET, chunk_label, repairs_explain
from core.admin_scoping import WorkspaceScopedAdmin
from prompts.admin.bot import bot_admin_link_register

CONFIDENCE_BANDS: dict[str, tuple[str, Q]] = {
    "low": ("Low (< 0.5)", Q(confidence__lt=0.5)),
    "medium": ("Medium (0.5 – 0.8)", Q(confidence__gte=0.5, confidence__lt=0.8)),
    "high": ("High (≥ 0.8)", Q(confidence__gte=0.8)),
    "none": ("None", Q(confidence__isnull=True)),
}


class ConfidenceBandFilter(admin.SimpleListFilter):
    title = "confidence"
    parameter_name = "confidence_band"

    def lookups(
        self, request: HttpRequest, model_admin: admin.ModelAdmin[Any]
    ) -> list[tuple[str, str]]:
        return [(key, label) for key, (label, _) in CONFIDENCE_BANDS.items()]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Turn]) -> QuerySet[Turn]:
        band = CONFIDENCE_BANDS.get(self.value() or "")
        return queryset.filter(band[1]) if band else queryset


class HasRepairsFilter(admin.SimpleListFilter):
    title = "has repairs"
    parameter_name = "has_repairs"

    def lookups(
        self, request: HttpRequest, model_admin: admin.ModelAdmin[Any]
    ) -> list[tuple[str, str]]:
        return [("yes", "Yes"), ("no", "No")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Turn]) -> QuerySet[Turn]:
        if self.value() == "yes":
            return queryset.exclude(repairs=[])
        if self.value() == "no":
            return queryset.filter(repairs=[])
        return queryset


@admin.register(Turn)
class TurnAdmin(ReadOnlyAdmin[Turn], WorkspaceScopedAdmin[Turn]):
    workspace_lookup = "conversation__bot__workspace"
    list_display = [
        "created_at",
        "bot_name",
        "short_text",
        "status",
        "topic",
        "confidence",
        "repair_count",
        "model",
    ]
    list_filter = [
        "status",
        "topic",
        ConfidenceBandFilter,
        HasRepairsFilter,
        "route_action",
        "model",
    ]
    list_select_related = ["conversation__bot"]
    search_fields = ["user_text", "answer", "client_message_id", "=execution_id"]
    date_hierarchy = "created_at"
    fieldsets = [
        (
            "Message",
            {
                "fields": [
                    "conversation",
                    "client_message_id",
                    "execution_id",
                    "created_at",
                    "completed_at",
                    "user_text",
                    "condensed_question",
                ]
            },
        ),
        (
            "Answer",
            {
                "fields": [
                    "status",
                    "answer",
                    "display_answer",
                    "topic",
                    "suggested_topics",
                    "understanding",
                    "confidence",
                    "redirection_intent",
                    "route_action",
                    "route_reason",
                    "reply_text",
                ]
            },
        ),
        (
            "Audit",
            {
                "fields": [
                    "retrieved_chunks",
                    "context_usage",
                    "repairs_in_words",
                    "repairs",
                    "prompt_version",
                    "prompt_hash",
                    "raw_output",
                    "attempts",
                    "parsed_output",
                    "llm_error_code",
                ]
            },
        ),
        ("Model", {"fields": ["model", "prompt_tokens", "completion_tokens", "latencies"]}),
    ]

    def get_urls(self) -> list[URLPattern]:
        from conversations.tryit import try_it_view

        console = self.role_view(try_it_view(self), grant=("bots", "bot", "view"))
        return [
            path("try/<uuid:bot_id>/", console, name="conversations_turn_try"),
            *super().get_urls(),
        ]

    @admin.display(description="bot", ordering="conversation__bot__name")
    def bot_name(self, turn: Turn) -> str:
        return turn.conversation.bot.name

    @admin.display(description="message")
    def short_text(self, turn: Turn) -> str:
        return shortened(turn.user_text)

    @admin.display(description="repairs")
    def repair_count(self, turn: Turn) -> int:
        return len(turn.repairs)

    @admin.display(description="repairs in words")
    def repairs_in_words(self, turn: Turn) -> str:
        labels = {
            str(chunk.get("chunk_id")): chunk_label(
                rank=chunk.get("rank"), title=chunk.get("title") or ""
            )
            for chunk in turn.retrieved_chunks
        }
        explained = repairs_explain(repairs=turn.repairs, chunk_labels=labels)
        if not explained:
            return capfirst(CONTRACT_MET) + "."
        return format_html(
            '<ul class="turn-repairs">{}</ul>',
            format_html_join(
                "",
                "<li><strong>{}</strong> {} <code>{}</code></li>",
                ((r.rule or r.code, r.change, r.code) for r in explained),
            ),
        )


# The console is served here (above prompts), so the bot admin learns of it by registration.
bot_admin_link_register(
    label="Try it", url_name="admin:conversations_turn_try", element_id="bot-try-it"
)
