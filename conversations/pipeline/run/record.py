"""What a turn leaves for the audit: its answer record, and each stage's milliseconds."""

from __future__ import annotations

from typing import TYPE_CHECKING

from conversations.audit import AnswerRecord
from conversations.pipeline.run.context import TurnContext

if TYPE_CHECKING:
    from conversations.pipeline.run.result import PipelineRun


def stage_latencies(
    *, context: TurnContext, stages: dict[str, int], llm_ms: int, total: int
) -> dict[str, int]:
    """Each stage's milliseconds, for the audit and the console."""
    retrieval = context.retrieval
    searched = retrieval.latencies if retrieval else {"embed": 0, "search": 0, "rerank": 0}
    curated_ms = context.curated_ms
    return {
        "screen": stages.get("screen", 0),
        "languages": stages.get("languages", 0),
        "condense": context.condensed.ms,
        **searched,
        # The question embedded ahead of retrieval (for the curated answers) counts as its embedding.
        "embed": searched.get("embed", 0) + curated_ms.get("embed", 0),
        **({"curated": curated_ms["match"]} if curated_ms else {}),
        "prompt": stages.get("prompt", 0),
        "llm": llm_ms,
        "total": total,
    }


def answer_record(*, run: PipelineRun) -> AnswerRecord:
    """What a run leaves for the audit, a turn's or a rag_search's."""
    generated = run.generated
    return AnswerRecord(
        outcome=generated.outcome,
        route=run.route,
        chunks=run.chunks,
        condensed=run.condensed.question if run.condensed.method != "none" else "",
        expanded_query=run.retrieval.query_text if run.retrieval else "",
        prompt_version=run.prompt.template,
        prompt_hash=run.prompt.sha256,
        model=generated.model,
        prompt_tokens=generated.prompt_tokens,
        completion_tokens=generated.completion_tokens,
        latencies=run.latencies,
    )
