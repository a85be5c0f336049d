"""Writes to evaluation sets: an all-or-nothing import, and cases made from real turns."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Sequence

from django.db import transaction
from django.db.models import Max

from conversations.models import Turn, TurnStatus
from insights.models import EvaluationCase, EvaluationSet
from insights.models.evaluation import CASES_PER_SET_MAX
from insights.services.cases_io import CaseData, CasesImportError
from rag.models import Document

# A history longer than this adds nothing to a case (the pipeline reads the last few turns).
HISTORY_FROM_TURN = 6


def evaluation_cases_add(
    *,
    set_id: uuid.UUID | str,
    cases: Sequence[CaseData],
    replace: bool = False,
    source_turn_ids: Sequence[uuid.UUID] | None = None,
) -> int:
    """Append (or replace with) validated cases, in one transaction; raises past the set's size limit."""
    with transaction.atomic():
        evaluation_set = EvaluationSet.objects.select_for_update().get(pk=set_id)
        if replace:
            evaluation_set.cases.all().delete()
        count = evaluation_set.cases.count()
        if count + len(cases) > CASES_PER_SET_MAX:
            raise CasesImportError(
                [
                    f"A set holds at most {CASES_PER_SET_MAX} cases; this one would hold {count + len(cases)}."
                ]
            )
        start = (evaluation_set.cases.aggregate(last=Max("position"))["last"] or 0) + 1
        EvaluationCase.objects.bulk_create(
            EvaluationCase(
                evaluation_set=evaluation_set,
                position=start + n,
                source_turn_id=source_turn_ids[n] if source_turn_ids else None,
                **dataclasses.asdict(case),
            )
            for n, case in enumerate(cases)
        )
        evaluation_set.save(update_fields=["updated_at"])
    return len(cases)


def evaluation_cases_from_turns(*, set_id: uuid.UUID | str, turn_ids: Sequence[uuid.UUID]) -> int:
    """One case per turn, its current answer as the expectation: the status, the documents the answer
    cited (or "no answer" for a not-found turn), and the history that preceded it."""
    evaluation_set = EvaluationSet.objects.get(pk=set_id)
    turns = list(
        Turn.objects.filter(pk__in=turn_ids, conversation__bot_id=evaluation_set.bot_id)
        .exclude(status="")
        .order_by("created_at")
    )
    titles = _document_titles(turns)
    cases = []
    for turn in turns:
        used = {u["chunk"] for u in turn.context_usage if u.get("used_in_response")}
        cited = [c["document_id"] for c in turn.retrieved_chunks if c["chunk_id"] in used]
        sources = list(dict.fromkeys(titles[d] for d in cited if d in titles))
        found = turn.status == TurnStatus.FOUND_IN_CONTEXT
        cases.append(
            CaseData(
                question=turn.user_text,
                history=_history_before(turn),
                expected_status=turn.status,
                expected_sources=sources if found else [],
                expect_no_answer=turn.status == TurnStatus.NOT_FOUND_IN_CONTEXT,
            )
        )
    return evaluation_cases_add(
        set_id=set_id, cases=cases, source_turn_ids=[turn.pk for turn in turns]
    )


def _document_titles(turns: Sequence[Turn]) -> dict[str, str]:
    ids = {chunk["document_id"] for turn in turns for chunk in turn.retrieved_chunks}
    return {
        str(pk): title
        for pk, title in Document.objects.filter(pk__in=ids).values_list("pk", "title")
    }


def _history_before(turn: Turn) -> list[dict[str, str]]:
    earlier = Turn.objects.filter(
        conversation_id=turn.conversation_id, created_at__lt=turn.created_at
    ).order_by("-created_at")[:HISTORY_FROM_TURN]
    history: list[dict[str, str]] = []
    for previous in reversed(list(earlier)):
        history.append({"role": "user", "content": previous.user_text})
        if previous.reply_text:
            history.append({"role": "assistant", "content": previous.reply_text})
    return history
