"""The warm-up loads every embedding model a workspace may use, found from the workspaces' embedding
settings (so a new kind of model joins without an edit), and what else a first turn needs."""

from __future__ import annotations

import pytest

from conversations.warmup import embedding_models_in_use, process_warm_up
from rag.models import WorkspaceEmbedding
from tests.support.factories import BotFactory, WorkspaceFactory
from textmodels.embeddings import LOCAL_MODEL_ID, MULTI_MODEL_ID, embedding_model_default

pytestmark = pytest.mark.django_db


def test_the_models_in_use_are_the_default_and_every_workspaces_choice() -> None:
    # The default model and the multilingual one every workspace gets by default (its field's default).
    assert embedding_models_in_use() == sorted({embedding_model_default(), MULTI_MODEL_ID})
    workspace = WorkspaceFactory()
    WorkspaceEmbedding.objects.create(workspace=workspace, embedding_model="openai/text-embed-x")
    assert embedding_models_in_use() == sorted(
        {embedding_model_default(), MULTI_MODEL_ID, "openai/text-embed-x"}
    )


def test_a_warm_up_loads_each_model_the_guard_and_one_offline_turn() -> None:
    BotFactory()
    warm = process_warm_up()
    assert not warm.failed, warm.failed
    assert list(warm.steps) == [
        "database",
        "language identifier",
        *(f"embedding model {model}" for model in sorted({LOCAL_MODEL_ID, MULTI_MODEL_ID})),
        "injection guard",
        "prompt templates",
        "one offline turn",
    ]


def test_a_prefork_parent_only_imports_the_libraries() -> None:
    warm = process_warm_up(inference=False)
    assert list(warm.steps) == ["database", "language identifier", "embedding libraries"]
