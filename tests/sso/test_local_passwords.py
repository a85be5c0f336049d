"""The admin's login page with single sign-on: the button beside the password form, or alone when
PARLEY_LOCAL_PASSWORDS=false, and then a correct password is refused; the settings refuse a client id
without its endpoints, and passwords off without single sign-on."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client
from pytest_django.fixtures import Settings as SettingsWrapper

from sso.errors import SsoMisconfigured
from sso.rolemap import RoleRule, role_map_parse
from tests.support.factories import PASSWORD, MembershipFactory

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def sso_on(settings: SettingsWrapper) -> SettingsWrapper:
    """Single sign-on configured (no provider is called by these tests)."""
    settings.OIDC_RP_CLIENT_ID = "parley"
    settings.PARLEY_OIDC_BUTTON_LABEL = "Sign in with Example SSO"
    settings.PARLEY_LOCAL_PASSWORDS = True
    return settings


def _password_login(client: Client, username: str) -> None:
    client.post(
        "/admin/login/?next=/admin/",
        {"username": username, "password": PASSWORD, "next": "/admin/"},
    )


@pytest.mark.django_db
def test_the_login_page_offers_the_button_beside_the_password_form(sso_on: SettingsWrapper) -> None:
    member = MembershipFactory().user
    page = Client().get("/admin/login/?next=/admin/").content.decode()
    assert 'id="parley-sso-login"' in page and "Sign in with Example SSO" in page
    assert 'href="/sso/login/?next=/admin/"' in page
    assert 'name="password"' in page

    client = Client()
    _password_login(client, member.username)
    assert client.get("/admin/").status_code == 200


@pytest.mark.django_db
def test_with_local_passwords_off_only_the_button_remains_and_a_correct_password_is_refused(
    sso_on: SettingsWrapper,
) -> None:
    sso_on.PARLEY_LOCAL_PASSWORDS = False
    member = MembershipFactory().user
    page = Client().get("/admin/login/").content.decode()
    assert 'id="parley-sso-login"' in page
    assert 'name="password"' not in page

    client = Client()
    _password_login(client, member.username)
    assert "_auth_user_id" not in client.session
    assert client.get("/admin/").status_code == 302  # back to the login page


@pytest.mark.django_db
def test_without_single_sign_on_the_page_is_the_admins_own(settings: SettingsWrapper) -> None:
    settings.OIDC_RP_CLIENT_ID = ""
    page = Client().get("/admin/login/").content.decode()
    assert "parley-sso-login" not in page and 'name="password"' in page


def test_the_role_map_reads_entries_in_order_and_refuses_a_malformed_one_whole() -> None:
    roles = {"owner", "agent"}
    assert role_map_parse(
        entries=["/parley/owners=acme:owner", " a=b=beta : agent "], roles=roles
    ) == (
        RoleRule(group="/parley/owners", workspace_slug="acme", role="owner"),
        RoleRule(group="a=b", workspace_slug="beta", role="agent"),
    )
    for entry in ("no-equals", "group=acme", "=acme:owner", "group=:owner", "group=acme:king"):
        with pytest.raises(SsoMisconfigured) as refused:
            role_map_parse(entries=["ok=acme:owner", entry], roles=roles)
        assert refused.value.code == "sso_role_map_invalid" and entry in refused.value.message


def _settings_load(**variables: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PARLEY_OIDC", "PARLEY_LOCAL"))}
    # Settings never connect when both URLs are set: nothing is started or reached.
    env |= {"DATABASE_URL": "postgresql://u@127.0.0.1:9/x", "REDIS_URL": "redis://127.0.0.1:9/0"}
    env |= variables
    return subprocess.run(
        [sys.executable, "-c", "import config.settings"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_settings_refuse_a_client_id_without_endpoints_and_passwords_off_without_sso() -> None:
    result = _settings_load(
        PARLEY_OIDC_CLIENT_ID="parley", PARLEY_OIDC_ISSUER="https://idp.example"
    )
    assert result.returncode != 0
    assert "PARLEY_OIDC_AUTHORIZATION_ENDPOINT" in result.stderr
    assert "PARLEY_OIDC_JWKS_ENDPOINT" in result.stderr
    assert "PARLEY_OIDC_ISSUER," not in result.stderr

    result = _settings_load(PARLEY_LOCAL_PASSWORDS="false")
    assert result.returncode != 0 and "leaves no way to sign in" in result.stderr

    assert _settings_load().returncode == 0
