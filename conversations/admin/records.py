"""The admin of the recorded attacks (security events) and of the rag_search executions
(workspace-scoped; filterable by model, status and date)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.utils.html import format_html, format_html_join

from conversations.admin.readonly import ReadOnlyAdmin, shortened
from conversations.models import RagSearchExecution, SecurityEvent
from core.admin_scoping import WorkspaceListFilter, WorkspaceScopedAdmin


@admin.register(SecurityEvent)
class SecurityEventAdmin(ReadOnlyAdmin[SecurityEvent], WorkspaceScopedAdmin[SecurityEvent]):
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
        return shortened(event.excerpt)


@admin.register(RagSearchExecution)
class RagSearchExecutionAdmin(
    ReadOnlyAdmin[RagSearchExecution], WorkspaceScopedAdmin[RagSearchExecution]
):
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
        total: int | None = execution.latencies.get("total")
        return total


_CONTEXTS_TABLE = (
    '<table id="execution-contexts"><thead><tr><th>#</th><th>Chunk</th><th>Vector (rank)</th><th>Text (rank)</th>'
    "<th>Fused</th><th>Rerank</th><th>Used</th></tr></thead><tbody>{}</tbody></table>"
)


def _score(context: dict[str, Any], kind: str) -> str:
    score, rank = context.get(f"{kind}_score"), context.get(f"{kind}_rank")
    if score is None:
        return "–"
    return f"{score:.4f}" + (f" ({rank})" if rank is not None else "")
