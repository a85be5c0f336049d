"""Evaluation runs: create one (refusing an empty set or a bot without documents, clearly), then
execute it case by case through `answer_run`, which stores nothing (no turn, conversation, handoff
or feedback), so a run reaches no visitor and no analytics figure.

Execution is idempotent: results are unique per (run, case) and a redelivered task resumes after
the cases already answered. Progress is the count of stored results.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Mapping
from typing import Any

from django.db import transaction
from django.utils import timezone

from bots.models import Bot, PromptTemplateVersion
from conversations.adapters import llm_endpoint_for_bot
from conversations.pipeline.retrieve import scope_for
from conversations.pipeline.run import PipelineRun, answer_run
from core.errors import ErrorKind, ParleyError
from insights.models import EvaluationCase, EvaluationRun, EvaluationSet
from insights.queue import evaluation_run_execute_enqueue
from insights.services.gaps import gap_clusters_coverage_refresh
from insights.services.metrics import ResultFacts, run_metrics
from insights.services.run_results import document_names, result_store
from prompts.engine import BotSettings, HistoryTurn, TemplateSource
from prompts.selectors import bot_settings_get
from rag.models import Document

STRICTNESS = ("strict", "relaxed")
TOP_K_MAX = 50
# While the bot's documents are still being ingested a run waits (the demo's first run does).
WAIT_FOR_DOCUMENTS_SECONDS = 10


class RunRefused(ParleyError):
    """A run that cannot start: `code` is stable, the message says what to do."""

    kind = ErrorKind.INVALID

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message, code=code)


class DocumentsPending(ParleyError):
    """The bot's documents are not ingested yet; the task retries later."""

    code = "documents_pending"
    kind = ErrorKind.UNAVAILABLE


def overrides_clean(*, bot_id: uuid.UUID | str, raw: Mapping[str, Any]) -> dict[str, Any]:
    """The run's overrides, checked: template_version (an answer template version of this bot),
    rag_strictness, top_k, hybrid (fusion of full-text and vector search on or off), model."""
    clean: dict[str, Any] = {}
    unknown = set(raw) - {"template_version", "rag_strictness", "top_k", "hybrid", "model"}
    if unknown:
        raise RunRefused("override_unknown", f"Unknown override(s): {', '.join(sorted(unknown))}.")
    if raw.get("template_version") not in (None, ""):
        number = int(raw["template_version"])
        if not PromptTemplateVersion.objects.filter(
            bot_id=bot_id, kind=PromptTemplateVersion.Kind.ANSWER, number=number
        ).exists():
            raise RunRefused(
                "template_version_unknown", f"The bot has no answer template v{number}."
            )
        clean["template_version"] = number
    if raw.get("rag_strictness") not in (None, ""):
        if raw["rag_strictness"] not in STRICTNESS:
            raise RunRefused("strictness_invalid", "Strictness is strict or relaxed.")
        clean["rag_strictness"] = raw["rag_strictness"]
    if raw.get("top_k") not in (None, ""):
        top_k = int(raw["top_k"])
        if not 1 <= top_k <= TOP_K_MAX:
            raise RunRefused("top_k_invalid", f"Top k is between 1 and {TOP_K_MAX}.")
        clean["top_k"] = top_k
    if raw.get("hybrid") not in (None, ""):
        clean["hybrid"] = bool(raw["hybrid"])
    if raw.get("model"):
        clean["model"] = str(raw["model"])[:200]
    return clean


def evaluation_run_create(
    *,
    set_id: uuid.UUID | str,
    overrides: Mapping[str, Any] | None = None,
    label: str = "",
    user: Any = None,
    enqueue: bool = True,
) -> EvaluationRun:
    """Queue a run of the set (the task starts after commit; `enqueue=False` leaves it to the caller,
    e.g. the `evaluate` command, which executes it in its own process); RunRefused says why not."""
    evaluation_set = EvaluationSet.objects.select_related("bot").get(pk=set_id)
    clean = overrides_clean(bot_id=evaluation_set.bot_id, raw=overrides or {})
    total = evaluation_set.cases.count()
    _refusal_check(bot=evaluation_set.bot, cases=total)
    run = EvaluationRun.objects.create(
        evaluation_set=evaluation_set,
        bot=evaluation_set.bot,
        label=label[:200] or _label(clean),
        overrides=clean,
        total=total,
        created_by=user if getattr(user, "pk", None) else None,
    )
    if enqueue:
        evaluation_run_execute_enqueue(run_id=str(run.pk))
    return run


def _label(overrides: Mapping[str, Any]) -> str:
    if not overrides:
        return "the bot as it is"
    return ", ".join(f"{key}={value}" for key, value in overrides.items())


def _refusal_check(*, bot: Bot, cases: int) -> None:
    if cases == 0:
        raise RunRefused(
            "set_empty", "This evaluation set has no case: add cases before running it."
        )
    if not Document.objects.filter(bots=bot).exclude(status=Document.Status.FAILED).exists():
        raise RunRefused(
            "bot_has_no_documents",
            f"The bot “{bot.name}” has no document: every case would be answered from nothing."
            " Add documents to the bot first.",
        )


