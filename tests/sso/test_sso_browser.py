"""In headless Chromium: a person clicks the admin's single sign-on button, signs in on the real test
provider's login page, and lands in Parley's admin as a member of the workspace their group maps to,
with that role; a page the role does not open stays closed."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect
from pytest_django.fixtures import Settings as SettingsWrapper

from core.models import Membership, Workspace
from tests.support.browser import artifact_path
from tests.support.oidc_provider.bootstrap import PROVIDER_PASSWORD
from tests.support.oidc_server import OidcProvider

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.timeout(180),
]


def test_a_person_signs_in_through_the_provider_and_lands_in_the_admin_with_the_mapped_role(
    page: Page, admin_base: str, sso_settings: SettingsWrapper, oidc_provider: OidcProvider
) -> None:
    # The provider accepts Parley's callback on any port of a loopback IP, not of "localhost".
    base = admin_base.replace("://localhost:", "://127.0.0.1:")
    acme = Workspace.objects.create(name="Acme", slug="acme")

    page.goto(f"{base}/admin/login/")
    page.click("#parley-sso-login")
    page.wait_for_url(re.compile(re.escape(f"{oidc_provider.base_url}/accounts/login/") + ".*"))
    page.fill("#provider-username", "alice")
    page.fill("#provider-password", PROVIDER_PASSWORD)
    page.click("#provider-submit")

    page.wait_for_url(f"{base}/admin/")
    expect(page.locator("#user-tools")).to_contain_text("Alice")
    expect(page.locator("#content")).to_contain_text("Bots")
    page.screenshot(path=artifact_path("sso-admin-after-sign-in.png"), full_page=True)
    alice = User.objects.get(username="alice")
    assert list(Membership.objects.filter(user=alice).values_list("workspace", "role")) == [
        (acme.pk, "owner")
    ]

    # Staff accounts are not the workspace's to manage: the users' admin stays closed.
    response = page.goto(f"{base}/admin/auth/user/")
    assert response is not None and response.status == 403


def test_a_person_whose_groups_map_to_no_workspace_sees_why_on_a_page(
    page: Page, admin_base: str, sso_settings: SettingsWrapper, oidc_provider: OidcProvider
) -> None:
    base = admin_base.replace("://localhost:", "://127.0.0.1:")
    Workspace.objects.create(name="Acme", slug="acme")

    page.goto(f"{base}/admin/login/")
    page.click("#parley-sso-login")
    page.fill("#provider-username", "bob")
    page.fill("#provider-password", PROVIDER_PASSWORD)
    page.click("#provider-submit")

    page.wait_for_url(re.compile(re.escape(f"{base}/sso/callback/") + ".*"))
    expect(page.locator(".errornote")).to_have_text(
        "None of your groups gives access to a Parley workspace."
    )
    expect(page.locator("#content")).to_contain_text("sso_no_workspace")
    page.screenshot(path=artifact_path("sso-no-workspace.png"), full_page=True)
    assert not User.objects.filter(username="bob").exists()
