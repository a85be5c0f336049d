"""The admin's "Try it" console for one bot: ask a question and see every stage of the answer pipeline —
condensed question and keywords, retrieved chunks with their vector/text/fused scores, the rendered prompt,
the raw LLM output and attempts, the repairs in words, and the routed answer with its citations as [n]
markers over a numbered list of the sources (n numbered as the widget numbers them,
`citation_numbers`; each source names its rank in the chunks table). Nothing is stored.

Reached from the turn admin (`admin:conversations_turn_try`); the bot comes through the bot admin's
workspace-scoped queryset, so a stranger gets a 404.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from django import forms
from django.contrib import admin
from django.http import HttpRequest, HttpResponse

from bots.models import Bot
from conversations.adapters import llm_endpoint_for_bot
from conversations.pipeline import answer_run
from conversations.pipeline.results import citation_numbers, cited_response
from conversations.pipeline.retrieve import scope_for
from conversations.repairs_explained import CONTRACT_MET, chunk_label, repairs_explain
from conversations.types import AnswerStatus
from prompts.admin.views import BotAdminView
from prompts.engine import HistoryTurn
from prompts.selectors import bot_documents_count, bot_settings_get
from rag.retrieval import RetrievedChunk

PROVIDERS = [("bot", "The bot's LLM settings"), ("offline", "The offline provider")]


class TryItForm(forms.Form):
    question = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), max_length=4000)
    history = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 4}),
        required=False,
        help_text='Earlier messages, oldest first, one per line, each starting with "user:" or "assistant:".',
    )
    provider = forms.ChoiceField(choices=PROVIDERS, initial="bot")

    def clean_history(self) -> list[HistoryTurn]:
        turns = []
        for line in self.cleaned_data["history"].splitlines():
            role, _, content = line.partition(":")
            if not line.strip():
                continue
            if role.strip() not in ("user", "assistant") or not content.strip():
                raise forms.ValidationError(
                    f"Start each line with user: or assistant: — not {line[:40]!r}."
                )
            turns.append(HistoryTurn(role=role.strip(), content=content.strip()))
        return turns


class TryItView(BotAdminView):
    template_name = "admin/conversations/try_it.html"

    def get(self, request: HttpRequest, bot_id: Any) -> HttpResponse:
        bot = self.bot_get(request, bot_id)
        return self.render(
            request,
            bot,
            f"Try it: {bot.name}",
            form=TryItForm(),
            run=None,
            bot_documents=bot_documents_count(bot_id=bot.pk),
        )

    def post(self, request: HttpRequest, bot_id: Any) -> HttpResponse:
        bot = self.bot_get(request, bot_id)
        form = TryItForm(request.POST)
        context: dict[str, Any] = {
            "form": form,
            "run": None,
            "bot_documents": bot_documents_count(bot_id=bot.pk),
        }
        if form.is_valid():
            context.update(_stages(bot, form.cleaned_data))
        return self.render(request, bot, f"Try it: {bot.name}", **context)


def _stages(bot: Bot, data: dict[str, Any]) -> dict[str, Any]:
    settings = bot_settings_get(bot_id=bot.pk)
    endpoint = llm_endpoint_for_bot(bot=settings) if data["provider"] == "bot" else None
    scope = scope_for(
        workspace_id=str(bot.workspace_id),
        bot_id=str(bot.pk),
        conversation_id=None,
        external_user_id="",
    )
    run = answer_run(
        bot=settings,
        question=data["question"],
        history=data["history"],
        scope=scope,
        endpoint=endpoint,
    )
    outcome = run.generated.outcome
    answer = outcome.enforced.answer
    cited: str = run.route.text
    numbers: dict[str, int] = {}  # the widget's numbers of the chunks the answer cites
    if answer.status is AnswerStatus.FOUND_IN_CONTEXT and run.route.show_citations:
        numbers = citation_numbers(
            chunk_ids=[chunk.id for chunk in run.chunks],
            used={usage.chunk for usage in answer.context_usage if usage.used_in_response},
        )
        cited, _ = cited_response(
            answer=run.route.text, chunks=run.chunks, usage=answer.context_usage, numbers=numbers
        )
    steps = {phase: ms for phase, ms in run.latencies.items() if phase != "total"}
    by_id = {chunk.id: chunk for chunk in run.chunks}
    labels = {chunk.id: chunk_label(rank=chunk.rank, title=chunk.title) for chunk in run.chunks}
    return {
        "run": run,
        "answer": answer,
        "answer_parts": answer_parts(cited=cited),
        "sources": [
            TrySource(n=n, chunk=by_id[chunk_id])
            for chunk_id, n in sorted(numbers.items(), key=lambda item: item[1])
        ],
        "repairs": repairs_explain(repairs=outcome.enforced.repairs, chunk_labels=labels),
        "contract_met": CONTRACT_MET,
        "outcome": outcome,
        # Every step the pipeline times, and what they add up to beside its total: a gap between the
        # two is time no step accounts for (issue 26 found the models' cold load there:
        # docs/decisions/first-ten-minutes.md).
        "steps": steps,
        "steps_ms": sum(steps.values()),
        "total_ms": run.latencies.get("total", 0),
    }


@dataclass(frozen=True)
class TrySource:
    """A source of the answer as the widget numbers it, with its retrieved chunk (rank, title...)."""

    n: int
    chunk: RetrievedChunk


@dataclass(frozen=True)
class AnswerPart:
    """A run of the answer's text, or (`marker` set) the [n] marker of source n."""

    text: str = ""
    marker: int | None = None


# The citation tags `cited_response` writes (the rag_search spec's form): shown as [n] markers here.
_CITATION = re.compile(r'<citation id="[^"]*">\[(\d+)\]</citation>')


def answer_parts(*, cited: str) -> list[AnswerPart]:
    """The cited answer as text runs and markers, for the template to escape and link."""
    parts: list[AnswerPart] = []
    at = 0
    for match in _CITATION.finditer(cited):
        if match.start() > at:
            parts.append(AnswerPart(text=cited[at : match.start()]))
        parts.append(AnswerPart(marker=int(match.group(1))))
        at = match.end()
    if at < len(cited):
        parts.append(AnswerPart(text=cited[at:]))
    return parts


def try_it_view(model_admin: admin.ModelAdmin[Any]) -> Any:
    """The console view bound to the bot admin (for its scoped queryset and permissions)."""
    return TryItView.as_view(model_admin=admin.site._registry[Bot])
