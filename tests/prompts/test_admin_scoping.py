"""An admin sees and edits only their workspace's bots; a teammate shares them; a stranger gets 404s."""

from __future__ import annotations

import uuid

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from core.models import Membership
from tests.support.factories import BotFactory, MembershipFactory, UserFactory


@pytest.fixture
def tenancy(db: None) -> dict[str, object]:
    owner = MembershipFactory(role=Membership.Role.OWNER)
    teammate = MembershipFactory(workspace=owner.workspace, role=Membership.Role.OWNER)
    stranger = MembershipFactory()  # owner of another workspace
    return {
        "bot": BotFactory(workspace=owner.workspace, name="Ours"),
        "other_bot": BotFactory(workspace=stranger.workspace, name="Theirs"),
        "owner": owner.user,
        "teammate": teammate.user,
        "stranger": stranger.user,
    }


def _client(user: object) -> Client:
    client = Client()
    client.force_login(user)
    return client


BOT_PAGES = ["change/", "preview/", "templates/answer/", "context/export/", "context/import/"]


@pytest.mark.parametrize("who", ["owner", "teammate"])
def test_members_see_and_open_their_workspace_bots_only(tenancy: dict, who: str) -> None:
    client = _client(tenancy[who])
    listing = client.get("/admin/bots/bot/").content.decode()
    assert "Ours" in listing and "Theirs" not in listing
    for page in BOT_PAGES:
        assert client.get(f"/admin/bots/bot/{tenancy['bot'].pk}/{page}").status_code == 200, page


def test_a_stranger_gets_not_found_for_another_workspace_bot(tenancy: dict) -> None:
    client = _client(tenancy["stranger"])
    missing = uuid.uuid4()
    for page in BOT_PAGES:
        theirs = client.get(f"/admin/bots/bot/{tenancy['bot'].pk}/{page}")
        nothing = client.get(f"/admin/bots/bot/{missing}/{page}")
        # the same answer as for a bot that does not exist: Django's admin redirects its change page
        assert theirs.status_code == nothing.status_code == (302 if page == "change/" else 404), (
            page
        )
    assert "Ours" not in client.get("/admin/bots/bot/").content.decode()
    workspace_id = tenancy["bot"].workspace_id
    assert (
        client.get(f"/admin/core/workspace/{workspace_id}/change/").status_code == 302
    )  # redirected: not found
    assert (
        tenancy["bot"].workspace.name not in client.get("/admin/core/workspace/").content.decode()
    )


def test_a_stranger_cannot_create_a_bot_in_another_workspace(tenancy: dict) -> None:
    from tests.prompts.admin_data import bot_form_data

    client = _client(tenancy["stranger"])
    response = client.post(
        "/admin/bots/bot/add/", bot_form_data(workspace_id=tenancy["bot"].workspace_id)
    )
    assert response.status_code == 200 and "Select a valid choice" in response.content.decode()


def test_the_workspace_filter_lists_only_the_users_workspaces(tenancy: dict) -> None:
    page = _client(tenancy["owner"]).get("/admin/bots/bot/").content.decode()
    assert tenancy["bot"].workspace.name in page and tenancy["other_bot"].workspace.name not in page


def test_a_superuser_sees_every_workspace(tenancy: dict) -> None:
    root = get_user_model().objects.create_superuser(
        "root", "root@example.com", "a-long-passphrase-42"
    )
    listing = _client(root).get("/admin/bots/bot/").content.decode()
    assert "Ours" in listing and "Theirs" in listing


def test_membership_is_what_grants_admin_permissions(tenancy: dict) -> None:
    loner = UserFactory()  # staff, but in no workspace
    assert _client(loner).get("/admin/bots/bot/").status_code == 403
    owner = get_user_model().objects.get(pk=tenancy["owner"].pk)
    assert owner.has_perm("bots.change_bot") and owner.has_perm("prompt_context.add_topic")
    assert not owner.has_perm("core.add_workspace")


def test_adding_a_membership_in_the_admin_makes_the_user_staff(tenancy: dict) -> None:
    root = get_user_model().objects.create_superuser(
        "root", "root@example.com", "a-long-passphrase-42"
    )
    newcomer = UserFactory(is_staff=False)
    response = _client(root).post(
        "/admin/core/membership/add/",
        {"workspace": str(tenancy["bot"].workspace_id), "user": str(newcomer.pk), "role": "editor"},
    )
    assert response.status_code == 302
    newcomer.refresh_from_db()
    assert newcomer.is_staff
    assert _client(newcomer).get(f"/admin/bots/bot/{tenancy['bot'].pk}/change/").status_code == 200


def test_permissions_from_a_users_own_groups_still_apply(db: None) -> None:
    from django.contrib.auth.models import Group, Permission

    auditor = UserFactory()
    group = Group.objects.create(name="Auditors")
    group.permissions.add(Permission.objects.get(codename="view_workspace"))
    auditor.groups.add(group)
    auditor = get_user_model().objects.get(pk=auditor.pk)
    assert auditor.has_perm("core.view_workspace") and not auditor.has_perm("bots.view_bot")


def test_a_superuser_filters_the_bot_list_by_workspace(tenancy: dict) -> None:
    root = get_user_model().objects.create_superuser(
        "root", "root@example.com", "a-long-passphrase-42"
    )
    page = (
        _client(root)
        .get(f"/admin/bots/bot/?workspace={tenancy['bot'].workspace_id}")
        .content.decode()
    )
    assert "Ours" in page and "Theirs" not in page
    searched = _client(root).get("/admin/bots/bot/?q=Theirs").content.decode()
    assert "Theirs" in searched and ">Ours<" not in searched
