"""Roles decide per workspace: one person with different roles in two workspaces gets each workspace's
rights on its own rows (pages, forms, actions, the agent console), and the upgrade's mapping of members
to owners keeps what members could do and goes back."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client

from api.models import ServerApiKey
from api.services import server_api_key_create
from conversations.models import Conversation, CuratedAnswer, Turn
from core.models import Membership, Workspace
from core.permissions import MEMBER_GRANTS_BEFORE_ROLES, ROLE_GRANTS, role_allows
from handoff.models import HandoffReason
from handoff.services import handoff_open
from insights.models import EvaluationRun, EvaluationSet
from tests.support.factories import BotFactory, MembershipFactory, UserFactory, WorkspaceFactory

Role = Membership.Role


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def two(db: None) -> dict[str, Any]:
    """Workspace A and B, each with a bot, a conversation with a turn, a key and an evaluation run."""
    made: dict[str, Any] = {}
    for label in ("a", "b"):
        workspace = WorkspaceFactory(name=f"Workspace {label}")
        bot = BotFactory(workspace=workspace, name=f"Bot {label}")
        conversation = Conversation.objects.create(bot=bot, channel="api", visitor_id=label)
        evaluation_set = EvaluationSet.objects.create(bot=bot, name=f"set {label}")
        made[label] = {
            "workspace": workspace,
            "bot": bot,
            "conversation": conversation,
            "turn": Turn.objects.create(
                conversation=conversation, client_message_id="m1", user_text=f"question {label}"
            ),
            "key": server_api_key_create(workspace=workspace, name=f"key {label}")[0],
            "set": evaluation_set,
            "run": EvaluationRun.objects.create(evaluation_set=evaluation_set, bot=bot),
        }
    return made


def _person(two: dict[str, Any], role_a: str, role_b: str) -> Any:
    user = UserFactory()
    MembershipFactory(user=user, workspace=two["a"]["workspace"], role=role_a)
    MembershipFactory(user=user, workspace=two["b"]["workspace"], role=role_b)
    return user


def test_an_editor_here_and_an_analyst_there_gets_each_workspaces_rights(two: dict) -> None:
    client = _client(_person(two, Role.EDITOR, Role.ANALYST))
    bot_a, bot_b = two["a"]["bot"], two["b"]["bot"]
    assert client.get(f"/admin/bots/bot/{bot_a.pk}/change/").status_code == 200
    assert client.get(f"/admin/bots/bot/{bot_b.pk}/change/")["Location"] == "/admin/"  # hidden
    turns = client.get("/admin/conversations/turn/").content.decode()
    assert "question b" in turns and "question a" not in turns
    # The curated answer's form offers the bots of the workspace where the role may add one.
    form = client.get("/admin/conversations/curatedanswer/add/").content.decode()
    assert str(bot_a.pk) in form and str(bot_b.pk) not in form
    refused = client.post(
        "/admin/conversations/curatedanswer/add/",
        {"bot": bot_b.pk, "question": "q", "answer": "a", "enabled": "on"},
    )
    assert refused.status_code in {200, 403} and not CuratedAnswer.objects.exists()
    # Analytics: read in B, where the role is analyst; a 404 in A, as for a stranger's bot.
    assert client.get(f"/admin/insights/analyzedturn/analytics/{bot_b.pk}/").status_code == 200
    assert client.get(f"/admin/insights/analyzedturn/analytics/{bot_a.pk}/").status_code == 404


def test_an_owner_here_and_an_analyst_there_only_reads_there(two: dict) -> None:
    client = _client(_person(two, Role.OWNER, Role.ANALYST))
    set_a, set_b = two["a"]["set"], two["b"]["set"]
    read_only = client.get(f"/admin/insights/evaluationset/{set_b.pk}/change/")
    assert read_only.status_code == 200 and 'name="_save"' not in read_only.content.decode()
    assert (
        'name="_save"'
        in client.get(f"/admin/insights/evaluationset/{set_a.pk}/change/").content.decode()
    )
    post = client.post(f"/admin/insights/evaluationset/{set_b.pk}/change/", {"name": "renamed"})
    assert post.status_code == 403
    assert client.get(f"/admin/insights/evaluationset/{set_b.pk}/delete/").status_code == 403
    assert client.get(f"/admin/insights/evaluationset/{set_b.pk}/import/").status_code == 403
    assert client.get(f"/admin/insights/evaluationset/{set_b.pk}/export/csv/").status_code == 200
    assert client.get(f"/admin/insights/evaluationset/{set_a.pk}/import/").status_code == 200
    EvaluationSet.objects.filter(pk=set_b.pk).update(name="set b")
    assert EvaluationSet.objects.get(pk=set_b.pk).name == "set b"


def test_an_action_receives_only_the_rows_its_grant_covers(two: dict) -> None:
    """Runs of both workspaces are listed (owner in A, analyst in B); deleting the two selected deletes
    only A's, the workspace where the role grants delete."""
    client = _client(_person(two, Role.OWNER, Role.ANALYST))
    run_a, run_b = two["a"]["run"], two["b"]["run"]
    listing = client.get("/admin/insights/evaluationrun/").content.decode()
    assert str(run_a.pk) in listing and str(run_b.pk) in listing
    client.post(
        "/admin/insights/evaluationrun/",
        {"action": "delete_selected", "_selected_action": [run_a.pk, run_b.pk], "post": "yes"},
    )
    assert not EvaluationRun.objects.filter(pk=run_a.pk).exists()
    assert EvaluationRun.objects.filter(pk=run_b.pk).exists()


