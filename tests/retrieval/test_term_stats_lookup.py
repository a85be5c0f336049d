"""The full-text statement reads a question's term statistics one primary-key probe per lexeme, whatever
the planner believes of the workspace: a workspace created after the last ANALYZE of rag_termstat is
estimated at one row, and as a plain join the statement then read all of its terms and filtered them
against each lexeme. Migration 0018 drops the statistics tables' index on workspace_id alone (their
primary keys, workspace first, serve those look-ups), forward and back."""

from __future__ import annotations

import io
import re

import pytest
from django.core.management import call_command
from django.db import connection

from bots.models import Bot
from core.models import Workspace
from rag.retrieval.sql import text_plan, text_rows
from tests.support.knowledge import document_ingested, hybrid_params

FRUIT = (
    "# Orchard\n\nThe orchard grows apples, pears and plums. Apples are picked in September.\n\n"
    "# Market\n\nPears sell at the Saturday market; plums go to the jam kitchen."
)
QUESTION = "When are the apples picked in the orchard?"
WORKSPACE_INDEXES = ("rag_termstat_workspace_id_32555297", "rag_corpusstat_workspace_id_e806b3eb")


def _workspace(slug: str) -> tuple[Workspace, Bot]:
    workspace = Workspace.objects.create(name=slug, slug=slug)
    bot = Bot.objects.create(workspace=workspace, name=f"{slug} bot")
    document_ingested(workspace=workspace, text=FRUIT, bots=[bot])
    return workspace, bot


def _statistics_indexes() -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT indexname FROM pg_indexes WHERE tablename IN ('rag_termstat', 'rag_corpusstat')"
        )
        return {name for (name,) in cursor.fetchall()}


def _termstat_scans(plan: str) -> list[str]:
    """Each scan of rag_termstat in the plan, with the condition line under it (an Index Cond, or a Filter
    where the test database's few rows make a sequential scan cheaper)."""
    lines = plan.splitlines()
    return [
        line.strip() + " | " + lines[number + 1].strip()
        for number, line in enumerate(lines)
        if re.search(r"\bon rag_termstat\b", line)
    ]


@pytest.mark.django_db
def test_a_workspace_the_statistics_have_not_seen_reads_each_lexeme_by_primary_key() -> None:
    crowded, _ = _workspace("crowded")
    with connection.cursor() as cursor:
        cursor.execute(
            "ANALYZE rag_termstat"
        )  # the statistics know one workspace: all rows are its
    fresh, bot = _workspace("fresh")  # estimated at one row from here on
    params = hybrid_params(workspace=fresh, bot=bot, question=QUESTION)
    scans = _termstat_scans(text_plan(params=params))
    assert scans  # the question's df and postings
    for (
        scan
    ) in scans:  # the lexeme is in the scan's own condition: a probe per lexeme, not a join filter
        assert "term = t.lexeme" in scan.split(" | ")[1], scan
    assert text_rows(params=params)  # and it still finds the orchard
    assert crowded.pk != fresh.pk


@pytest.mark.django_db(transaction=True)
def test_the_statistics_tables_keep_their_primary_keys_only_forward_and_back() -> None:
    assert _statistics_indexes() == {"rag_termstat_pkey", "rag_corpusstat_pkey"}
    out = io.StringIO()
    try:
        call_command("migrate", "rag", "0017", stdout=out)
        assert set(WORKSPACE_INDEXES) <= _statistics_indexes()
    finally:
        call_command(
            "migrate", stdout=out
        )  # every app: going back unapplied those that depend on rag
    assert _statistics_indexes() == {"rag_termstat_pkey", "rag_corpusstat_pkey"}
    workspace, bot = _workspace("after")
    rows = text_rows(params=hybrid_params(workspace=workspace, bot=bot, question=QUESTION))
    assert rows  # statistics written and read through the primary keys alone
