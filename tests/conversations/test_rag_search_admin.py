"""The rag_search executions admin: read-only, workspace-scoped (a member sees their workspace's executions and
gets the same answer as for a missing one elsewhere), filterable by model, status and date, and the database
refuses a half-written execution."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.db import IntegrityError, transaction
from django.test import Client
from django.utils import timezone

from conversations.models import RagSearchExecution
from core.models import Membership
from tests.support.factories import MembershipFactory, UserFactory

pytestmark = pytest.mark.django_db
LIST = "/admin/conversations/ragsearchexecution/"


def _execution(
    workspace, query: str, *, model: str = "offline", failed: bool = False
) -> RagSearchExecution:
    finished = (
        {"status": "failed", "error_code": "embedding_failed", "error_message": "refused"}
        if failed
        else {
            "status": "completed",
            "answer_status": "found_in_context",
            "response": f"About {query}.",
        }
    )
    return RagSearchExecution.objects.create(
        workspace=workspace, query=query, model=model, completed_at=timezone.now(), **finished
    )


@pytest.fixture
def tenancy() -> dict[str, object]:
    ours = MembershipFactory(role=Membership.Role.OWNER)
    theirs = MembershipFactory()
    return {
        "member": ours.user,
        "ours": _execution(ours.workspace, "ours-rental-price", model="gpt-4o-mini"),
        "ours_failed": _execution(ours.workspace, "ours-broken-search", failed=True),
        "theirs": _execution(theirs.workspace, "theirs-secret-plan"),
    }


def _client(user: object) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_a_member_browses_only_their_workspace_executions(tenancy: dict) -> None:
    client = _client(tenancy["member"])
    listing = client.get(LIST)
    assert listing.status_code == 200
    page = listing.content.decode()
    assert (
        "ours-rental-price" in page
        and "ours-broken-search" in page
        and "theirs-secret-plan" not in page
    )
    assert tenancy["ours"].execution_id in page

    context = {
        "rank": 1,
        "chunk_id": "c-1",
        "title": "Rental guide",
        "vector_score": 0.61234,
        "vector_rank": 1,
        "text_score": None,
        "text_rank": None,
        "fused_score": 0.0164,
        "used_in_response": True,
    }
    RagSearchExecution.objects.filter(pk=tenancy["ours"].pk).update(contexts=[context])
    detail = client.get(f"{LIST}{tenancy['ours'].pk}/change/")
    assert detail.status_code == 200 and "ours-rental-price" in detail.content.decode()
    table = detail.content.decode().split('id="execution-contexts"')[1].split("</table>")[0]
    assert (
        "Rental guide" in table
        and "0.6123 (1)" in table
        and "0.0164" in table
        and "<td>yes</td>" in table
    )
    theirs, missing = (
        client.get(f"{LIST}{tenancy['theirs'].pk}/change/"),
        client.get(f"{LIST}{uuid.uuid4()}/change/"),
    )
    assert (
        theirs.status_code == missing.status_code == 302
    )  # the admin's answer for an object it cannot find


def test_the_admin_is_read_only(tenancy: dict) -> None:
    client = _client(UserFactory(is_superuser=True))
    assert client.get(f"{LIST}add/").status_code == 403
    page = client.get(f"{LIST}{tenancy['ours'].pk}/change/").content.decode()
    assert 'name="_save"' not in page
    assert client.post(f"{LIST}{tenancy['ours'].pk}/delete/", {"post": "yes"}).status_code == 403
    assert RagSearchExecution.objects.count() == 3


def test_a_superuser_sees_every_workspace_and_filters_by_model_status_and_date(
    tenancy: dict,
) -> None:
    client = _client(UserFactory(is_superuser=True))
    assert "theirs-secret-plan" in client.get(LIST).content.decode()

    by_model = client.get(LIST, {"model": "gpt-4o-mini"}).content.decode()
    assert "ours-rental-price" in by_model and "ours-broken-search" not in by_model
    by_status = client.get(LIST, {"status__exact": "failed"}).content.decode()
    assert "ours-broken-search" in by_status and "ours-rental-price" not in by_status
    RagSearchExecution.objects.filter(pk=tenancy["theirs"].pk).update(
        created_at=timezone.now() - timedelta(days=40)
    )
    midnight = timezone.localtime().replace(hour=0, minute=0, second=0, microsecond=0)
    today = {
        "created_at__gte": str(midnight),
        "created_at__lt": str(midnight + timedelta(days=1)),
    }  # "Today"
    recent = client.get(LIST, today).content.decode()
    assert "ours-rental-price" in recent and "theirs-secret-plan" not in recent
    day = timezone.localdate()
    drill = {
        "created_at__year": day.year,
        "created_at__month": day.month,
        "created_at__day": day.day,
    }
    drilled = client.get(LIST, drill).content.decode()
    assert "ours-rental-price" in drilled and "theirs-secret-plan" not in drilled


def test_the_database_refuses_a_half_written_execution(tenancy: dict) -> None:
    workspace = tenancy["ours"].workspace
    broken = [
        {"status": "failed", "completed_at": timezone.now()},  # failed without its error
        {"status": "completed", "completed_at": timezone.now()},  # completed without an answer
        {"status": "running", "completed_at": timezone.now()},  # finished but still running
        {"execution_id": "exec_123"},  # not the spec's shape
    ]
    for fields in broken:
        with pytest.raises(IntegrityError), transaction.atomic():
            RagSearchExecution.objects.create(workspace=workspace, query="q", **fields)
