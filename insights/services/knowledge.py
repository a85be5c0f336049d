"""The knowledge-gap loop's writes: FAQ candidates collected from resolved handoffs (the visitor's
question and the agent's replies), approved into a document of the bot (ingested like any other,
through rag.services) or rejected; curated answers attached to gap clusters (their embedding is
conversations.curated_embeddings', kept in the workspace's model).

The turn's path answers with a curated answer itself (conversations.pipeline.curated), so live
turns, the Try-it console and evaluation runs all match the same way.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from django.core.files.base import ContentFile
from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify

from conversations.models import CuratedAnswer
from core.errors import ErrorKind, ParleyError
from handoff.models import Handoff, Message
from insights.models import FaqCandidate, GapCluster
from rag.services import document_create

COLLECT_BATCH = 500


class ReviewRefused(ParleyError):
    """A review the candidate's state does not allow (already reviewed, or an empty entry)."""

    code = "faq_candidate_reviewed"
    kind = ErrorKind.CONFLICT


def faq_candidates_collect() -> int:
    """One pending candidate per resolved handoff that has a question and an agent's answer."""
    handoffs = (
        Handoff.objects.filter(outcome=Handoff.Outcome.RESOLVED)
        .exclude(pk__in=FaqCandidate.objects.filter(handoff__isnull=False).values("handoff_id"))
        .select_related("conversation", "turn")
        .order_by("closed_at")[:COLLECT_BATCH]
    )
    created = 0
    for handoff in handoffs:
        messages = list(
            Message.objects.filter(
                conversation_id=handoff.conversation_id,
                created_at__gte=handoff.opened_at,
                created_at__lte=handoff.closed_at or timezone.now(),
            ).order_by("created_at")
        )
        answer = "\n\n".join(m.text for m in messages if m.role == Message.Role.AGENT).strip()
        question = _question(handoff, messages)
        if not question or not answer:
            continue
        _, made = FaqCandidate.objects.get_or_create(
            handoff=handoff,
            defaults={
                "bot_id": handoff.conversation.bot_id,
                "question": question[:4000],
                "answer": answer[:4000],
            },
        )
        created += made
    return created


def _question(handoff: Handoff, messages: Sequence[Message]) -> str:
    """The turn that opened the handoff, else the visitor's first message to the agent."""
    if handoff.turn is not None and handoff.turn.user_text.strip():
        return handoff.turn.user_text.strip()
    visitor = [m.text for m in messages if m.role == Message.Role.VISITOR and m.text.strip()]
    return visitor[0].strip() if visitor else ""


def faq_candidate_approve(
    *, candidate_id: uuid.UUID | str, question: str, answer: str, user: object
) -> FaqCandidate:
    """Store the reviewed question and answer as a Markdown document of the bot (queued for
    ingestion after commit) and mark the candidate approved; refused when already reviewed."""
    with transaction.atomic():
        candidate = (
            FaqCandidate.objects.select_for_update().select_related("bot").get(pk=candidate_id)
        )
        if candidate.status != FaqCandidate.Status.PENDING:
            raise ReviewRefused(f"This candidate was already {candidate.status}.")
        question, answer = question.strip(), answer.strip()
        if not question or not answer:
            raise ReviewRefused("An FAQ entry needs a question and an answer.")
        text = f"# {question}\n\n{answer}\n"
        name = f"faq-{slugify(question)[:60] or 'entry'}-{str(candidate.pk)[:8]}.md"
        document = document_create(
            workspace=candidate.bot.workspace,
            file=ContentFile(text.encode(), name=name),
            title=f"FAQ: {question[:280]}",
            bots=[candidate.bot],
        )
        candidate.question, candidate.answer = question, answer
        candidate.status, candidate.document = FaqCandidate.Status.APPROVED, document
        candidate.reviewed_by_id = getattr(user, "pk", None)
        candidate.reviewed_at = timezone.now()
        candidate.save(
            update_fields=["question", "answer", "status", "document", "reviewed_by", "reviewed_at"]
        )
    return candidate


def faq_candidate_reject(*, candidate_id: uuid.UUID | str, user: object) -> bool:
    return bool(
        FaqCandidate.objects.filter(pk=candidate_id, status=FaqCandidate.Status.PENDING).update(
            status=FaqCandidate.Status.REJECTED,
            reviewed_by_id=getattr(user, "pk", None),
            reviewed_at=timezone.now(),
        )
    )


def curated_answer_attach(*, curated_id: uuid.UUID | str, cluster_id: int) -> bool:
    """Attach a curated answer to a gap cluster of the same bot: the gap has an answer from now on
    (covered, when it was not yet). False when the cluster is another bot's."""
    bot_id = CuratedAnswer.objects.values_list("bot_id", flat=True).get(pk=curated_id)
    clusters = GapCluster.objects.filter(pk=cluster_id, clustering__bot_id=bot_id)
    if not clusters.update(curated_answer_id=curated_id):
        return False
    clusters.filter(covered_at__isnull=True).update(
        covered_at=timezone.now(), covered_by=GapCluster.CoveredBy.CURATED_ANSWER
    )
    return True
