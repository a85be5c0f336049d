"""The bot admin: one change page grouped by spec section, with the Rag prompt context as inlines.

It lives in the prompts app because it composes bots, prompt_context and the prompt engine,
and apps may only import downwards. Extra pages (preview, templates, import) are in views.py;
apps above this one add their per-bot pages (the Try-it console) with `bot_admin_link_register`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib import admin, messages
from django.db.models import Count, Q, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html_join
from django.utils.safestring import mark_safe

from bots.models import Bot, BotLocaleText
from core.admin_scoping import WorkspaceListFilter, WorkspaceScopedAdmin
from prompt_context.limits import LEXICON_GROUPS_MAX, TOPICS_MAX
from prompt_context.models import LexiconGroup, Topic
from prompt_context.services import prompt_context_defaults_ensure
from prompts.admin import views
from prompts.admin.forms import BotForm, LexiconGroupForm, LocaleTextForm, TopicFormSet
from prompts.selectors import bot_documents_count


@dataclass(frozen=True)
class BotAdminLink:
    """A page about one bot that an app above this one serves: `url_name` is reversed with the bot's id."""

    label: str
    url_name: str
    element_id: str


_bot_links: dict[str, BotAdminLink] = {}


def bot_admin_link_register(*, label: str, url_name: str, element_id: str) -> None:
    """Show a link to `url_name` on each bot's change page (a button) and row of the bot list."""
    _bot_links[url_name] = BotAdminLink(label=label, url_name=url_name, element_id=element_id)


def bot_admin_links(*, bot_id: Any) -> list[tuple[str, str, str]]:
    """(url, label, element id) of every registered page, for one bot."""
    return [
        (reverse(link.url_name, args=[bot_id]), link.label, link.element_id)
        for link in _bot_links.values()
    ]


class TopicInline(admin.TabularInline[Topic, Bot]):
    model = Topic
    formset = TopicFormSet
    fields = ["name", "kind"]
    extra = 1
    max_num = TOPICS_MAX
    validate_max = True
    verbose_name = "topic"
    verbose_name_plural = "Scope — covered and excluded topics"


class LexiconGroupInline(admin.TabularInline[LexiconGroup, Bot]):
    model = LexiconGroup
    form = LexiconGroupForm
    extra = 1
    max_num = LEXICON_GROUPS_MAX
    validate_max = True
    verbose_name_plural = "Business lexicon — groups of synonyms"


class BotLocaleTextInline(admin.StackedInline[BotLocaleText, Bot]):
    # Stacked: six long texts side by side in a table ran far past the page's right edge.
    model = BotLocaleText
    form = LocaleTextForm
    extra = 0
    max_num = 20
    verbose_name_plural = "User-facing texts in other locales"

    def get_queryset(self, request: HttpRequest) -> QuerySet[BotLocaleText]:
        # Each stacked row's heading names its bot (BotLocaleText.__str__): one join, not a query per row.
        return super().get_queryset(request).select_related("bot")


