"""Admin for the knowledge-gap loop: FAQ candidates reviewed (edited, then approved into a document
of the bot, or rejected), curated answers (embedded on save, attached to a gap cluster) and the bot's
curated-answer threshold."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.forms import ModelForm
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse

from conversations.curated_embeddings import curated_answer_embed
from conversations.models import CuratedAnswer, CuratedAnswerPolicy
from core.admin_scoping import WorkspaceScopedAdmin, workspace_scope
from insights.models import FaqCandidate, GapCluster
from insights.services.knowledge import (
    ReviewRefused,
    curated_answer_attach,
    faq_candidate_approve,
    faq_candidate_reject,
)


@admin.register(FaqCandidate)
class FaqCandidateAdmin(WorkspaceScopedAdmin[FaqCandidate]):
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
        self, request: HttpRequest, obj: FaqCandidate, form: ModelForm[FaqCandidate], change: bool
    ) -> None:
        # Approval stores the edited text itself (with the document, in one transaction).
        if "_approve" not in request.POST:
            super().save_model(request, obj, form, change)


class CuratedAnswerForm(ModelForm[CuratedAnswer]):
    cluster = forms.ModelChoiceField(
        queryset=GapCluster.objects.none(),
        required=False,
        help_text="The gap cluster this answers: it counts as covered from now on.",
    )

    class Meta:
        model = CuratedAnswer
        fields = ["bot", "question", "answer", "is_active"]


@admin.register(CuratedAnswer)
class CuratedAnswerAdmin(WorkspaceScopedAdmin[CuratedAnswer]):
    """Curated answers (a conversations model: the turn's path reads them), written here with the
    rest of the knowledge-gap loop; `?cluster=<id>` preselects the gap cluster to attach."""

    workspace_lookup = "bot__workspace"
    form = CuratedAnswerForm
    list_display = ["question", "bot", "is_active", "updated_at"]
    list_filter = ["is_active", ("bot", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["question", "answer"]
    fields = ["bot", "cluster", "question", "answer", "is_active"]

    def get_form(
        self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any
    ) -> Any:
        form = super().get_form(request, obj, change, **kwargs)
        # A cluster reaches its workspace through its clustering.
        cluster_field = form.base_fields["cluster"]
        assert isinstance(cluster_field, forms.ModelChoiceField)
        cluster_field.queryset = workspace_scope(
            GapCluster.objects.select_related("clustering__bot"),
            user=request.user,
            lookup="clustering__bot__workspace",
        )
        if obj is not None:  # the form class is made per request: its initial is this answer's
            cluster_field.initial = (
                obj.clusters.order_by("-pk").values_list("pk", flat=True).first()
            )
        return form

    def get_changeform_initial_data(self, request: HttpRequest) -> dict[str, Any]:
        initial = super().get_changeform_initial_data(request)
        chosen = request.GET.get("cluster", "")
        cluster = (
            GapCluster.objects.select_related("clustering").filter(pk=int(chosen)).first()
            if chosen.isdigit()
            else None
        )
        if cluster is not None:  # the form's choices decide whether the user may pick it
            initial.setdefault("bot", str(cluster.clustering.bot_id))
            initial.setdefault("question", cluster.label)
        return initial

    def save_model(
        self, request: HttpRequest, obj: CuratedAnswer, form: ModelForm[CuratedAnswer], change: bool
    ) -> None:
        super().save_model(request, obj, form, change)
        curated_answer_embed(curated_id=obj.pk)
        cluster = form.cleaned_data.get("cluster")
        if cluster is not None and not curated_answer_attach(
            curated_id=obj.pk, cluster_id=cluster.pk
        ):
            messages.warning(request, "That gap cluster belongs to another bot: not attached.")


@admin.register(CuratedAnswerPolicy)
class CuratedAnswerPolicyAdmin(WorkspaceScopedAdmin[CuratedAnswerPolicy]):
    workspace_lookup = "bot__workspace"
    list_display = ["bot", "similarity_threshold"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[CuratedAnswerPolicy]:
        return super().get_queryset(request).select_related("bot")
