"""Feedback on an answer: thumbs up or down with optional reasons, one per turn (the latest wins); its
comment stored redacted when the workspace asks for it."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from conversations.models import Turn
from core.redaction import pii_redact
from handoff.models import FeedbackReason, TurnFeedback


def turn_feedback_record(
    *, turn_id: uuid.UUID, rating: str, reasons: Sequence[str] = (), comment: str = ""
) -> TurnFeedback:
    unknown = set(reasons) - set(FeedbackReason.values)
    if rating not in TurnFeedback.Rating.values or unknown:
        raise ValueError(f"invalid feedback: rating={rating!r} unknown reasons={sorted(unknown)}")
    if comment and _workspace_redacts(turn_id=turn_id):
        comment = pii_redact(comment)
    feedback, _ = TurnFeedback.objects.update_or_create(
        turn_id=turn_id,
        defaults={"rating": rating, "reasons": sorted(set(reasons)), "comment": comment[:1000]},
    )
    return feedback


def _workspace_redacts(*, turn_id: uuid.UUID) -> bool:
    """Whether the turn's workspace stores text redacted (read only when there is a comment)."""
    return Turn.objects.filter(
        pk=turn_id, conversation__bot__workspace__redact_personal_data=True
    ).exists()
