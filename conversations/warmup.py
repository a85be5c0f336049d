"""Warm a process before it serves: everything a first turn would otherwise load on the visitor's time.

Measured on the demo (docs/decisions/first-ten-minutes.md): the first answer of a fresh process took
9 to 17 s, nearly all of it importing torch and sentence-transformers and loading the embedding model
(through the injection guard, which embeds the message), then the language identifier. Later answers
took under a second. `./parley run` prints "Parley is running" only once its processes are warm:
the web process warms while uvicorn imports the application (before it listens), the workers in
Celery's `worker_init` (before they answer the health check's ping).
"""

from __future__ import annotations

import functools
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field

logger = logging.getLogger(__name__)

# A question that goes through every stage of a turn (no guard stops it, retrieval runs).
WARM_UP_QUESTION = "How long does delivery take to my country?"


@dataclass(frozen=True)
class WarmUp:
    """What a warm-up loaded, in order, each with its milliseconds; the steps that failed, with why."""

    steps: dict[str, int] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)

    @property
    def total_ms(self) -> int:
        return sum(self.steps.values())


def embedding_models_in_use() -> list[str]:
    """Every embedding model a workspace may use here: the default, and each model field of the
    workspaces' embedding settings (what is stored, and the field's own default). The fields are read
    from the model, so a new kind of model (a multilingual one beside the workspace's) joins without
    an edit here."""
    from django.db.models import CharField

    from rag.models import WorkspaceEmbedding
    from textmodels.embeddings import embedding_model_default

    models = {embedding_model_default()}
    for model_field in WorkspaceEmbedding._meta.concrete_fields:
        if not (isinstance(model_field, CharField) and model_field.name.endswith("model")):
            continue
        default = model_field.get_default()
        if default:
            models.add(str(default))
        stored = WorkspaceEmbedding.objects.values_list(model_field.name, flat=True).distinct()
        models.update(str(value) for value in stored if value)
    return sorted(models)


def process_warm_up(*, inference: bool = True) -> WarmUp:
    """Load what a first turn needs, in this process. `inference` False (a prefork worker's main
    process, before it forks its pool): import the libraries only, since running a torch model in a
    parent that then forks can hang its children's thread pools; each child then only builds its
    model, without the imports, which take most of the time (docs/decisions/first-ten-minutes.md).

    A step that fails is logged and skipped: the first turn then loads that part itself, as before."""
    steps: dict[str, int] = {}
    failed: dict[str, str] = {}

    def step(name: str, load: Callable[[], object]) -> None:
        started = time.monotonic()
        try:
            load()
        except (
            Exception
        ) as exc:  # a warm-up must never keep Parley from starting; logged, not hidden
            logger.warning("warm-up step %s failed", name, exc_info=True)
            failed[name] = f"{exc.__class__.__name__}: {exc}"
            return
        steps[name] = round((time.monotonic() - started) * 1000)

    step("database", _database_connect)
    step("language identifier", _language_identifier_load)
    if not inference:
        step("embedding libraries", _embedding_libraries_import)
        warm = WarmUp(steps=steps, failed=failed)
        logger.info("warm-up (libraries only, before the pool forks): %s ms", warm.total_ms)
        return warm
    for model_id in embedding_models_in_use():
        step(f"embedding model {model_id}", functools.partial(_embedding_load, model_id))
    step("injection guard", _guard_load)
    step("prompt templates", _prompt_templates_load)
    step("one offline turn", _offline_turn)
    warm = WarmUp(steps=steps, failed=failed)
    logger.info(
        "warm-up: %s ms (%s)", warm.total_ms, ", ".join(f"{k} {v}" for k, v in steps.items())
    )
    return warm


def _database_connect() -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")


def _language_identifier_load() -> None:
    from textmodels.language import language_identifier_load

    language_identifier_load()


def _embedding_libraries_import() -> None:
    import importlib

    # As textmodels.embeddings.local does before it imports them: the model ships in site-packages.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    importlib.import_module("torch")
    importlib.import_module("sentence_transformers")


def _embedding_load(model_id: str) -> None:
    from textmodels.embeddings import embedding_provider_get

    provider = embedding_provider_get(model_id=model_id)
    if model_id.startswith("local/"):
        # One real call: the first one also sets up torch's kernels (a remote model is not called:
        # its endpoint may bill, or not be reachable yet).
        provider.embed_query(WARM_UP_QUESTION)


def _guard_load() -> None:
    from conversations.guards import message_screen

    message_screen(text=WARM_UP_QUESTION)


def _prompt_templates_load() -> None:
    from prompts.engine.environment import ANSWER_TEMPLATE, CONDENSE_TEMPLATE, prompt_environment

    for name in (ANSWER_TEMPLATE, CONDENSE_TEMPLATE):
        prompt_environment().get_template(name)


def _offline_turn() -> None:
    """One question through the whole pipeline for the oldest bot, on the offline provider: the SQL of
    retrieval, the offline answer's sentence splitter, the contract. Nothing is stored (the Try-it
    console runs the same function)."""
    from bots.models import Bot
    from conversations.pipeline import answer_run
    from conversations.pipeline.retrieve import scope_for
    from prompts.selectors import bot_settings_get

    bot = Bot.objects.order_by("created_at").only("pk", "workspace_id").first()
    if bot is None:
        return
    answer_run(
        bot=bot_settings_get(bot_id=bot.pk),
        question=WARM_UP_QUESTION,
        history=[],
        scope=scope_for(
            workspace_id=str(bot.workspace_id),
            bot_id=str(bot.pk),
            conversation_id=None,
            external_user_id="",
        ),
        endpoint=None,
    )
