"""Extra pages of the bot admin: prompt preview, template versions, and prompt-context export/import.

Each view finds the bot among those of the workspaces where the user's role grants the page's
grant (core.permissions; a stranger gets a 404), checks the permission, then calls one service or
selector.
"""

from __future__ import annotations

import json
from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views import View

from bots.models import Bot, PromptTemplateVersion
from core.admin_scoping import Grant, workspace_scope
from prompt_context.selectors import prompt_context_export
from prompt_context.services import PromptContextImportError, prompt_context_import
from prompts.admin.forms import ContextImportForm, PreviewForm, TemplateVersionForm
from prompts.engine import condense_prompt_build, prompt_build
from prompts.engine.environment import ANSWER_TEMPLATE, CONDENSE_TEMPLATE, template_default_source
from prompts.engine.samples import SAMPLE_CHUNKS, SAMPLE_HISTORY, SAMPLE_QUESTION
from prompts.selectors import bot_settings_get, template_versions_diff, template_versions_list
from prompts.services.templates import (
    TemplateRejected,
    template_default_restore,
    template_version_activate,
    template_version_save,
)

CHUNK_KEYS = ("id", "title", "source", "page", "text")
DEFAULT_FILES = {
    PromptTemplateVersion.Kind.ANSWER: ANSWER_TEMPLATE,
    PromptTemplateVersion.Kind.CONDENSE: CONDENSE_TEMPLATE,
}


class BotAdminView(View):
    model_admin: Any = None
    template_name = ""
    # What the page needs in the bot's workspace, to read it and to post to it: the bot's own
    # permissions unless a page says otherwise (the analytics: insights' grants).
    read_grant: Grant = ("bots", "bot", "view")
    write_grant: Grant = ("bots", "bot", "change")

    def bot_get(self, request: HttpRequest, bot_id: Any, *, write: bool = False) -> Bot:
        grant = self.write_grant if write else self.read_grant
        bots = workspace_scope(
            Bot.objects.select_related("workspace"),
            user=request.user,
            lookup="workspace",
            grant=grant,
        )
        permission = f"{grant[0]}.{grant[2]}_{grant[1]}"
        if not request.user.has_perm(permission):
            raise PermissionDenied(permission)  # named in the one-line log (core.request_log)
        return get_object_or_404(bots, pk=bot_id)

    def render(
        self, request: HttpRequest, bot: Bot, title: str, **context: Any
    ) -> TemplateResponse:
        admin_context = self.model_admin.admin_site.each_context(request)
        page = {
            **admin_context,
            "opts": Bot._meta,
            "original": bot,
            "bot": bot,
            "title": title,
            **context,
        }
        return TemplateResponse(request, self.template_name, page)


class PreviewView(BotAdminView):
    template_name = "admin/bots/bot/preview.html"

    def get(self, request: HttpRequest, bot_id: Any) -> HttpResponse:
        bot = self.bot_get(request, bot_id)
        form = PreviewForm(
            initial={
                "question": SAMPLE_QUESTION,
                "history": json.dumps(
                    [turn.__dict__ for turn in SAMPLE_HISTORY], indent=2, ensure_ascii=False
                ),
                "chunks": json.dumps(
                    [{key: getattr(chunk, key) for key in CHUNK_KEYS} for chunk in SAMPLE_CHUNKS],
                    indent=2,
                    ensure_ascii=False,
                ),
                "locale": bot.locale,
            }
        )
        data = {
            "question": SAMPLE_QUESTION,
            "history": SAMPLE_HISTORY,
            "chunks": SAMPLE_CHUNKS,
            "locale": bot.locale,
        }
        return self._page(request, bot, form, data)

    def post(self, request: HttpRequest, bot_id: Any) -> HttpResponse:
        bot = self.bot_get(request, bot_id)
        form = PreviewForm(request.POST)
        return self._page(request, bot, form, form.cleaned_data if form.is_valid() else None)

    def _page(
        self, request: HttpRequest, bot: Bot, form: PreviewForm, data: dict[str, Any] | None
    ) -> HttpResponse:
        answer = condense = None
        if data is not None:
            settings = bot_settings_get(bot_id=bot.pk)
            answer = prompt_build(bot=settings, **data)
            condense = condense_prompt_build(
                bot=settings,
                question=data["question"],
                history=data["history"],
                locale=data["locale"],
            )
        return self.render(
            request, bot, f"Prompt preview: {bot.name}", form=form, answer=answer, condense=condense
        )


