"""An upload with no bot chosen is never silently known to no bot: the form states that such files go to
every bot of their workspace and does so, a document for no bot must be asked for, and a workspace without
any bot needs that explicit choice. In Chromium, a member reads the statement, uploads with no bot chosen
and finds the document known to each of the workspace's bots (the list showing it runs under the CSP)."""

from __future__ import annotations

import html
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from playwright.sync_api import Page, expect

from core.models import Membership, Workspace
from rag.models import Document
from tests.support.browser import admin_login, artifact_path
from tests.support.factories import PASSWORD, BotFactory, MembershipFactory

ADD = "/admin/rag/document/add/"


def _member(workspace: Workspace) -> Client:
    client = Client()
    client.force_login(MembershipFactory(workspace=workspace).user)
    return client


def _upload(client: Client, workspace: Workspace, **fields: object) -> object:
    body = {"workspace": workspace.pk, "files": [SimpleUploadedFile("notes.txt", b"Some notes.")]}
    return client.post(ADD, {**body, **fields}, follow=True)


@pytest.mark.django_db
def test_no_bot_chosen_gives_the_files_to_every_bot_of_the_workspace_and_says_so() -> None:
    first = BotFactory(name="Alpha")
    workspace = first.workspace
    second = BotFactory(workspace=workspace, name="Beta")
    BotFactory(name="Elsewhere")  # another workspace's bot never gets them
    client = _member(workspace)

    form = client.get(ADD).content.decode()
    response = _upload(client, workspace)

    assert re.search(r"every bot of their workspace.*Alpha, Beta", form, re.S)
    document = Document.objects.get(workspace=workspace)
    assert set(document.bots.all()) == {first, second}
    assert (
        f"1 document(s) uploaded for every bot of {workspace} (Alpha, Beta), as none was chosen"
        in response.content.decode()  # type: ignore[attr-defined]
    )


@pytest.mark.django_db
def test_chosen_bots_are_kept_and_no_bot_must_be_asked_for() -> None:
    alpha = BotFactory(name="Alpha")
    workspace = alpha.workspace
    BotFactory(workspace=workspace, name="Beta")
    client = _member(workspace)

    chosen = _upload(client, workspace, bots=[alpha.pk])
    assert "uploaded for Alpha and queued" in chosen.content.decode()  # type: ignore[attr-defined]
    assert list(Document.objects.get(workspace=workspace).bots.all()) == [alpha]

    Document.objects.all().delete()
    alone = _upload(client, workspace, no_bot="on")
    assert "uploaded for no bot (as asked)" in alone.content.decode()  # type: ignore[attr-defined]
    assert not Document.objects.get(workspace=workspace).bots.exists()

    Document.objects.all().delete()
    both = _upload(client, workspace, bots=[alpha.pk], no_bot="on")
    assert "not both" in both.content.decode()  # type: ignore[attr-defined]
    assert not Document.objects.exists()


@pytest.mark.django_db
def test_a_workspace_without_bots_needs_the_explicit_choice() -> None:
    workspace = Workspace.objects.create(name="Empty", slug="empty")
    client = _member(workspace)

    refused = html.unescape(_upload(client, workspace).content.decode())  # type: ignore[attr-defined]
    assert 'Empty has no bot yet: tick "Known to no bot"' in refused
    assert not Document.objects.exists()

    _upload(client, workspace, no_bot="on")
    assert Document.objects.filter(workspace=workspace).count() == 1


@pytest.mark.browser
@pytest.mark.timeout(120)
def test_a_member_uploads_with_no_bot_chosen_and_every_bot_gets_the_file(
    page: Page, admin_base: str, tmp_path: object
) -> None:
    alpha = BotFactory(name="Alpha")
    workspace = alpha.workspace
    beta = BotFactory(workspace=workspace, name="Beta")
    member = MembershipFactory(workspace=workspace, role=Membership.Role.OWNER)
    notes = tmp_path / "opening-hours.txt"  # type: ignore[operator]
    notes.write_text("The shop opens at nine on weekdays.")
    admin_login(page, base_url=admin_base, username=member.user.username, password=PASSWORD)

    page.goto(f"{admin_base}{ADD}")
    statement = page.locator("#upload-default-bots")
    expect(statement).to_contain_text("With no bot chosen, the files go to every bot")
    expect(statement.locator(f'li[data-workspace="{workspace.pk}"]')).to_have_text(
        f"{workspace}: Alpha, Beta"
    )
    expect(page.locator("#id_workspace")).to_have_value(str(workspace.pk))  # its only workspace
    page.set_input_files("#id_files", str(notes))
    page.screenshot(path=str(artifact_path("admin-upload-no-bot.png")), full_page=False)
    page.click("input[name=_upload]")

    page.wait_for_url(re.compile(r".*/admin/rag/document/$"))
    expect(page.locator(".messagelist")).to_contain_text(
        f"for every bot of {workspace} (Alpha, Beta), as none was chosen"
    )
    document = Document.objects.get(workspace=workspace)
    assert set(document.bots.all()) == {alpha, beta}
    # The status is coloured by its class (the page's CSP refuses inline style attributes).
    expect(page.locator(".document-status").first).to_have_css(
        "color", re.compile(r"rgb\((119, 119, 119|183, 121, 31|47, 133, 90|197, 48, 48)\)")
    )
