"""The fusion calibration on a workspace's admin page: its figures, the Recalibrate button (POST with CSRF,
queued after commit), and a member seeing and recalibrating only their own workspace."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from core.models import Membership, Workspace
from rag.models import WorkspaceFusion
from rag.tasks import workspace_fusion_calibrate_task

pytestmark = pytest.mark.django_db

CANDIDATES = [
    {
        "method": "convex",
        "label": "convex min-max, vector share 0.3",
        "parameters": {"vector_share": 0.3},
        "fit": {"recall_at_5": 0.8, "mrr": 0.6},
        "held_out": {"recall_at_5": 0.75, "mrr": 0.55},
    }
]


def _member_client(workspace: Workspace) -> Client:
    user = get_user_model().objects.create_user(
        f"member-{workspace.slug}", password="pw-123-long", is_staff=True
    )
    Membership.objects.create(workspace=workspace, user=user, role=Membership.Role.OWNER)
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    return client


def _calibrated(workspace: Workspace) -> WorkspaceFusion:
    return WorkspaceFusion.objects.create(
        workspace=workspace,
        method="convex",
        parameters={"vector_share": 0.3},
        recall_at_5=0.75,
        mrr=0.55,
        vector_recall_at_5=0.5,
        text_recall_at_5=0.7,
        candidates=CANDIDATES,
        pair_count=120,
        held_out_count=58,
        pair_source=WorkspaceFusion.Source.SYNTHETIC,
        embedding_model="local/all-MiniLM-L6-v2",
        chunk_count=400,
        calibrated_at=timezone.now(),
    )


def test_the_workspace_page_shows_the_figures_and_the_button_queues_a_run(
    django_capture_on_commit_callbacks, monkeypatch
) -> None:
    sent: list[str] = []
    monkeypatch.setattr(
        workspace_fusion_calibrate_task, "apply_async", lambda args, *_, **__: sent.append(args[0])
    )
    mine = Workspace.objects.create(name="Mine", slug="mine")
    theirs = Workspace.objects.create(name="Theirs", slug="theirs")
    _calibrated(mine)
    client = _member_client(mine)
    page = client.get(f"/admin/core/workspace/{mine.pk}/change/")
    html = page.content.decode()
    assert page.status_code == 200
    assert "convex min-max, vector share 0.3" in html and ">0.750<" in html
    assert "vector side alone 0.500" in html and "full-text side alone 0.700" in html
    assert "120 pairs" in html and 'id="fusion-recalibrate"' in html
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)
    assert token is not None
    url = f"/admin/rag/workspacefusion/{mine.pk}/recalibrate/"
    assert client.post(url).status_code == 403  # no CSRF token
    assert client.get(url).status_code == 405  # POST only
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url, {"csrfmiddlewaretoken": token.group(1)})
    assert response.status_code == 302 and response["Location"].endswith(f"/{mine.pk}/change/")
    assert sent == [str(mine.pk)] and WorkspaceFusion.objects.get(pk=mine.pk).queued_at
    with django_capture_on_commit_callbacks(execute=True):
        client.post(url, {"csrfmiddlewaretoken": token.group(1)})
    assert sent == [str(mine.pk)]  # already queued
    # another tenant's workspace: neither its page nor its button
    assert client.get(f"/admin/core/workspace/{theirs.pk}/change/").status_code == 302
    stranger = f"/admin/rag/workspacefusion/{theirs.pk}/recalibrate/"
    assert client.post(stranger, {"csrfmiddlewaretoken": token.group(1)}).status_code == 404
    assert sent == [str(mine.pk)] and not WorkspaceFusion.objects.filter(pk=theirs.pk).exists()
    listing = client.get("/admin/rag/workspacefusion/").content.decode()
    assert "Mine" in listing and "Theirs" not in listing


def test_an_uncalibrated_workspace_says_the_defaults_apply() -> None:
    workspace = Workspace.objects.create(name="Fresh", slug="fresh")
    html = _member_client(workspace).get(f"/admin/core/workspace/{workspace.pk}/change/")
    text = html.content.decode()
    assert "Not calibrated yet" in text and "RRF k=10 vector:multilingual:text=1:0.5:0.5" in text
    assert 'id="fusion-recalibrate"' in text
