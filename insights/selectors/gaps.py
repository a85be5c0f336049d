"""Reads of gap clusterings: the latest finished one of a bot, with its clusters."""

from __future__ import annotations

from typing import Any

from insights.models import GapClustering


def gap_clustering_latest(*, bot_id: Any) -> GapClustering | None:
    return (
        GapClustering.objects.filter(bot_id=bot_id, status=GapClustering.Status.COMPLETED)
        .prefetch_related("clusters")
        .order_by("-created_at")
        .first()
    )
