"""Knowledge gaps: failed questions embedded with the local model and clustered; the page lists
each cluster with its size, examples and a link to exactly its turns."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from conversations.models import Conversation, Turn
from core.permissions import workspace_admins_group_ensure
from insights.models import EvaluationSet, GapClustering
from insights.services.cases_io import CaseData
from insights.services.gaps import (
    gap_clustering_compute,
    gap_clustering_request,
    gap_clusters_coverage_refresh,
)
from insights.services.runs import evaluation_run_create, evaluation_run_execute
from insights.services.sets import evaluation_cases_add
from tests.insights.helpers import turn_answered
from tests.support.factories import BotFactory, MembershipFactory
from tests.support.knowledge import document_ingested

pytestmark = pytest.mark.django_db

SHIPPING = [
    "Do you ship to Canada?",
    "Can you deliver my order to Canada?",
    "Is shipping to Canada possible?",
    "Do you ship to Canada?",  # asked twice: embedded once, both turns in the cluster
]
PASSWORD = [
    "How do I reset my password?",
    "I forgot my password, how can I reset it?",
    "Password reset instructions please",
]


def test_failed_questions_are_clustered_by_meaning_and_listed_with_their_turns() -> None:
    bot = BotFactory()
    conversation = Conversation.objects.create(bot=bot, channel="widget")
    for n, text in enumerate(SHIPPING):
        turn_answered(conversation, n, text, "not_found_in_context", 0.1)
    for n, text in enumerate(PASSWORD, start=10):
        turn_answered(
            conversation, n, text, "found_in_context", 0.2
        )  # found, but below the threshold
    turn_answered(
        conversation, 20, "What are your opening hours?", "found_in_context", 0.95
    )  # no gap
    now = timezone.now()
    clustering = gap_clustering_request(
        bot_id=bot.pk, start=now - timedelta(days=1), end=now + timedelta(days=1)
    )
    assert gap_clustering_compute(clustering_id=clustering.pk)
    assert not gap_clustering_compute(clustering_id=clustering.pk)  # a second delivery: no-op
    clustering.refresh_from_db()
    assert clustering.status == GapClustering.Status.COMPLETED and clustering.questions == 7
    clusters = list(clustering.clusters.all())
    groups = sorted(sorted(t.user_text for t in cluster.turns.all()) for cluster in clusters)
    assert groups == sorted([sorted(PASSWORD), sorted(SHIPPING)])
    biggest = clusters[0]
    assert biggest.size == 4 and biggest.label in SHIPPING and len(biggest.examples) == 3

    workspace_admins_group_ensure()
    client = Client()
    client.force_login(MembershipFactory(workspace=bot.workspace).user)
    page = client.get(reverse("admin:insights_analytics", args=[bot.pk])).content.decode()
    assert biggest.label in page
    listed = client.get(
        reverse("admin:insights_analyzedturn_changelist"),
        {"bot": bot.pk, "gap_cluster": biggest.pk},
    )
    assert listed.context["cl"].result_count == 4

    # Later, the bot answers a shipping question from a new document: that gap is covered, the
    # password one is not.
    later = turn_answered(
        conversation, 30, "Can I get my bike shipped to Canada?", "found_in_context", 0.9
    )
    Turn.objects.filter(pk=later.pk).update(created_at=now + timedelta(days=2))
    assert gap_clusters_coverage_refresh(bot_id=bot.pk) == 1
    covered = {c.label: (c.covered_at, c.covered_by) for c in clustering.clusters.all()}
    assert covered[biggest.label][0] is not None and covered[biggest.label][1] == "turn"
    assert [at for label, at in covered.items() if label != biggest.label] == [(None, "")]


def test_a_later_evaluation_run_that_finds_an_answer_covers_a_gap() -> None:
    bot = BotFactory()
    document_ingested(
        workspace=bot.workspace,
        text="# Passwords\n\nTo reset your password, click 'Forgot password' on the login page.",
        bots=[bot],
    )
    conversation = Conversation.objects.create(bot=bot, channel="widget")
    for n, text in enumerate(PASSWORD):
        turn_answered(conversation, n, text, "not_found_in_context", 0.1)
    now = timezone.now()  # the clustered period ends before the run
    clustering = gap_clustering_request(bot_id=bot.pk, start=now - timedelta(days=1), end=now)
    assert gap_clustering_compute(clustering_id=clustering.pk)
    cluster = clustering.clusters.get()
    assert cluster.covered_at is None
    evaluation_set = EvaluationSet.objects.create(bot=bot, name="passwords")
    evaluation_cases_add(
        set_id=evaluation_set.pk,
        cases=[
            CaseData(question="How can I reset my password?", expected_status="found_in_context")
        ],
    )
    run = evaluation_run_create(set_id=evaluation_set.pk, enqueue=False)
    assert evaluation_run_execute(run_id=run.pk) == "completed"
    assert run.results.get().status == "found_in_context"
    cluster.refresh_from_db()
    assert cluster.covered_by == "evaluation_run" and cluster.covered_at is not None
