"""Single sign-on against a real OpenID Connect provider (django-oauth-toolkit, its own process): the
authorization code flow with PKCE provisions the user with the role its groups map to; a token with
another audience or issuer, or expired, is refused with a page saying so, and so is a person whose
groups map to no workspace; nothing is written for a refused sign-in."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from django.contrib.auth.models import User
from pytest_django.fixtures import Settings as SettingsWrapper

from core.models import Membership, Workspace
from sso.models import OidcIdentity
from tests.support.oidc_flow import (
    authorization_request,
    parley_client,
    provider_sign_in,
    sign_in,
)
from tests.support.oidc_provider.bootstrap import PROVIDER_PASSWORD
from tests.support.oidc_server import OidcProvider

pytestmark = [pytest.mark.django_db, pytest.mark.timeout(120)]


@pytest.fixture
def acme() -> Workspace:
    return Workspace.objects.create(name="Acme", slug="acme")


def test_the_code_flow_with_pkce_provisions_the_user_with_the_mapped_role(
    sso_settings: SettingsWrapper, acme: Workspace, oidc_provider: OidcProvider
) -> None:
    client = parley_client()
    authorize_url = authorization_request(client)
    query = parse_qs(urlsplit(authorize_url).query)
    assert authorize_url.startswith(oidc_provider.discovery["authorization_endpoint"])
    assert query["response_type"] == ["code"]
    assert query["code_challenge_method"] == ["S256"]
    assert len(query["code_challenge"][0]) == 43  # base64url of a SHA-256, unpadded
    assert query["nonce"] and query["state"]

    callback = provider_sign_in(authorize_url, username="alice", password=PROVIDER_PASSWORD)
    response = client.get(callback)

    assert response.status_code == 302 and response["Location"] == "/admin/"
    user = User.objects.get(username="alice")
    assert user.is_staff and not user.is_superuser and not user.has_usable_password()
    assert user.email == "alice@example.com"
    identity = OidcIdentity.objects.get(user=user)
    assert identity.issuer == oidc_provider.issuer and identity.subject
    assert list(Membership.objects.filter(user=user).values_list("workspace__slug", "role")) == [
        ("acme", "owner")
    ]
    # Signed in: the admin opens; the identities' page is a superuser's, not a workspace owner's.
    assert client.get("/admin/").status_code == 200
    assert client.get("/admin/sso/oidcidentity/").status_code == 403

    # A second sign-in is the same person, not a second account.
    again = sign_in(parley_client(), username="alice", password=PROVIDER_PASSWORD)
    assert again.status_code == 302
    assert User.objects.filter(email="alice@example.com").count() == 1
    assert Membership.objects.filter(user=user).count() == 1

    # Deactivated in Parley, the person stays out whatever the provider says.
    User.objects.filter(pk=user.pk).update(is_active=False)
    refused = sign_in(parley_client(), username="alice", password=PROVIDER_PASSWORD)
    assert refused.status_code == 403 and b"sso_account_disabled" in refused.content


def test_the_code_is_redeemed_only_with_the_sessions_pkce_verifier(
    sso_settings: SettingsWrapper, acme: Workspace
) -> None:
    client = parley_client()
    authorize_url = authorization_request(client)
    session = client.session
    states = session["oidc_states"]
    (state,) = states
    states[state]["code_verifier"] = "x" * 64  # not the verifier of the challenge sent
    session["oidc_states"] = states
    session.save()

    callback = provider_sign_in(authorize_url, username="alice", password=PROVIDER_PASSWORD)
    response = client.get(callback)

    assert response.status_code == 403
    assert b"sso_provider_error" in response.content
    assert not User.objects.filter(username="alice").exists()


@pytest.mark.parametrize(
    ("client_id", "reason"),
    [
        ("parley-other-audience", "audience"),
        ("parley-expired", "expired"),
        ("parley-other-issuer", "issuer"),
    ],
)
def test_a_token_with_another_audience_or_issuer_or_expired_is_refused(
    sso_settings: SettingsWrapper, acme: Workspace, client_id: str, reason: str
) -> None:
    sso_settings.OIDC_RP_CLIENT_ID = client_id
    response = sign_in(parley_client(), username="alice", password=PROVIDER_PASSWORD)

    assert response.status_code == 403
    page = response.content.decode()
    assert "Single sign-on refused" in page
    assert "sso_token_invalid" in page and f"({reason})" in page
    assert not User.objects.filter(username="alice").exists()
    assert not OidcIdentity.objects.exists()


def test_groups_that_map_to_no_workspace_get_a_clear_page_and_no_account(
    sso_settings: SettingsWrapper, acme: Workspace
) -> None:
    response = sign_in(parley_client(), username="bob", password=PROVIDER_PASSWORD)

    assert response.status_code == 403
    page = response.content.decode()
    assert "None of your groups gives access to a Parley workspace." in page
    assert "sso_no_workspace" in page
    assert not User.objects.filter(username="bob").exists()


def test_a_map_naming_a_workspace_that_does_not_exist_is_no_workspace(
    sso_settings: SettingsWrapper,
) -> None:
    response = sign_in(parley_client(), username="alice", password=PROVIDER_PASSWORD)

    assert response.status_code == 403 and b"sso_no_workspace" in response.content
    assert not User.objects.exists()


def test_an_unknown_role_in_the_map_is_a_page_naming_the_entry(
    sso_settings: SettingsWrapper, acme: Workspace
) -> None:
    sso_settings.PARLEY_OIDC_ROLE_MAP = ["parley-owners=acme:emperor"]
    response = sign_in(parley_client(), username="alice", password=PROVIDER_PASSWORD)

    assert response.status_code == 500
    assert b"sso_role_map_invalid" in response.content
    assert not User.objects.filter(username="alice").exists()


def test_each_sign_in_brings_the_memberships_to_what_the_groups_map(
    sso_settings: SettingsWrapper, acme: Workspace
) -> None:
    beta = Workspace.objects.create(name="Beta", slug="beta")
    gamma = Workspace.objects.create(name="Gamma", slug="gamma")
    assert sign_in(parley_client(), username="carol", password=PROVIDER_PASSWORD).status_code == 302
    carol = User.objects.get(username="carol")
    Membership.objects.create(user=carol, workspace=gamma, role=Membership.Role.OWNER)

    # The group no longer gives acme, it gives beta: acme goes, beta comes, gamma (unmapped) stays.
    sso_settings.PARLEY_OIDC_ROLE_MAP = [
        "support-team=beta:owner",
        "nobody=acme:owner",
    ]
    assert sign_in(parley_client(), username="carol", password=PROVIDER_PASSWORD).status_code == 302
    assert sorted(
        Membership.objects.filter(user=carol).values_list("workspace__slug", flat=True)
    ) == [
        beta.slug,
        gamma.slug,
    ]


def test_a_callback_with_a_state_the_session_never_issued_is_refused(
    sso_settings: SettingsWrapper, acme: Workspace
) -> None:
    client = parley_client()
    callback = provider_sign_in(
        authorization_request(client), username="alice", password=PROVIDER_PASSWORD
    )
    forged = callback.replace("state=", "state=forged", 1)
    response = client.get(forged)

    assert response.status_code == 403 and b"sso_token_invalid" in response.content
    assert not User.objects.filter(username="alice").exists()


def test_single_sign_on_routes_are_absent_when_it_is_not_configured(
    settings: SettingsWrapper,
) -> None:
    settings.OIDC_RP_CLIENT_ID = ""
    client = parley_client()
    assert client.get("/sso/login/").status_code == 404
    assert client.get("/sso/callback/", {"code": "c", "state": "s"}).status_code == 404


def test_a_local_account_is_never_taken_over_unless_linking_by_verified_email_is_on(
    sso_settings: SettingsWrapper, acme: Workspace
) -> None:
    namesake = User.objects.create_user(
        username="alice", email="someone@example.com", password="pw-1"
    )
    local = User.objects.create_user(
        username="alice.local", email="alice@example.com", password="pw-2"
    )

    # Off (the default): a new account, under a name that is not the namesake's.
    assert sign_in(parley_client(), username="alice", password=PROVIDER_PASSWORD).status_code == 302
    provisioned = OidcIdentity.objects.get().user
    assert provisioned.pk not in {namesake.pk, local.pk}
    assert provisioned.username.startswith("alice-") and len(provisioned.username) == 6 + 8
    assert not Membership.objects.filter(user__in=[namesake, local]).exists()

    # On: the provider says the address is verified, so the first sign-in takes over that account.
    OidcIdentity.objects.all().delete()
    provisioned.delete()
    sso_settings.PARLEY_OIDC_LINK_BY_EMAIL = True
    assert sign_in(parley_client(), username="alice", password=PROVIDER_PASSWORD).status_code == 302
    assert OidcIdentity.objects.get().user == local
    local.refresh_from_db()
    assert local.username == "alice.local" and local.check_password("pw-2")
    assert Membership.objects.get(user=local).workspace == acme


def test_a_superuser_sees_the_identities_and_cannot_repoint_one(
    sso_settings: SettingsWrapper, acme: Workspace, admin_client: object
) -> None:
    assert sign_in(parley_client(), username="alice", password=PROVIDER_PASSWORD).status_code == 302
    identity = OidcIdentity.objects.get()
    listing = admin_client.get("/admin/sso/oidcidentity/")  # type: ignore[attr-defined]
    assert listing.status_code == 200 and identity.subject in listing.content.decode()
    change = admin_client.get(f"/admin/sso/oidcidentity/{identity.pk}/change/")  # type: ignore[attr-defined]
    assert change.status_code == 200 and 'name="subject"' not in change.content.decode()


def test_the_next_address_stays_on_parley_and_a_providers_error_is_shown(
    sso_settings: SettingsWrapper, acme: Workspace
) -> None:
    client = parley_client()
    start = client.get("/sso/login/", {"next": "https://evil.example/steal"})
    callback = provider_sign_in(
        str(start["Location"]), username="alice", password=PROVIDER_PASSWORD
    )
    response = client.get(callback)
    assert response.status_code == 302 and response["Location"] == "/admin/"

    cancelled = parley_client().get(
        "/sso/callback/",
        {"error": "access_denied", "error_description": "The person cancelled", "state": "s"},
    )
    assert cancelled.status_code == 403
    assert b"The person cancelled" in cancelled.content
    assert b"sso_provider_error" in cancelled.content
