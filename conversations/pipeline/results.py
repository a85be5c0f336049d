"""The public shapes of a finished turn and of a rag_search, built from stored data only.

`turn_result_json` reads nothing but the Turn row (its audit keeps each retrieved chunk's
preview), so a replayed client_message_id answers exactly what the first delivery answered.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from conversations.models import Turn
from conversations.routing import RouteAction
from conversations.types import ChunkUsage
from rag.retrieval import RetrievedChunk
from rag.retrieval.types import TEXT_PREVIEW_CHARS

FORWARDED_TO_AGENT = "forwarded_to_agent"


def turn_citations(*, turn: Turn) -> list[dict[str, Any]]:
    """The chunks the answer used, numbered in retrieval order; none unless the answer itself is shown."""
    if turn.status != Turn.Status.FOUND_IN_CONTEXT or turn.route_action != RouteAction.SHOW_ANSWER:
        return []
    used = {usage["chunk"] for usage in turn.context_usage if usage.get("used_in_response")}
    cited = [chunk for chunk in turn.retrieved_chunks if chunk["chunk_id"] in used]
    return [
        {
            "n": n,
            "chunk_id": chunk["chunk_id"],
            "document_id": chunk["document_id"],
            "title": chunk["title"],
            "page_number": chunk.get("page"),
            "start_time": chunk.get("start_time"),
            "text_preview": chunk.get("text_preview", ""),
        }
        for n, chunk in enumerate(cited, start=1)
    ]


def turn_result_json(*, turn: Turn, owner: str, explainability: bool) -> dict[str, Any]:
    """The routed turn as the chat API answers it (PHASE2 contract)."""
    body: dict[str, Any] = {
        "turn_id": str(turn.pk),
        "status": turn.status,
        "answer": turn.reply_text,
        "display_answer": turn.display_answer,
        "topic": turn.topic,
        "suggested_topics": list(turn.suggested_topics),
        "confidence": turn.confidence,
        "redirection_intent": turn.redirection_intent or None,
        "citations": turn_citations(turn=turn),
        "model": turn.model,
        "execution_id": str(turn.execution_id),
        "owner": owner,
    }
    if explainability:
        body["understanding"] = turn.understanding
        body["context_usage"] = list(turn.context_usage)
    return body


def muted_result_json(*, owner: str) -> dict[str, Any]:
    return {"status": FORWARDED_TO_AGENT, "owner": owner}


def cited_response(
    *, answer: str, chunks: Sequence[RetrievedChunk], usage: Sequence[ChunkUsage]
) -> tuple[str, list[int]]:
    """The answer with `<citation id="CHUNK_ID">[n]</citation>` after the sentence each used chunk supports
    (at the end when the sentence is not quoted verbatim); n is the chunk's rank. Returns (text, ranks cited)."""
    rank_of = {chunk.id: chunk.rank for chunk in chunks}
    text, cited = answer, []
    for item in usage:
        if not item.used_in_response or item.chunk not in rank_of or rank_of[item.chunk] in cited:
            continue
        rank = rank_of[item.chunk]
        marker = f'<citation id="{html.escape(item.chunk)}">[{rank}]</citation>'
        at = next((text.find(s) + len(s) for s in item.sentences if s and s in text), -1)
        text = text[:at] + marker + text[at:] if at >= 0 else text.rstrip() + " " + marker
        cited.append(rank)
    return text, cited


def rag_contexts(*, chunks: Sequence[RetrievedChunk], cited: Sequence[int]) -> list[dict[str, Any]]:
    """The `contexts` of the rag_search response: the spec's public shape, not the audit's."""
    return [
        {
            "rank": chunk.rank,
            "chunk_id": chunk.id,
            "document_id": chunk.document_id,
            "text_preview": chunk.text[:TEXT_PREVIEW_CHARS],
            "used_in_response": chunk.rank in cited,
        }
        for chunk in chunks
    ]
