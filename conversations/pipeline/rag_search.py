"""`rag_search_answer`: one question over the caller's documents, answered in the rag_search tool's shape.

`{response, contexts, sources_used, model, execution_id}`: the response carries inline
`<citation id="CHUNK_ID">[n]</citation>` markers (n = the context's rank) and `sources_used`
lists exactly the ranks cited. With a bot the bot's settings drive retrieval and the prompt;
a server key without a bot gets the workspace defaults and the configured LLM provider.
Every call is audited as a `RagSearchExecution` (inserted when it starts, completed or failed at
the end), whose spec-shaped `execution_id` the result returns.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Sequence
from typing import Any

from django.db import DatabaseError

from conversations.adapters import llm_endpoint_for_bot
from conversations.answering import llm_endpoint_configured
from conversations.models import RagSearchExecution
from conversations.pipeline.events import PipelineEmitter
from conversations.pipeline.results import cited_response, rag_contexts
from conversations.pipeline.retrieve import scope_for
from conversations.pipeline.run import PipelineRun, answer_record, answer_run
from conversations.pipeline.turns import BOT_ENDPOINT
from conversations.services import (
    RagSearchCaller,
    rag_search_execution_complete,
    rag_search_execution_fail,
    rag_search_execution_start,
)
from conversations.types import AnswerStatus
from core.llm.types import LLMEndpoint
from core.redaction import pii_redact
from core.selectors import workspace_privacy_get
from prompts.engine import BotSettings, BotTexts, BusinessRules
from prompts.selectors import bot_settings_get
from textmodels.embeddings.errors import EmbeddingError

logger = logging.getLogger(__name__)

_WORKSPACE_TEXTS = BotTexts(
    refusal="That question is outside what these documents cover.",
    no_answer="I couldn't find the answer in the documents.",
    injection_refusal="I can't help with that request.",
    escalation="Please contact the team directly.",
    escalation_unavailable="Please contact the team directly.",
)


def workspace_search_settings(*, workspace_id: str) -> BotSettings:
    """The settings of a search made for the workspace itself (a server key naming no bot)."""
    return BotSettings(
        bot_id="",
        workspace_id=workspace_id,
        rules=BusinessRules(name="Parley search"),
        texts_by_locale={"en": _WORKSPACE_TEXTS},
    )


def rag_search_answer(
    *,
    workspace_id: uuid.UUID | str,
    query: str,
    bot_id: uuid.UUID | str | None = None,
    conversation_id: uuid.UUID | str | None = None,
    external_user_id: str | None = None,
    document_ids: Sequence[uuid.UUID | str] | None = None,
    emitter: PipelineEmitter | None = None,
    endpoint: LLMEndpoint | None = BOT_ENDPOINT,
    caller_kind: str = "",
    api_key_id: uuid.UUID | str | None = None,
) -> dict[str, Any]:
    """The search answered and audited: the execution row is inserted first, then completed with the
    answer's record, or failed with the error's code (and the error raised on)."""
    started = time.monotonic()
    bot, default_endpoint = _search_settings(workspace_id=workspace_id, bot_id=bot_id)
    caller = RagSearchCaller(
        workspace_id=workspace_id,
        bot_id=bot_id,
        conversation_id=conversation_id,
        external_user_id=external_user_id or "",
        kind=caller_kind,
        api_key_id=api_key_id,
    )
    privacy = workspace_privacy_get(workspace_id=workspace_id)
    redact = privacy.redact_stored
    execution = rag_search_execution_start(
        caller=caller, query=query, document_ids=document_ids, redact=redact
    )
    scope = scope_for(
        workspace_id=str(workspace_id),
        bot_id=str(bot_id) if bot_id else None,
        conversation_id=str(conversation_id) if conversation_id else None,
        external_user_id=external_user_id,
        document_ids=[str(d) for d in document_ids] if document_ids is not None else None,
    )
    try:
        chosen = default_endpoint if endpoint is BOT_ENDPOINT else endpoint
        # A search tool's contexts are chunks of the documents in scope: no curated answer.
        run = answer_run(
            bot=bot,
            question=pii_redact(query) if privacy.redact_before_llm else query,
            history=(),
            scope=scope,
            endpoint=chosen,
            emitter=emitter,
            curated_answers=False,
        )
    except Exception as exc:
        _execution_fail(execution=execution, exc=exc, started=started, redact=redact)
        raise
    return _search_result(run=run, execution=execution, redact=redact)


def _search_settings(
    *, workspace_id: uuid.UUID | str, bot_id: uuid.UUID | str | None
) -> tuple[BotSettings, LLMEndpoint | None]:
    """The bot's settings and LLM endpoint, or, for a server key naming no bot, the workspace's
    defaults and the configured provider."""
    if bot_id is not None:
        bot = bot_settings_get(bot_id=bot_id, workspace_id=workspace_id)
        return bot, llm_endpoint_for_bot(bot=bot)
    return workspace_search_settings(workspace_id=str(workspace_id)), llm_endpoint_configured()


def _execution_fail(
    *, execution: RagSearchExecution, exc: Exception, started: float, redact: bool
) -> None:
    """The audit keeps why the call failed; the caller still gets the error (an API error or an SSE
    error event)."""
    try:
        rag_search_execution_fail(
            execution_pk=execution.pk,
            error_code=_error_code(exc),
            error_message=f"{type(exc).__name__}: {exc}",
            latencies={"total": round((time.monotonic() - started) * 1000)},
            redact=redact,
        )
    except DatabaseError:  # the database itself is down: log it, and let the original error through
        logger.exception(
            "rag_search %s failed and its failure could not be recorded", execution.execution_id
        )


def _search_result(
    *, run: PipelineRun, execution: RagSearchExecution, redact: bool
) -> dict[str, Any]:
    """The tool's result, its response cited by context rank, and the execution completed with it."""
    answer = run.generated.outcome.enforced.answer
    response, cited = run.route.text, list[int]()
    if answer.status is AnswerStatus.FOUND_IN_CONTEXT and run.route.show_citations:
        response, cited = cited_response(
            answer=run.route.text, chunks=run.chunks, usage=answer.context_usage
        )
    rag_search_execution_complete(
        execution_pk=execution.pk,
        record=answer_record(run=run),
        response=response,
        sources_used=cited,
        redact=redact,
    )
    return {
        "response": response,
        "contexts": rag_contexts(chunks=run.chunks, cited=cited),
        "sources_used": cited,
        "model": run.generated.model,
        "execution_id": execution.execution_id,
    }


def _error_code(exc: Exception) -> str:
    """A stable code for the audit: the error's own (LLM, ingestion), else its kind."""
    code = getattr(exc, "code", None)
    if isinstance(code, str) and code:
        return code
    if isinstance(exc, EmbeddingError):
        return "embedding_failed"
    if isinstance(exc, DatabaseError):
        return "database_error"
    return "internal_error"