class TemplatesView(BotAdminView):
    template_name = "admin/bots/bot/templates.html"

    def get(self, request: HttpRequest, bot_id: Any, kind: str) -> HttpResponse:
        bot = self.bot_get(request, bot_id)
        return self._page(request, bot, self._kind(kind), form=None)

    def post(self, request: HttpRequest, bot_id: Any, kind: str) -> HttpResponse:
        bot = self.bot_get(request, bot_id, write=True)
        kind = self._kind(kind)
        action = request.POST.get("action")
        if action == "save":
            form = TemplateVersionForm(request.POST)
            if not form.is_valid():
                return self._page(request, bot, kind, form=form)
            version = template_version_save(
                bot_id=bot.pk, kind=kind, author_id=request.user.pk, **form.cleaned_data
            )
            messages.success(request, f"Saved version {version.number}; it is now active.")
        elif action == "activate":
            number = int(request.POST.get("number", "0"))
            try:
                template_version_activate(bot_id=bot.pk, kind=kind, number=number)
                messages.success(request, f"Version {number} is active again.")
            except PromptTemplateVersion.DoesNotExist:
                raise Http404("no such version") from None
            except TemplateRejected as exc:
                messages.error(request, f"Version {number} cannot be activated: {exc}")
        elif action == "default":
            template_default_restore(bot_id=bot.pk, kind=kind)
            messages.success(request, "The bot uses the default template again.")
        return HttpResponseRedirect(request.path)

    def _kind(self, kind: str) -> str:
        if kind not in PromptTemplateVersion.Kind.values:
            raise Http404("unknown template kind")
        return kind

    def _page(
        self, request: HttpRequest, bot: Bot, kind: str, form: TemplateVersionForm | None
    ) -> HttpResponse:
        versions = template_versions_list(bot_id=bot.pk, kind=kind)
        active = next((version for version in versions if version.is_active), None)
        if form is None:
            source = (
                active.source
                if active
                else template_default_source(DEFAULT_FILES[PromptTemplateVersion.Kind(kind)])
            )
            form = TemplateVersionForm(initial={"source": source})
        diff = None
        old, new = request.GET.get("old"), request.GET.get("new")
        if old and new and old.isdigit() and new.isdigit():
            diff = template_versions_diff(bot_id=bot.pk, kind=kind, old=int(old), new=int(new))
        return self.render(
            request,
            bot,
            f"{PromptTemplateVersion.Kind(kind).label}: {bot.name}",
            kind=kind,
            kinds=PromptTemplateVersion.Kind.choices,
            versions=versions,
            active=active,
            form=form,
            diff=diff,
            old=old,
            new=new,
        )


class ContextExportView(BotAdminView):
    def get(self, request: HttpRequest, bot_id: Any) -> HttpResponse:
        return context_export_response(self.bot_get(request, bot_id))


class ContextImportView(BotAdminView):
    template_name = "admin/bots/bot/context_import.html"

    def get(self, request: HttpRequest, bot_id: Any) -> HttpResponse:
        bot = self.bot_get(request, bot_id, write=True)
        return self.render(
            request,
            bot,
            f"Import a prompt context: {bot.name}",
            form=ContextImportForm(),
            problems=[],
        )

    def post(self, request: HttpRequest, bot_id: Any) -> HttpResponse:
        bot = self.bot_get(request, bot_id, write=True)
        form = ContextImportForm(request.POST, request.FILES)
        problems: list[str] = []
        if form.is_valid():
            try:
                counts = prompt_context_import(bot_id=bot.pk, raw=form.cleaned_data["file"].read())
            except PromptContextImportError as exc:
                problems = exc.problems
            else:
                messages.success(
                    request,
                    f"Imported {counts['topics']} topics and {counts['lexicon_groups']} lexicon groups.",
                )
                return HttpResponseRedirect(reverse("admin:bots_bot_change", args=[bot.pk]))
        title = f"Import a prompt context: {bot.name}"
        return self.render(request, bot, title, form=form, problems=problems)


def context_export_response(bot: Bot) -> HttpResponse:
    body = json.dumps(prompt_context_export(bot_id=bot.pk), indent=2, ensure_ascii=False)
    response = HttpResponse(body, content_type="application/json; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="prompt-context-{bot.pk}.json"'
    return response
