"""`rag_search_answer`: one question over the caller's documents, answered in the rag_search tool's shape.

`{response, contexts, sources_used, model, execution_id}`: the response carries inline
`<citation id="CHUNK_ID">[n]</citation>` markers (n = the context's rank) and `sources_used`
lists exactly the ranks cited. With a bot the bot's settings drive retrieval and the prompt;
a server key without a bot gets the workspace defaults and the configured LLM provider.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from conversations.adapters import llm_endpoint_for_bot
from conversations.answering import llm_endpoint_configured
from conversations.pipeline.events import PipelineEmitter
from conversations.pipeline.results import cited_response, rag_contexts
from conversations.pipeline.retrieve import scope_for
from conversations.pipeline.run import answer_run
from conversations.pipeline.turns import BOT_ENDPOINT
from conversations.types import AnswerStatus
from core.llm.types import LLMEndpoint
from prompts.engine import BotSettings, BotTexts, BusinessRules
from prompts.selectors import bot_settings_get

_WORKSPACE_TEXTS = BotTexts(
    refusal="That question is outside what these documents cover.",
    no_answer="I couldn't find the answer in the documents.",
    injection_refusal="I can't help with that request.",
    escalation="Please contact the team directly.",
    escalation_unavailable="Please contact the team directly.",
)


def workspace_search_settings(*, workspace_id: str) -> BotSettings:
    """The settings of a search made for the workspace itself (a server key naming no bot)."""
    return BotSettings(bot_id="", workspace_id=workspace_id, rules=BusinessRules(name="Parley search"),
                       texts_by_locale={"en": _WORKSPACE_TEXTS})  # fmt: skip


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
) -> dict[str, Any]:
    if bot_id is not None:
        bot = bot_settings_get(bot_id=bot_id, workspace_id=workspace_id)
        default_endpoint = llm_endpoint_for_bot(bot=bot)
    else:
        bot = workspace_search_settings(workspace_id=str(workspace_id))
        default_endpoint = llm_endpoint_configured()
    scope = scope_for(
        workspace_id=str(workspace_id), bot_id=str(bot_id) if bot_id else None,
        conversation_id=str(conversation_id) if conversation_id else None, external_user_id=external_user_id,
        document_ids=[str(d) for d in document_ids] if document_ids is not None else None,
    )  # fmt: skip
    run = answer_run(bot=bot, question=query, history=(), scope=scope,
                     endpoint=default_endpoint if endpoint is BOT_ENDPOINT else endpoint, emitter=emitter)  # fmt: skip
    answer = run.generated.outcome.enforced.answer
    response, cited = run.route.text, []
    if answer.status is AnswerStatus.FOUND_IN_CONTEXT and run.route.show_citations:
        response, cited = cited_response(answer=run.route.text, chunks=run.chunks, usage=answer.context_usage)
    return {
        "response": response,
        "contexts": rag_contexts(chunks=run.chunks, cited=cited),
        "sources_used": cited,
        "model": run.generated.model,
        "execution_id": f"exec_{uuid.uuid4().hex}",
    }
