"""Every registered admin URL, as each workspace role, a staff user with no membership and a superuser:
the answer (refused or not) is what core.permissions.ROLE_GRANTS, the table docs/roles.md shows, says.

The URLs come from the admin site itself (each model admin's get_urls(), custom views included, and
each app's index), so a page added later is walked without editing this test; a custom view must name
its grant (WorkspaceScopedAdmin.role_view) or this test fails.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.core.files.base import ContentFile
from django.test import Client

from api.services import bot_signing_secret_create, server_api_key_create, widget_key_create
from bots.models import Bot
from connectors.models import Channel
from conversations.models import (
    Conversation,
    CuratedAnswer,
    CuratedAnswerPolicy,
    RagSearchExecution,
    SecurityEvent,
    Turn,
)
from core.admin_scoping import WorkspaceScopedAdmin
from core.models import Membership, Workspace
from core.permissions import ROLE_GRANTS, role_allows
from handoff.models import HandoffPolicy, TurnFeedback
from insights.models import EvaluationRun, EvaluationSet, FaqCandidate
from privacy.models import VisitorErasure
from rag.models import Chunk, WorkspaceFusion
from rag.services import document_create
from sources.models import Source
from tests.support.factories import BotFactory, MembershipFactory, UserFactory
from widget.models import WidgetAppearance

# The verb each of Django's own model admin pages needs for a GET.
STANDARD_PAGES = {
    "changelist": "view",
    "add": "add",
    "change": "view",  # a read-only page for view, a form for change
    "history": "view",
    "delete": "delete",
}
SAMPLES = {
    "uuid": lambda: str(uuid.uuid4()),
    "path": lambda: str(uuid.uuid4()),
    "str": lambda: "csv",
}
SAMPLES["int"] = lambda: "999999"


def rows_make(workspace: Workspace, user: Any) -> None:
    """One row of each workspace model the admin shows, so object pages are walked on a real object
    (Django answers some of them "not found" before it checks a permission)."""
    bot = BotFactory(workspace=workspace)
    document = document_create(
        workspace=workspace,
        file=ContentFile(b"text", name="manual.txt"),
        title="Manual",
        bots=[bot],
    )
    Chunk.objects.create(
        document=document,
        workspace=workspace,
        ordinal=0,
        text="text",
        embedding=[0.0] * 384,
        embedding_dims=384,
        embedding_model="walk",
        search_length=1,
    )
    WorkspaceFusion.objects.create(workspace=workspace)
    conversation = Conversation.objects.create(bot=bot, channel="api", visitor_id="v1")
    turn = Turn.objects.create(conversation=conversation, client_message_id="m1", user_text="hi")
    SecurityEvent.objects.create(
        conversation=conversation, turn=turn, kind="injection", excerpt="x"
    )
    RagSearchExecution.objects.create(workspace=workspace, query="q")
    TurnFeedback.objects.create(turn=turn, rating="up")
    HandoffPolicy.objects.create(bot=bot)
    WidgetAppearance.objects.create(bot=bot)
    server_api_key_create(workspace=workspace, name="walk")
    widget_key_create(bot=bot, name="walk", allowed_origins=["https://walk.example"])
    bot_signing_secret_create(bot=bot)
    evaluation_set = EvaluationSet.objects.create(bot=bot, name="walk")
    EvaluationRun.objects.create(evaluation_set=evaluation_set, bot=bot)
    FaqCandidate.objects.create(bot=bot, question="q", answer="a")
    CuratedAnswer.objects.create(bot=bot, question="q", answer="a")
    CuratedAnswerPolicy.objects.create(bot=bot)
    VisitorErasure.objects.create(
        workspace=workspace, subject_kind="conversation", subject_digest="d"
    )
    Channel.objects.create(bot=bot, kind="slack", name="walk")
    Source.objects.create(
        workspace=workspace,
        name="walk",
        kind="git",
        config={"repository_url": "https://g.example/r"},
    )


@dataclass(frozen=True)
class AdminUrl:
    name: str
    url: str
    key: tuple[str, str]  # the grant's (app label, model name)
    verb: str
    scoped: bool  # a WorkspaceScopedAdmin's page (others: no role grants anything)
    custom: bool  # a page of the admin's own, not one of Django's
    real_row: bool  # the object id is a row's (not a made-up id)


def _fill(route: str, object_id: str | None) -> str:
    """The route with its parameters given: the model's own row for the object id when there is one,
    the walk's bot, workspace or chunk for theirs."""
    rows = {"bot_id": Bot, "workspace_id": Workspace, "chunk_id": Chunk}

    def value(match: re.Match[str]) -> str:
        name = match.group(2)
        if name in {"object_id", "pk"} and object_id is not None:
            return object_id
        if name in rows:
            return str(rows[name].objects.values_list("pk", flat=True).first())
        if name == "kind":
            return "answer"
        return SAMPLES[match.group(1) or "str"]()

    return re.sub(r"<(?:(\w+):)?(\w+)>", value, route)