def evaluation_run_execute(*, run_id: uuid.UUID | str) -> str:
    """Answer every case not answered yet, then compute the metrics; returns the run's status.

    Raises DocumentsPending while any of the bot's documents is still being ingested.
    """
    run = EvaluationRun.objects.select_related("bot").get(pk=run_id)
    if run.status in (EvaluationRun.Status.COMPLETED, EvaluationRun.Status.FAILED):
        return run.status
    cases = list(EvaluationCase.objects.filter(evaluation_set_id=run.evaluation_set_id))
    try:
        _refusal_check(bot=run.bot, cases=len(cases))
    except RunRefused as refused:
        _fail(run, refused.code, str(refused))
        return EvaluationRun.Status.FAILED
    # Every document still being ingested is waited for: a run answered from some of the documents
    # only (the demo's first run, queued with them) would measure a bot nobody will talk to.
    ingesting = Document.objects.filter(
        bots=run.bot, status__in=[Document.Status.PENDING, Document.Status.PROCESSING]
    )
    if ingesting.exists():
        raise DocumentsPending(f"the documents of {run.bot.name} are still being ingested")
    EvaluationRun.objects.filter(pk=run.pk, status=EvaluationRun.Status.QUEUED).update(
        status=EvaluationRun.Status.RUNNING, started_at=timezone.now(), total=len(cases)
    )
    settings = settings_with_overrides(
        settings=bot_settings_get(bot_id=run.bot_id), overrides=run.overrides
    )
    names = document_names(run.bot)
    answered = set(run.results.values_list("case_id", flat=True))
    try:
        for case in cases:
            if case.pk in answered:
                continue
            pipeline = _answer(settings, case)
            result_store(run, case, pipeline, names)
    except Exception as error:
        _fail(run, "run_error", f"{type(error).__name__}: {error}")
        raise
    return _complete(run, settings)


def settings_with_overrides(*, settings: BotSettings, overrides: Mapping[str, Any]) -> BotSettings:
    """The bot's settings as the run should see them; nothing about the bot itself changes."""
    changed = settings
    if "template_version" in overrides:
        source = PromptTemplateVersion.objects.values_list("source", flat=True).get(
            bot_id=settings.bot_id,
            kind=PromptTemplateVersion.Kind.ANSWER,
            number=overrides["template_version"],
        )
        changed = dataclasses.replace(
            changed,
            answer_template=TemplateSource(source=source, version=overrides["template_version"]),
        )
    if "rag_strictness" in overrides:
        changed = dataclasses.replace(changed, rag_strictness=overrides["rag_strictness"])
    retrieval = changed.retrieval
    if "top_k" in overrides:
        retrieval = dataclasses.replace(retrieval, top_k=overrides["top_k"])
    if "hybrid" in overrides:
        retrieval = dataclasses.replace(retrieval, hybrid=overrides["hybrid"])
    changed = dataclasses.replace(changed, retrieval=retrieval)
    if "model" in overrides:
        changed = dataclasses.replace(
            changed, llm=dataclasses.replace(changed.llm, model=overrides["model"])
        )
    return changed


def _answer(settings: BotSettings, case: EvaluationCase) -> PipelineRun:
    scope = scope_for(
        workspace_id=settings.workspace_id,
        bot_id=settings.bot_id,
        conversation_id=None,
        external_user_id="",
    )
    return answer_run(
        bot=settings,
        question=case.question,
        history=[HistoryTurn.coerce(turn) for turn in case.history],
        scope=scope,
        endpoint=llm_endpoint_for_bot(bot=settings),
    )


def _complete(run: EvaluationRun, settings: BotSettings) -> str:
    # ResultFacts names the result's columns the metrics read.
    names = [facts_field.name for facts_field in dataclasses.fields(ResultFacts)]
    facts = [ResultFacts(**{name: getattr(r, name) for name in names}) for r in run.results.all()]
    metrics = run_metrics(results=facts, top_k=settings.retrieval.top_k)
    with transaction.atomic():
        EvaluationRun.objects.filter(pk=run.pk).exclude(status=EvaluationRun.Status.FAILED).update(
            status=EvaluationRun.Status.COMPLETED,
            metrics=metrics,
            done=len(facts),
            completed_at=timezone.now(),
        )
    # A gap cluster that this run's found answers reach is covered from now on.
    gap_clusters_coverage_refresh(bot_id=run.bot_id)
    return EvaluationRun.Status.COMPLETED


def evaluation_run_fail(*, run_id: uuid.UUID | str, code: str, message: str) -> None:
    """Fail a run that will never finish (e.g. its documents were never ingested)."""
    _fail(EvaluationRun.objects.get(pk=run_id), code, message)


def _fail(run: EvaluationRun, code: str, message: str) -> None:
    EvaluationRun.objects.filter(pk=run.pk).exclude(status=EvaluationRun.Status.COMPLETED).update(
        status=EvaluationRun.Status.FAILED,
        error_code=code[:60],
        error_message=message[:1000],
        completed_at=timezone.now(),
    )
