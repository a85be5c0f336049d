"""The single sign-on tests' real OpenID Connect provider, started once per session, and Parley's
settings pointed at it (as an operator copies them from its discovery document)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pytest_django.fixtures import Settings as SettingsWrapper

from tests.support.oidc_provider.bootstrap import CLIENT_SECRET
from tests.support.oidc_server import OidcProvider, oidc_provider_start
from tests.support.processes import process_group_stop


@pytest.fixture(scope="session")
def oidc_provider(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OidcProvider]:
    workdir: Path = tmp_path_factory.mktemp("oidc-provider")
    provider = oidc_provider_start(workdir=workdir)
    try:
        yield provider
    finally:
        process_group_stop(provider.process)


@pytest.fixture
def sso_settings(settings: SettingsWrapper, oidc_provider: OidcProvider) -> SettingsWrapper:
    """Parley signed in through the test provider, as client `parley`, its `groups` claim mapped to
    the workspace `acme` as owners."""
    discovery = oidc_provider.discovery
    settings.OIDC_RP_CLIENT_ID = "parley"
    settings.OIDC_RP_CLIENT_SECRET = CLIENT_SECRET
    settings.PARLEY_OIDC_ISSUER = discovery["issuer"]
    settings.OIDC_OP_AUTHORIZATION_ENDPOINT = discovery["authorization_endpoint"]
    settings.OIDC_OP_TOKEN_ENDPOINT = discovery["token_endpoint"]
    settings.OIDC_OP_USER_ENDPOINT = discovery["userinfo_endpoint"]
    settings.OIDC_OP_JWKS_ENDPOINT = discovery["jwks_uri"]
    settings.OIDC_RP_SCOPES = "openid email profile groups"
    settings.PARLEY_OIDC_GROUPS_CLAIM = "groups"
    settings.PARLEY_OIDC_ROLE_MAP = ["parley-owners=acme:owner"]
    settings.PARLEY_LOCAL_PASSWORDS = True
    return settings
