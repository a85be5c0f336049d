"""Feedback on an answer: thumbs up or down with optional reasons, one per turn (the latest wins)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from handoff.models import FeedbackReason, TurnFeedback


def turn_feedback_record(
    *, turn_id: uuid.UUID, rating: str, reasons: Sequence[str] = (), comment: str = ""
) -> TurnFeedback:
    unknown = set(reasons) - set(FeedbackReason.values)
    if rating not in TurnFeedback.Rating.values or unknown:
        raise ValueError(f"invalid feedback: rating={rating!r} unknown reasons={sorted(unknown)}")
    feedback, _ = TurnFeedback.objects.update_or_create(
        turn_id=turn_id,
        defaults={"rating": rating, "reasons": sorted(set(reasons)), "comment": comment[:1000]},
    )
    return feedback
