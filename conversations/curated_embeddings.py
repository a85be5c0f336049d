"""Curated answers' question embeddings, kept in the workspace's embedding model.

A curated answer matches a turn only when its question was embedded with the model the turn's
question is embedded with. When a workspace switches model (rag.services.workspace_embedding_model_set,
below this app, re-embeds the documents), the turn's path finds the curated answers left in the old
model and queues their re-embedding here; until it has run, the turn goes through retrieval.
"""

from __future__ import annotations

import uuid

import numpy as np
from django.core.cache import cache
from django.db import transaction

from bots.models import Bot
from conversations.models import CuratedAnswer
from core.queue import task_enqueue
from rag.selectors import workspace_embedding_model
from textmodels.embeddings import embed_query

# One queued re-embedding per bot and process at a time (the task is idempotent: a second run finds
# nothing stale).
REEMBED_GUARD_SECONDS = 600
# Queued by name (core.queue): conversations.tasks imports this module, never the other way.
REEMBED_TASK = "conversations.curated_answers_reembed"


def curated_answer_embed(*, curated_id: uuid.UUID | str) -> None:
    """(Re)compute a curated answer's question embedding with its workspace's model (the one the
    turn's question is embedded with), stored normalised."""
    curated = CuratedAnswer.objects.select_related("bot").get(pk=curated_id)
    model = workspace_embedding_model(workspace_id=curated.bot.workspace_id)
    _embedding_store(curated_id=curated.pk, question=curated.question, model=model)


def curated_answers_reembed(*, bot_id: uuid.UUID | str) -> int:
    """Re-embed the bot's curated answers not embedded with its workspace's current model (or not
    at all); returns how many."""
    workspace_id = Bot.objects.filter(pk=bot_id).values_list("workspace_id", flat=True).first()
    if workspace_id is None:
        return 0
    model = workspace_embedding_model(workspace_id=workspace_id)
    stale = CuratedAnswer.objects.filter(bot_id=bot_id).exclude(embedding_model=model)
    rows = list(stale.values_list("pk", "question"))
    for curated_id, question in rows:
        _embedding_store(curated_id=curated_id, question=question, model=model)
    return len(rows)


def _embedding_store(*, curated_id: uuid.UUID, question: str, model: str) -> None:
    vector = np.asarray(embed_query(question, model_id=model), dtype=np.float64)
    norm = float(np.linalg.norm(vector)) or 1.0
    CuratedAnswer.objects.filter(pk=curated_id).update(
        embedding=[round(float(v) / norm, 6) for v in vector], embedding_model=model
    )


def curated_answers_reembed_queue(*, bot_id: uuid.UUID | str) -> bool:
    """Queue the bot's re-embedding once (after the current transaction commits); False when one is
    already queued from this process."""
    if not cache.add(f"parley:curated-reembed:{bot_id}", 1, REEMBED_GUARD_SECONDS):
        return False
    key = str(bot_id)
    transaction.on_commit(lambda: task_enqueue(REEMBED_TASK, args=[key]))
    return True
