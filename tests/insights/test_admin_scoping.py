"""The insights admin pages are workspace-scoped: an owner reaches their bot's sets, runs and FAQ
candidates; a teammate of another workspace sees none of them and gets 404s, not their names."""

from __future__ import annotations

import pytest
from django.urls import reverse

from core.permissions import workspace_admins_group_ensure
from insights.models import EvaluationRun, EvaluationSet, FaqCandidate
from tests.insights.helpers import member_client
from tests.support.factories import BotFactory

pytestmark = pytest.mark.django_db


def test_owner_and_stranger() -> None:
    workspace_admins_group_ensure()
    bot = BotFactory(name="Secret bot")
    evaluation_set = EvaluationSet.objects.create(bot=bot, name="Secret set")
    run = EvaluationRun.objects.create(evaluation_set=evaluation_set, bot=bot, label="secret run")
    candidate = FaqCandidate.objects.create(bot=bot, question="Secret question?", answer="A.")
    owner, stranger = member_client(bot), member_client(BotFactory())

    pages = [
        reverse("admin:insights_evaluationset_change", args=[evaluation_set.pk]),
        reverse("admin:insights_evaluationset_import", args=[evaluation_set.pk]),
        reverse("admin:insights_evaluationset_run", args=[evaluation_set.pk]),
        reverse("admin:insights_evaluationset_export", args=[evaluation_set.pk, "jsonl"]),
        reverse("admin:insights_evaluationrun_change", args=[run.pk]),
        reverse("admin:insights_evaluationrun_compare") + f"?left={run.pk}&right={run.pk}",
        reverse("admin:insights_faqcandidate_change", args=[candidate.pk]),
        reverse("admin:insights_analytics", args=[bot.pk]),
    ]
    for url in pages:
        assert owner.get(url).status_code == 200, url
        assert stranger.get(url).status_code in (302, 404), url
    for changelist in ("evaluationset", "evaluationrun", "faqcandidate"):
        url = reverse(f"admin:insights_{changelist}_changelist")
        assert "Secret" in owner.get(url).content.decode()
        assert "Secret" not in stranger.get(url).content.decode()
