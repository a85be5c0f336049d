"""Knowledge gaps: a bot's not-found and low-confidence questions, embedded with the workspace's
model (textmodels.embeddings) and grouped by agglomerative clustering under a cosine distance threshold.

The clustering runs in a Celery task (embedding a thousand questions takes seconds); the analytics
page reads the latest one. A question asked many times is embedded once.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from datetime import datetime

import numpy as np
from django.db import connection, transaction
from django.utils import timezone
from sklearn.cluster import AgglomerativeClustering

from bots.models import Bot
from insights.models import GapCluster, GapClustering
from insights.queue import gap_clustering_compute_enqueue
from insights.selectors.scope import SCOPED_TURNS_SQL, AnalyticsScope
from rag.selectors import workspace_embedding_model
from textmodels.embeddings import embed_texts

# The most recent failed questions of a period that one clustering groups (embedding and the O(n²)
# distance matrix both grow with it).
CLUSTER_QUESTIONS_MAX = 2000
# Two questions are in one cluster when their average cosine distance stays under this: about the
# distance between paraphrases for sentence-transformers models (cosine similarity ~0.65).
CLUSTER_DISTANCE = 0.35
EXAMPLES_PER_CLUSTER = 5
# Without an escalation threshold on the bot, an answer below this confidence counts as a gap.
LOW_CONFIDENCE_DEFAULT = 0.5

_FAILED_SQL = """
SELECT s.id, coalesce(nullif(t.condensed_question, ''), t.user_text) AS question
FROM ({turns}) AS s JOIN conversations_turn AS t ON t.id = s.id
WHERE s.status = 'not_found_in_context'
   OR (s.status = 'found_in_context' AND s.confidence < %(low)s)
ORDER BY s.created_at DESC
LIMIT %(limit)s
""".replace("{turns}", SCOPED_TURNS_SQL)


def gap_low_confidence(*, bot: Bot) -> float:
    return bot.escalation_confidence_threshold or LOW_CONFIDENCE_DEFAULT


def gap_clustering_request(
    *, bot_id: uuid.UUID | str, start: datetime, end: datetime, channel: str = ""
) -> GapClustering:
    """Queue a clustering of the scope's failed questions (the task starts after commit)."""
    clustering = GapClustering.objects.create(
        bot_id=bot_id, period_start=start, period_end=end, channel=channel
    )
    gap_clustering_compute_enqueue(clustering_id=str(clustering.pk))
    return clustering


def gap_clustering_compute(*, clustering_id: uuid.UUID | str) -> bool:
    """Compute a queued clustering; False when another delivery already took it."""
    claimed = GapClustering.objects.filter(
        pk=clustering_id, status=GapClustering.Status.QUEUED
    ).update(status=GapClustering.Status.RUNNING)
    if not claimed:
        return False
    clustering = GapClustering.objects.select_related("bot").get(pk=clustering_id)
    try:
        clusters = _clusters(clustering)
    except Exception as error:
        GapClustering.objects.filter(pk=clustering.pk).update(
            status=GapClustering.Status.FAILED,
            error_message=f"{type(error).__name__}: {error}"[:1000],
            completed_at=timezone.now(),
        )
        raise
    with transaction.atomic():
        for cluster, turn_ids in clusters:
            cluster.save()
            GapCluster.turns.through.objects.bulk_create(
                GapCluster.turns.through(gapcluster_id=cluster.pk, turn_id=turn_id)
                for turn_id in turn_ids
            )
        GapClustering.objects.filter(pk=clustering.pk).update(
            status=GapClustering.Status.COMPLETED,
            questions=sum(cluster.size for cluster, _ in clusters),
            completed_at=timezone.now(),
        )
    # Earlier clusterings' gaps may have been answered since: check them with this new look.
    gap_clusters_coverage_refresh(bot_id=clustering.bot_id)
    return True


