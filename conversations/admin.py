"""Read-only admin for the answer audit: turns (filterable by status, topic, confidence band and
repairs; the repairs in words on the turn's page), security events and rag_search executions
(workspace-scoped; filterable by model, status and date). Nothing here can be added, changed or
deleted: it is a record."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import Q, QuerySet
from django.http import HttpRequest
from django.urls import URLPattern, path
from django.utils.html import format_html, format_html_join
from django.utils.text import capfirst

from conversations.models import RagSearchExecution, SecurityEvent, Turn
from conversations.repairs_explained import CONTRACT_MET, chunk_label, repairs_explain
from core.admin_scoping import WorkspaceListFilter, WorkspaceScopedAdmin
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

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        return [(key, label) for key, (label, _) in CONFIDENCE_BANDS.items()]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Turn]) -> QuerySet[Turn]:
        band = CONFIDENCE_BANDS.get(self.value() or "")
        return queryset.filter(band[1]) if band else queryset


class HasRepairsFilter(admin.SimpleListFilter):
    title = "has repairs"
    parameter_name = "has_repairs"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        return [("yes", "Yes"), ("no", "No")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Turn]) -> QuerySet[Turn]:
        if self.value() == "yes":
            return queryset.exclude(repairs=[])
        if self.value() == "no":
            return queryset.filter(repairs=[])
        return queryset


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(Turn)
class TurnAdmin(ReadOnlyAdmin, WorkspaceScopedAdmin):
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
        return turn.user_text if len(turn.user_text) <= 80 else turn.user_text[:79] + "…"

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


@admin.register(SecurityEvent)
class SecurityEventAdmin(ReadOnlyAdmin, WorkspaceScopedAdmin):
    workspace_lookup = "conversation__bot__workspace"
    list_display = ["created_at", "kind", "bot_name", "label", "score", "short_excerpt", "model"]
    list_filter = ["kind", "label", "model"]
    list_select_related = ["conversation__bot"]
    search_fields = ["excerpt", "explanation"]
    fields = [
        "kind",
        "conversation",
        "turn",
        "label",
        "score",
        "excerpt",
        "explanation",
        "model",
        "created_at",
    ]

    @admin.display(description="bot", ordering="conversation__bot__name")
    def bot_name(self, event: SecurityEvent) -> str:
        return event.conversation.bot.name

    @admin.display(description="excerpt")
    def short_excerpt(self, event: SecurityEvent) -> str:
        return event.excerpt if len(event.excerpt) <= 80 else event.excerpt[:79] + "…"


@admin.register(RagSearchExecution)
class RagSearchExecutionAdmin(ReadOnlyAdmin, WorkspaceScopedAdmin):
    list_display = [
        "created_at",
        "execution_id",
        "workspace",
        "bot",
        "short_query",
        "status",
        "answer_status",
        "model",
        "sources_count",
        "total_ms",
    ]
    list_filter = [
        WorkspaceListFilter,
        "status",
        "answer_status",
        "model",
        "caller_kind",
        "created_at",
    ]
    list_select_related = ["workspace", "bot"]
    search_fields = ["query", "response", "=execution_id", "=external_user_id"]
    date_hierarchy = "created_at"
    show_full_result_count = False
    fieldsets = [
        (
            "Call",
            {
                "fields": [
                    "execution_id",
                    "workspace",
                    "bot",
                    "conversation",
                    "caller_kind",
                    "api_key_id",
                    "external_user_id",
                    "created_at",
                    "completed_at",
                    "status",
                    "error_code",
                    "error_message",
                ]
            },
        ),
        ("Question", {"fields": ["query", "document_ids", "condensed_query", "expanded_query"]}),
        ("Answer", {"fields": ["answer_status", "response", "sources_used"]}),
        (
            "Audit",
            {
                "fields": [
                    "contexts_table",
                    "contexts",
                    "repairs",
                    "prompt_version",
                    "prompt_hash",
                    "raw_output",
                    "attempts",
                    "parsed_output",
                    "llm_error_code",
                    "llm_error_message",
                ]
            },
        ),
        ("Model", {"fields": ["model", "prompt_tokens", "completion_tokens", "latencies"]}),
    ]

    @admin.display(description="query")
    def short_query(self, execution: RagSearchExecution) -> str:
        return execution.query if len(execution.query) <= 80 else execution.query[:79] + "…"

    @admin.display(description="retrieved contexts")
    def contexts_table(self, execution: RagSearchExecution) -> str:
        rows = format_html_join(
            "",
            "<tr><td>{}</td><td><code>{}</code><br>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (
                    c.get("rank"),
                    c.get("chunk_id"),
                    c.get("title", ""),
                    _score(c, "vector"),
                    _score(c, "text"),
                    _score(c, "fused"),
                    c.get("rerank_score") if c.get("rerank_score") is not None else "–",
                    "yes" if c.get("used_in_response") else "no",
                )
                for c in execution.contexts
            ),
        )
        return format_html(_CONTEXTS_TABLE, rows)

    @admin.display(description="sources")
    def sources_count(self, execution: RagSearchExecution) -> int:
        return len(execution.sources_used)

    @admin.display(description="total ms")
    def total_ms(self, execution: RagSearchExecution) -> int | None:
        return execution.latencies.get("total")


_CONTEXTS_TABLE = (
    '<table id="execution-contexts"><thead><tr><th>#</th><th>Chunk</th><th>Vector (rank)</th><th>Text (rank)</th>'
    "<th>Fused</th><th>Rerank</th><th>Used</th></tr></thead><tbody>{}</tbody></table>"
)


def _score(context: dict, kind: str) -> str:
    score, rank = context.get(f"{kind}_score"), context.get(f"{kind}_rank")
    if score is None:
        return "–"
    return f"{score:.4f}" + (f" ({rank})" if rank is not None else "")
