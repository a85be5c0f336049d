"""The optional HTTP reranker gateway: a TEI or Cohere-style `POST {RERANKER_URL}/rerank`.

TEI takes `{"query", "texts"}` and answers `[{"index", "score"}]`; Cohere-style servers take
`{"query", "documents", "model", "top_n"}` and answer `{"results": [{"index", "relevance_score"}]}`.
Both bodies are sent in one request (each server ignores the other's fields); any failure
(timeout, HTTP error, malformed body) returns None so retrieval keeps the fused order.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import httpx
from django.conf import settings

logger = logging.getLogger(__name__)


def rerank_scores(*, query: str, texts: Sequence[str]) -> list[float] | None:
    """One relevance score per text (same order), or None when no reranker is set or it failed."""
    url = settings.RERANKER_URL
    if not url or not texts:
        return None
    body: dict[str, object] = {
        "query": query,
        "texts": list(texts),
        "documents": list(texts),
        "top_n": len(texts),
    }
    if settings.RERANKER_MODEL:
        body["model"] = settings.RERANKER_MODEL
    headers = (
        {"Authorization": f"Bearer {settings.RERANKER_API_KEY}"}
        if settings.RERANKER_API_KEY
        else {}
    )
    try:
        response = httpx.post(
            url.rstrip("/") + "/rerank",
            json=body,
            headers=headers,
            timeout=settings.RERANKER_TIMEOUT_SECONDS,
        )
        response.raise_for_status()
        return _scores(response.json(), len(texts))
    except (httpx.HTTPError, ValueError, KeyError, TypeError, IndexError) as error:
        logger.warning("reranker failed, keeping the fused order: %s", error)
        return None


def _scores(payload: object, count: int) -> list[float]:
    items = payload.get("results") if isinstance(payload, dict) else payload
    if not isinstance(items, list):
        raise ValueError("the reranker answered no list of scores")
    scores: list[float | None] = [None] * count
    for item in items:
        score = item["relevance_score"] if "relevance_score" in item else item["score"]
        scores[int(item["index"])] = float(score)
    scored = [score for score in scores if score is not None]
    if len(scored) != count:
        raise ValueError("the reranker did not score every text")
    return scored
