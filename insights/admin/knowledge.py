"""Admin for the knowledge-gap loop: FAQ candidates reviewed (edited, then approved into a document
of the bot, or rejected), curated answers (embedded on save) and the bot's curated-answer threshold."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.forms import ModelForm
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse

from core.admin_scoping import WorkspaceScopedAdmin, workspace_scope
from insights.models import CuratedAnswer, CuratedAnswerPolicy, FaqCandidate, GapCluster
from insights.services.knowledge import (
    ReviewRefused,
    curated_answer_embed,
    faq_candidate_approve,
    faq_candidate_reject,
)


@admin.register(FaqCandidate)
class FaqCandidateAdmin(WorkspaceScopedAdmin):
    workspace_lookup = "bot__workspace"
    list_display = ["created_at", "bot", "short_question", "status", "document"]
    list_filter = ["status", ("bot", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["question", "answer"]
    fields = ["bot", "question", "answer", "status", "document", "reviewed_by", "reviewed_at"]
    readonly_fields = ["bot", "status", "document", "reviewed_by", "reviewed_at"]
    change_form_template = "admin/insights/faqcandidate/change_form.html"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # candidates come from resolved handoffs

    @admin.display(description="question")
    def short_question(self, candidate: FaqCandidate) -> str:
        return candidate.question[:100]

    def response_change(self, request: HttpRequest, obj: FaqCandidate) -> HttpResponse:
        back = HttpResponseRedirect(reverse("admin:insights_faqcandidate_changelist"))
        try:
            if "_approve" in request.POST:
                faq_candidate_approve(
                    candidate_id=obj.pk, question=obj.question, answer=obj.answer, user=request.user
                )
                messages.success(request, "Approved: the entry is being ingested as a document.")
                return back
            if "_reject" in request.POST:
                faq_candidate_reject(candidate_id=obj.pk, user=request.user)
                messages.info(request, "Rejected.")
                return back
        except ReviewRefused as refused:
            messages.error(request, str(refused))
            return back
        return super().response_change(request, obj)

    def save_model(
        self, request: HttpRequest, obj: FaqCandidate, form: ModelForm, change: bool
    ) -> None:
        # Approval stores the edited text itself (with the document, in one transaction).
        if "_approve" not in request.POST:
            super().save_model(request, obj, form, change)


@admin.register(CuratedAnswer)
class CuratedAnswerAdmin(WorkspaceScopedAdmin):
    workspace_lookup = "bot__workspace"
    list_display = ["question", "bot", "cluster", "is_active", "updated_at"]
    list_filter = ["is_active", ("bot", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["question", "answer"]
    fields = ["bot", "cluster", "question", "answer", "is_active"]

    def formfield_for_foreignkey(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        if db_field.name == "cluster":  # a cluster reaches its workspace through its clustering
            kwargs["queryset"] = workspace_scope(
                GapCluster.objects.all(), user=request.user, lookup="clustering__bot__workspace"
            )
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def save_model(
        self, request: HttpRequest, obj: CuratedAnswer, form: ModelForm, change: bool
    ) -> None:
        super().save_model(request, obj, form, change)
        curated_answer_embed(curated_id=obj.pk)


@admin.register(CuratedAnswerPolicy)
class CuratedAnswerPolicyAdmin(WorkspaceScopedAdmin):
    workspace_lookup = "bot__workspace"
    list_display = ["bot", "similarity_threshold"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[CuratedAnswerPolicy]:
        return super().get_queryset(request).select_related("bot")
