"""rag.selectors.workspace_search_setup: a workspace's models and the calibration that applies to them."""

from __future__ import annotations

import uuid

from django.utils import timezone

from core.models import Workspace
from rag.models import WorkspaceEmbedding, WorkspaceFusion
from rag.selectors import SearchSetup, workspace_search_setup
from textmodels.embeddings import LOCAL_MODEL_ID, MULTI_MODEL_ID

PARAMETERS = {"rrf_k": 10.0, "vector_weight": 1.0, "text_weight": 0.5, "multi_weight": 0.5}


def test_an_unknown_workspace_gets_the_default_models_and_no_calibration(db: None) -> None:
    setup = workspace_search_setup(workspace_id=uuid.uuid4())
    assert setup == SearchSetup(LOCAL_MODEL_ID, MULTI_MODEL_ID, None, {})


def test_the_calibration_applies_only_to_the_models_it_measured(workspace: Workspace) -> None:
    WorkspaceEmbedding.objects.update_or_create(
        workspace=workspace,
        defaults={"embedding_model": LOCAL_MODEL_ID, "multilingual_model": MULTI_MODEL_ID},
    )
    assert workspace_search_setup(workspace_id=workspace.pk).method is None  # not calibrated yet

    WorkspaceFusion.objects.update_or_create(
        workspace=workspace,
        defaults={
            "embedding_model": LOCAL_MODEL_ID,
            "multilingual_model": MULTI_MODEL_ID,
            "method": WorkspaceFusion.Method.RRF,
            "parameters": PARAMETERS,
            "calibrated_at": timezone.now(),
        },
    )
    assert workspace_search_setup(workspace_id=str(workspace.pk)) == SearchSetup(
        LOCAL_MODEL_ID, MULTI_MODEL_ID, "rrf", PARAMETERS
    )

    # The workspace drops its multilingual side: the calibration measured another setup.
    WorkspaceEmbedding.objects.filter(workspace=workspace).update(multilingual_model="")
    assert workspace_search_setup(workspace_id=workspace.pk) == SearchSetup(
        LOCAL_MODEL_ID, "", None, {}
    )
