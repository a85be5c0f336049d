"""The public shapes of a finished turn and of a rag_search, built from stored data only.

`turn_result_json` reads nothing but the Turn row (its audit keeps each retrieved chunk's
preview), so a replayed client_message_id answers exactly what the first delivery answered.
"""

from __future__ import annotations

import html
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from conversations.models import Turn
from conversations.routing import RouteAction
from conversations.types import ChunkUsage
from rag.retrieval import RetrievedChunk
from rag.retrieval.types import TEXT_PREVIEW_CHARS

FORWARDED_TO_AGENT = "forwarded_to_agent"


def citation_numbers(*, chunk_ids: Sequence[str], used: Collection[str]) -> dict[str, int]:
    """The one numbering of an answer's sources, the widget's and Try it's: the chunks the answer used,
    1, 2, … in retrieval order (not their retrieval ranks, which skip the chunks left unused)."""
    cited = [chunk_id for chunk_id in dict.fromkeys(chunk_ids) if chunk_id in used]
    return {chunk_id: n for n, chunk_id in enumerate(cited, start=1)}


def turn_citations(*, turn: Turn) -> list[dict[str, Any]]:
    """The chunks the answer used, numbered by `citation_numbers`; none unless the answer itself is
    shown."""
    if turn.status != Turn.Status.FOUND_IN_CONTEXT or turn.route_action != RouteAction.SHOW_ANSWER:
        return []
    used = {usage["chunk"] for usage in turn.context_usage if usage.get("used_in_response")}
    numbers = citation_numbers(
        chunk_ids=[chunk["chunk_id"] for chunk in turn.retrieved_chunks], used=used
    )
    by_id = {chunk["chunk_id"]: chunk for chunk in turn.retrieved_chunks}
    return [
        {
            "n": n,
            "chunk_id": chunk["chunk_id"],
            "document_id": chunk["document_id"],
            "title": chunk["title"],
            # The page a source's document was read from: the widget links the citation there.
            "url": chunk.get("url", ""),
            "page_number": chunk.get("page"),
            "start_time": chunk.get("start_time"),
            "text_preview": chunk.get("text_preview", ""),
        }
        for chunk_id, n in numbers.items()
        for chunk in (by_id[chunk_id],)
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
    *,
    answer: str,
    chunks: Sequence[RetrievedChunk],
    usage: Sequence[ChunkUsage],
    numbers: Mapping[str, int] | None = None,
) -> tuple[str, list[int]]:
    """The answer with `<citation id="CHUNK_ID">[n]</citation>` after the sentence each used chunk supports
    (at the end when the sentence is not quoted verbatim); n is the chunk's rank (rag_search's contexts
    are numbered so), or its number in `numbers` when given (`citation_numbers`, Try it). Returns
    (text, ranks cited)."""
    rank_of = {chunk.id: chunk.rank for chunk in chunks}
    text, cited = answer, []
    for item in usage:
        if not item.used_in_response or item.chunk not in rank_of or rank_of[item.chunk] in cited:
            continue
        rank = rank_of[item.chunk]
        shown = numbers.get(item.chunk, rank) if numbers is not None else rank
        marker = f'<citation id="{html.escape(item.chunk)}">[{shown}]</citation>'
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