def test_an_action_no_role_grants_is_not_offered(two: dict) -> None:
    """An editor lists no keys; an analyst in the key's workspace can neither list nor revoke them."""
    client = _client(_person(two, Role.ANALYST, Role.EDITOR))
    key = two["a"]["key"]
    assert client.get("/admin/api/serverapikey/").status_code == 403
    client.post("/admin/api/serverapikey/", {"action": "revoke", "_selected_action": [key.pk]})
    assert ServerApiKey.objects.get(pk=key.pk).revoked_at is None


def test_owners_manage_members_of_their_workspace_only(two: dict) -> None:
    owner = _person(two, Role.OWNER, Role.EDITOR)
    client = _client(owner)
    newcomer = UserFactory(is_staff=False)
    for workspace, expected in ((two["b"]["workspace"], False), (two["a"]["workspace"], True)):
        client.post(
            "/admin/core/membership/add/",
            {"workspace": workspace.pk, "user": newcomer.pk, "role": Role.ANALYST},
        )
        assert Membership.objects.filter(user=newcomer, workspace=workspace).exists() is expected
    newcomer.refresh_from_db()
    assert newcomer.is_staff


@pytest.mark.parametrize(
    ("role", "opens"),
    [(Role.AGENT, True), (Role.OWNER, True), (Role.EDITOR, False), (Role.ANALYST, False)],
)
def test_the_console_opens_to_the_roles_the_table_names(two: dict, role: str, opens: bool) -> None:
    user = UserFactory()
    MembershipFactory(user=user, workspace=two["a"]["workspace"], role=role)
    client = _client(user)
    assert (client.get("/agent/").status_code == 200) is opens
    assert (client.get("/agent/api/queue").status_code == 200) is opens


def test_an_agent_here_and_an_editor_there_answers_here_only(two: dict) -> None:
    user = _person(two, Role.AGENT, Role.EDITOR)
    for label in ("a", "b"):
        handoff_open(
            conversation_id=two[label]["conversation"].pk, reason=HandoffReason.VISITOR_REQUEST
        )
    client = _client(user)
    queue = client.get("/agent/api/queue").json()["conversations"]
    assert [row["conversation_id"] for row in queue] == [str(two["a"]["conversation"].pk)]
    base = "/agent/api/conversations"
    assert client.get(f"{base}/{two['a']['conversation'].pk}").status_code == 200
    assert client.get(f"{base}/{two['b']['conversation'].pk}").status_code == 404
    # An agent sees nothing in the admin.
    only_agent = UserFactory()
    MembershipFactory(user=only_agent, workspace=two["a"]["workspace"], role=Role.AGENT)
    agent_client = _client(only_agent)
    for page in ("conversations/turn", "bots/bot", "api/serverapikey", "core/membership"):
        assert agent_client.get(f"/admin/{page}/").status_code == 403


def test_the_owner_keeps_all_a_member_could_do() -> None:
    for key, verbs in MEMBER_GRANTS_BEFORE_ROLES.items():
        for verb in verbs:
            assert role_allows(role=Role.OWNER, key=key, verb=verb), (key, verb)
    assert set(ROLE_GRANTS) == set(Role.values)


def test_an_unknown_role_is_refused_by_the_database(two: dict) -> None:
    from django.db import IntegrityError, transaction

    with pytest.raises(IntegrityError), transaction.atomic():
        Membership.objects.create(
            user=UserFactory(), workspace=two["a"]["workspace"], role="member"
        )


@pytest.mark.django_db(transaction=True)
def test_the_migration_makes_members_owners_and_goes_back() -> None:
    executor = MigrationExecutor(connection)
    before, after = [("core", "0002_workspace_privacy")], [("core", "0003_membership_roles")]
    try:
        executor.migrate(before)
        old = MigrationExecutor(connection).loader.project_state(before).apps
        workspace = old.get_model("core", "Workspace").objects.create(name="Old", slug="old")
        user_model = old.get_model("auth", "User")
        member = user_model.objects.create(username="member", is_staff=True)
        owner = user_model.objects.create(username="owner", is_staff=True)
        memberships = old.get_model("core", "Membership").objects
        memberships.create(workspace=workspace, user=member, role="member")
        memberships.create(workspace=workspace, user=owner, role="owner")
        MigrationExecutor(connection).migrate(after)
        roles = dict(Membership.objects.values_list("user__username", "role"))
        assert roles == {"member": "owner", "owner": "owner"}
        Membership.objects.filter(user__username="member").update(role=Role.ANALYST)
        MigrationExecutor(connection).migrate(before)
        back = dict(memberships.values_list("user__username", "role"))
        assert back == {"member": "member", "owner": "owner"}
    finally:
        # Every app: going back to core 0002 also unapplied the other apps' migrations that depend on
        # core 0003, which `migrate core` alone would leave unapplied for the tests after this one.
        call_command("migrate", verbosity=0)
    assert Workspace.objects.filter(slug="old").exists()