def admin_urls() -> list[AdminUrl]:
    urls = []
    for model, model_admin in admin.site._registry.items():
        opts = model._meta
        base = f"/admin/{opts.app_label}/{opts.model_name}/"
        row = model._default_manager.order_by("pk").first()
        object_id = str(row.pk) if row is not None else None
        for pattern in model_admin.get_urls():
            if pattern.name is None:  # "<id>/": Django's redirect to the change page
                continue
            name = pattern.name
            suffix = pattern.name.rsplit("_", 1)[-1]
            grant = getattr(pattern.callback, "role_grant", None)
            if grant is not None:
                key, verb = (grant[0], grant[1]), grant[2]
            elif suffix in STANDARD_PAGES and pattern.name.startswith(
                f"{opts.app_label}_{opts.model_name}_"
            ):
                key, verb = (opts.app_label, opts.model_name or ""), STANDARD_PAGES[suffix]
            else:
                assert not isinstance(model_admin, WorkspaceScopedAdmin), (
                    f"{pattern.name}: a custom view of a scoped admin names its grant (role_view)"
                )
                key, verb = (opts.app_label, opts.model_name or ""), "change"
            urls.append(
                AdminUrl(
                    name=name,
                    url=base + _fill(str(pattern.pattern), object_id),
                    key=key,
                    verb=verb,
                    scoped=role_scoped(model_admin),
                    custom=grant is not None,
                    real_row=object_id is not None or "object_id" not in str(pattern.pattern),
                )
            )
    return urls


def role_scoped(model_admin: Any) -> bool:
    """An admin whose rows follow the role table: a WorkspaceScopedAdmin, or one that scopes its rows
    through the same table by its own lookup (`role_scoped`: the audit trail's workspaces array)."""
    return isinstance(model_admin, WorkspaceScopedAdmin) or getattr(
        model_admin, "role_scoped", False
    )


def expected_allowed(role: str | None, page: AdminUrl) -> bool:
    if role is None or not page.scoped:
        return False
    granted = role_allows(role=role, key=page.key, verb=page.verb)
    # Django opens the change page read-only to a change permission as to a view permission.
    return granted or (page.verb == "view" and role_allows(role=role, key=page.key, verb="change"))


@pytest.fixture
def people(db: None) -> dict[str, Any]:
    owner = MembershipFactory(role=Membership.Role.OWNER)
    rows_make(owner.workspace, owner.user)
    users: dict[str, Any] = {"owner": owner.user}
    for role in ROLE_GRANTS:
        if role != Membership.Role.OWNER:
            users[role] = MembershipFactory(workspace=owner.workspace, role=role).user
    users["no membership"] = UserFactory(is_staff=True)
    users["superuser"] = get_user_model().objects.create_superuser(
        "root", "root@example.com", "a-long-passphrase-42"
    )
    return users


def _status(client: Client, url: str) -> int:
    return client.get(url).status_code


def refused(client: Client, url: str) -> bool:
    """Refused: 403, or the row hidden as if missing (Django's redirect to the index, a 404), which
    tells nothing of the row."""
    response = client.get(url)
    if response.status_code >= 500:
        raise AssertionError(f"{url}: {response.status_code}")
    hidden = response.status_code == 302 and response["Location"] == "/admin/"
    return response.status_code in {403, 404} or hidden


def test_every_admin_url_is_walked_on_a_real_row(people: dict[str, Any]) -> None:
    urls = admin_urls()
    names = {page.url.split("/")[3] for page in urls}
    assert len(urls) > 100 and {"bot", "document", "serverapikey", "membership"} <= names
    without_row = {
        model._meta.label_lower
        for model in admin.site._registry
        if not model._default_manager.exists()
    }
    # Outbox messages need a channel thread; the superuser-only model settings have no row either, nor
    # the single sign-on identities (made by a sign-in through a provider).
    assert without_row <= {
        "connectors.outboxmessage",
        "sso.oidcidentity",
        "rag.workspaceembedding",
        "rag.workspacemediamodels",
        "auth.group",
    }


def test_the_superuser_is_refused_only_what_no_admin_offers(people: dict[str, Any]) -> None:
    """A page Django refuses even to a superuser (e.g. adding a turn) is granted by no role either, so
    the table never promises what the admin does not do, unless a custom page needs that grant (the
    evaluation set's Run page creates the run the add page does not)."""
    urls = admin_urls()
    custom = {(*page.key, page.verb) for page in urls if page.custom}
    client = Client()
    client.force_login(people["superuser"])
    for page in urls:
        if not page.real_row or (*page.key, page.verb) in custom:
            continue
        if refused(client, page.url):
            granting = [role for role in ROLE_GRANTS if expected_allowed(role, page)]
            assert not granting, f"{page.url}: refused to a superuser, granted to {granting}"


@pytest.mark.parametrize("who", [*ROLE_GRANTS, "no membership"])
def test_each_role_gets_what_the_table_says_on_every_admin_url(
    people: dict[str, Any], who: str
) -> None:
    root, client = Client(), Client()
    root.force_login(people["superuser"])
    client.force_login(people[who])
    role = who if who in ROLE_GRANTS else None
    wrong = []
    for page in admin_urls():
        # What Django offers nobody (adding a turn), the table cannot open.
        allowed = expected_allowed(role, page) and not refused(root, page.url)
        if allowed == refused(client, page.url):
            wrong.append(f"{page.url} ({page.key[1]} {page.verb}): table says {allowed}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("who", [*ROLE_GRANTS, "no membership"])
def test_each_app_index_lists_only_what_the_role_may_see(people: dict[str, Any], who: str) -> None:
    client = Client()
    client.force_login(people[who])
    role = who if who in ROLE_GRANTS else None
    by_app: dict[str, list[Any]] = {}
    for model, model_admin in admin.site._registry.items():
        by_app.setdefault(model._meta.app_label, []).append((model, model_admin))
    for app_label, entries in by_app.items():
        listed = [
            model._meta.model_name
            for model, model_admin in entries
            if type(model_admin).has_module_permission is admin.ModelAdmin.has_module_permission
            and role_scoped(model_admin)
            and role is not None
            and any(ROLE_GRANTS[role].get((app_label, model._meta.model_name or ""), ()))
        ]
        response = client.get(f"/admin/{app_label}/")
        assert response.status_code == (200 if listed else 404), (app_label, who)
