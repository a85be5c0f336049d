"""Reads of gap clusterings: the latest finished one of a bot, with its clusters."""

from __future__ import annotations

from typing import Any

from django.db.models import Prefetch

from insights.models import GapCluster, GapClustering


def gap_clustering_latest(*, bot_id: Any) -> GapClustering | None:
    return (
        GapClustering.objects.filter(bot_id=bot_id, status=GapClustering.Status.COMPLETED)
        .prefetch_related(
            Prefetch("clusters", queryset=GapCluster.objects.select_related("curated_answer"))
        )
        .order_by("-created_at")
        .first()
    )