@admin.register(Bot)
class BotAdmin(WorkspaceScopedAdmin[Bot]):
    form = BotForm
    inlines = [TopicInline, LexiconGroupInline, BotLocaleTextInline]
    list_display = [
        "name",
        "workspace",
        "locale",
        "rag_strictness",
        "llm_provider",
        "topic_count",
        "updated_at",
        "page_links",
    ]
    list_filter = [WorkspaceListFilter, "rag_strictness", "llm_provider"]
    list_select_related = ["workspace"]
    search_fields = ["name", "role", "domain", "workspace__name"]
    actions = ["context_export_action", "context_import_action"]
    save_on_top = True
    show_full_result_count = False  # one COUNT query less on every list page
    fieldsets = [
        (None, {"fields": ["workspace"]}),
        (
            "Identity",
            {"fields": ["name", "role", "domain", "target_audience", "locale", "answer_locales"]},
        ),
        (
            "Scope",
            {
                "fields": [],
                "description": "Covered and excluded topics and the business lexicon (the Rag prompt context) "
                "are edited at the bottom of this page.",
            },
        ),
        ("Response expectations", {"fields": ["response_expectations"]}),
        (
            "Style and tone",
            {"fields": ["formality", "formatting_rules", "vocabulary_constraints"]},
        ),
        (
            "Domain constraints",
            {"fields": ["regulatory_constraints", "forbidden_statements", "mandatory_mentions"]},
        ),
        (
            "Specific instructions and human escalation",
            {
                "fields": [
                    "specific_instructions",
                    "escalation_allowed",
                    "escalation_triggers",
                    "escalation_unavailable_text",
                    "escalation_confidence_threshold",
                ]
            },
        ),
        (
            "RAG strictness and explainability",
            {"fields": ["rag_strictness", "relaxation_statement", "explainability"]},
        ),
        (
            "User-facing texts (default locale)",
            {
                "fields": [
                    "refusal_text",
                    "no_answer_text",
                    "injection_refusal_text",
                    "escalation_text",
                ]
            },
        ),
        (
            "LLM",
            {
                "classes": ["collapse"],
                "fields": [
                    "llm_provider",
                    "llm_model",
                    "llm_temperature",
                    "llm_max_output_tokens",
                    "llm_timeout_seconds",
                ],
            },
        ),
        (
            "Retrieval",
            {
                "classes": ["collapse"],
                "fields": ["retrieval_top_k", "retrieval_score_threshold", "retrieval_hybrid"],
            },
        ),
        (
            "Security",
            {
                "fields": ["injection_threshold", "injection_watch"],
                "description": "The injection detector's bands: at or above the threshold a "
                "message is refused; from the watch value up to it, it is answered and recorded as "
                "a security event; below, nothing happens. The defaults keep refusals of benign "
                "public prompts rare (docs/decisions/guard-bands.md).",
            },
        ),
        ("Offline answers", {"fields": ["answer_max_sentences"]}),
    ]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Bot]:
        queryset = super().get_queryset(request)
        if request.resolver_match and request.resolver_match.url_name == "bots_bot_changelist":
            queryset = queryset.annotate(
                _topics=Count("topics", filter=Q(topics__kind=Topic.Kind.COVERED))
            )
        return queryset

    @admin.display(description="covered topics")
    def topic_count(self, obj: Bot) -> int:
        return getattr(obj, "_topics", 0)

    @admin.display(description="pages")
    def page_links(self, obj: Bot) -> str:
        """Try it, Analytics and the prompt's preview in one column, one link a line (issue 51: the
        list is to fit a 1,366 px window beside its filters)."""
        links = [(url, label) for url, label, _ in bot_admin_links(bot_id=obj.pk)]
        links.append((reverse("admin:bots_bot_preview", args=[obj.pk]), "Preview prompt"))
        return format_html_join(mark_safe("<br>"), '<a href="{}">{}</a>', links)

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        extra_context = {
            **(extra_context or {}),
            "bot_links": bot_admin_links(bot_id=object_id),
            "bot_documents": bot_documents_count(bot_id=object_id),
        }
        return super().change_view(request, object_id, form_url, extra_context)

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        super().save_related(request, form, formsets, change)
        if not change:
            prompt_context_defaults_ensure(bot_id=form.instance.pk)

    def get_urls(self) -> list[URLPattern]:
        read, write = self.role_grant("view"), self.role_grant("change")
        return [
            path(
                "<uuid:bot_id>/preview/",
                self.role_view(views.PreviewView.as_view(model_admin=self), grant=read),
                name="bots_bot_preview",
            ),
            path(
                "<uuid:bot_id>/templates/<str:kind>/",
                self.role_view(views.TemplatesView.as_view(model_admin=self), grant=read),
                name="bots_bot_templates",
            ),
            path(
                "<uuid:bot_id>/context/export/",
                self.role_view(views.ContextExportView.as_view(model_admin=self), grant=read),
                name="bots_bot_context_export",
            ),
            path(
                "<uuid:bot_id>/context/import/",
                self.role_view(views.ContextImportView.as_view(model_admin=self), grant=write),
                name="bots_bot_context_import",
            ),
            *super().get_urls(),
        ]

    @admin.action(description="Export the prompt context (JSON)", permissions=["view"])
    def context_export_action(
        self, request: HttpRequest, queryset: QuerySet[Bot]
    ) -> HttpResponse | None:
        bot = self._single(request, queryset)
        return views.context_export_response(bot) if bot else None

    @admin.action(description="Import a prompt context (JSON)", permissions=["change"])
    def context_import_action(
        self, request: HttpRequest, queryset: QuerySet[Bot]
    ) -> HttpResponse | None:
        bot = self._single(request, queryset)
        if bot is None:
            return None
        return HttpResponseRedirect(reverse("admin:bots_bot_context_import", args=[bot.pk]))

    def _single(self, request: HttpRequest, queryset: QuerySet[Bot]) -> Bot | None:
        bots = list(queryset[:2])
        if len(bots) != 1:
            self.message_user(request, "Select exactly one bot for this action.", messages.WARNING)
            return None
        return bots[0]