def _clusters(clustering: GapClustering) -> list[tuple[GapCluster, list[uuid.UUID]]]:
    scope = AnalyticsScope(
        bot_id=str(clustering.bot_id),
        start=clustering.period_start,
        end=clustering.period_end,
        channel=clustering.channel,
    )
    with connection.cursor() as cursor:
        cursor.execute(
            _FAILED_SQL,
            {
                **scope.sql_params(),
                "low": gap_low_confidence(bot=clustering.bot),
                "limit": CLUSTER_QUESTIONS_MAX,
            },
        )
        rows = cursor.fetchall()
    turns_of: dict[str, list[uuid.UUID]] = defaultdict(list)
    for turn_id, question in rows:
        turns_of[" ".join(question.split())].append(turn_id)
    texts = [text for text in turns_of if text]
    if not texts:
        return []
    model = workspace_embedding_model(workspace_id=clustering.bot.workspace_id)
    vectors = _normalised(np.asarray(embed_texts(texts, model_id=model), dtype=np.float32))
    labels = _labels(vectors)
    result = []
    for label in sorted(set(labels.tolist())):
        members = np.flatnonzero(labels == label)
        centroid = _normalised(vectors[members].mean(axis=0, keepdims=True))[0]
        # Most central first: the cluster's label is the question closest to its centre.
        order = members[np.argsort(-(vectors[members] @ centroid))]
        turn_ids = [turn_id for index in order for turn_id in turns_of[texts[index]]]
        examples = [texts[index] for index in order[:EXAMPLES_PER_CLUSTER]]
        cluster = GapCluster(
            clustering=clustering,
            label=examples[0][:500],
            size=len(turn_ids),
            examples=examples,
            centroid=[round(float(value), 6) for value in centroid],
        )
        result.append((cluster, turn_ids))
    result.sort(key=lambda item: -item[0].size)
    return result


def _labels(vectors: np.ndarray) -> np.ndarray:
    if len(vectors) == 1:
        return np.zeros(1, dtype=int)
    model = AgglomerativeClustering(
        n_clusters=None, metric="cosine", linkage="average", distance_threshold=CLUSTER_DISTANCE
    )
    return np.asarray(model.fit_predict(vectors))


def _normalised(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1, norms)


# The later answered questions a coverage check embeds per bot (the most recent first).
COVERAGE_QUESTIONS_MAX = 500

_ANSWERED_SINCE_SQL = """
SELECT t.created_at, coalesce(nullif(t.condensed_question, ''), t.user_text), 'turn'
FROM conversations_turn AS t JOIN conversations_conversation AS c ON c.id = t.conversation_id
WHERE c.bot_id = %(bot)s::uuid AND t.created_at >= %(since)s AND t.completed_at IS NOT NULL
  AND t.status = 'found_in_context' AND t.confidence >= %(low)s
UNION ALL
SELECT r.completed_at, x.question, 'evaluation_run'
FROM insights_evaluationrun AS r JOIN insights_evaluationresult AS x ON x.run_id = r.id
WHERE r.bot_id = %(bot)s::uuid AND r.completed_at >= %(since)s AND x.status = 'found_in_context'
ORDER BY 1 DESC
LIMIT %(limit)s
"""


def gap_clusters_coverage_refresh(*, bot_id: uuid.UUID | str) -> int:
    """Mark covered the uncovered clusters that a later answer reached: a turn answered from the
    documents with enough confidence, or an evaluation run's found answer, whose question lies
    within the clustering distance of the cluster's centre. Returns the clusters newly covered."""
    clusters = list(
        GapCluster.objects.filter(
            clustering__bot_id=bot_id,
            clustering__status=GapClustering.Status.COMPLETED,
            covered_at__isnull=True,
        ).select_related("clustering__bot")
    )
    if not clusters:
        return 0
    bot = clusters[0].clustering.bot
    since = min(cluster.clustering.period_end for cluster in clusters)
    with connection.cursor() as cursor:
        cursor.execute(
            _ANSWERED_SINCE_SQL,
            {
                "bot": str(bot_id),
                "since": since,
                "low": gap_low_confidence(bot=bot),
                "limit": COVERAGE_QUESTIONS_MAX,
            },
        )
        answered = [(at, question, kind) for at, question, kind in cursor.fetchall() if question]
    if not answered:
        return 0
    model = workspace_embedding_model(workspace_id=bot.workspace_id)
    vectors = _normalised(
        np.asarray(embed_texts([q for _, q, _ in answered], model_id=model), dtype=np.float32)
    )
    covered = 0
    for cluster in clusters:
        centroid = np.asarray(cluster.centroid, dtype=np.float32)
        if centroid.size != vectors.shape[1]:
            continue  # clustered with another embedding model
        close = [
            (at, kind)
            for (at, _, kind), similarity in zip(answered, vectors @ centroid, strict=True)
            if at >= cluster.clustering.period_end and similarity >= 1 - CLUSTER_DISTANCE
        ]
        if close:
            at, kind = min(close)
            GapCluster.objects.filter(pk=cluster.pk, covered_at__isnull=True).update(
                covered_at=at, covered_by=kind
            )
            covered += 1
    return covered
