"""The answer of a turn: the curated answer as the bot's, or the LLM's (the offline provider's) with its
contract enforced and, for the LLM's, the support check's inputs (conversations/contract/support)."""

from __future__ import annotations

from collections.abc import Sequence

from conversations.answering import AnswerRequest, GeneratedAnswer, answer_generate, offline_stream
from conversations.contract.support.apply import SupportInputs
from conversations.pipeline.curated import curated_generated
from conversations.pipeline.events import PartialRelay
from conversations.pipeline.retrieve import embedder_for, estimator_for
from conversations.pipeline.run.context import TurnContext
from conversations.pipeline.support import support_passages
from conversations.types import BotRules
from core.llm.types import LLMEndpoint
from rag.retrieval import RetrievedChunk
from textmodels.embeddings import embedding_model_default, multilingual_model_default


def support_inputs(
    *, context: TurnContext, chunks: Sequence[RetrievedChunk], rules: BotRules
) -> SupportInputs:
    """What the LLM's answer is checked against: the chunks given to it, with the units and vectors
    retrieval read of them (made at ingestion)."""
    retrieval = context.retrieval
    return support_passages(
        chunks=chunks,
        known=retrieval.relevance_inputs if retrieval else {},
        model_id=(retrieval.multi_model_id or retrieval.model_id) if retrieval else "",
        language=(rules.locale or "en").split("-")[0],
    )


def answer_generate_for(
    *,
    context: TurnContext,
    request: AnswerRequest,
    endpoint: LLMEndpoint | None,
    relay: PartialRelay | None,
    support: SupportInputs | None = None,
) -> GeneratedAnswer:
    """The curated answer as the bot's (relayed in parts, as an offline answer is), or the LLM's
    answer with its contract enforced. `relay` None: nobody reads partial answers (no emitter), so
    no partial JSON is parsed per streamed delta."""
    if context.curated is not None:
        generated = curated_generated(
            match=context.curated,
            chunk=context.chunks[0],
            rules=request.rules,
            question=request.question,
        )
        if relay is not None:
            offline_stream(text=generated.outcome.enforced.answer.answer, on_partial=relay)
        return generated
    retrieval = context.retrieval
    model_id = retrieval.model_id if retrieval else embedding_model_default()
    multi_model_id = retrieval.multi_model_id if retrieval else multilingual_model_default()
    return answer_generate(
        request=request,
        endpoint=endpoint,
        embed=embedder_for(model_id=model_id),
        on_partial=relay,
        estimate=estimator_for(
            model_id=model_id,
            multi_model_id=multi_model_id,
            known=retrieval.relevance_inputs if retrieval else None,
        ),
        support=support,
    )
