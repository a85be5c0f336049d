"""Staff sign-in: local passwords and OpenID Connect single sign-on (docs/sso.md)."""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured

from config.env import env_bool, env_choice, env_float, env_list, env_str

# Workspace members get the "Workspace admins" group's permissions (core.auth); sso.backends adds the
# password switch to that backend and signs staff in through the OIDC provider (mozilla-django-oidc).
AUTHENTICATION_BACKENDS = ["sso.backends.LocalPasswordBackend", "sso.backends.OidcStaffBackend"]
# false: the admin's login form is replaced by the single sign-on button and passwords are refused.
PARLEY_LOCAL_PASSWORDS = env_bool("PARLEY_LOCAL_PASSWORDS", True)
# Single sign-on is on when a client id is set; the provider's endpoints come from its discovery
# document (/.well-known/openid-configuration), copied here so that nothing is fetched at start-up.
OIDC_RP_CLIENT_ID = env_str("PARLEY_OIDC_CLIENT_ID", "") or ""
OIDC_RP_CLIENT_SECRET = env_str("PARLEY_OIDC_CLIENT_SECRET", "") or ""
PARLEY_OIDC_ISSUER = env_str("PARLEY_OIDC_ISSUER", "") or ""
OIDC_OP_AUTHORIZATION_ENDPOINT = env_str("PARLEY_OIDC_AUTHORIZATION_ENDPOINT", "") or ""
OIDC_OP_TOKEN_ENDPOINT = env_str("PARLEY_OIDC_TOKEN_ENDPOINT", "") or ""
OIDC_OP_USER_ENDPOINT = env_str("PARLEY_OIDC_USERINFO_ENDPOINT", "") or ""
OIDC_OP_JWKS_ENDPOINT = env_str("PARLEY_OIDC_JWKS_ENDPOINT", "") or ""
OIDC_RP_SIGN_ALGO = env_choice(
    "PARLEY_OIDC_SIGN_ALGORITHM", "RS256", ("RS256", "RS384", "RS512", "ES256", "ES384", "ES512")
)
OIDC_RP_SCOPES = env_str("PARLEY_OIDC_SCOPES", "openid email profile") or "openid email profile"
OIDC_TIMEOUT = env_float("PARLEY_OIDC_TIMEOUT", 10.0, minimum=1.0, maximum=120.0)
# The claim that lists the user's groups, and which group gives which role in which workspace:
# "group=workspace-slug:role,..." (sso.rolemap; the roles are checked against Membership's at sign-in).
PARLEY_OIDC_GROUPS_CLAIM = env_str("PARLEY_OIDC_GROUPS_CLAIM", "groups") or "groups"
PARLEY_OIDC_ROLE_MAP = env_list("PARLEY_OIDC_ROLE_MAP", [])
# true: a first sign-in whose verified e-mail is an existing account's takes that account over.
PARLEY_OIDC_LINK_BY_EMAIL = env_bool("PARLEY_OIDC_LINK_BY_EMAIL", False)
PARLEY_OIDC_BUTTON_LABEL = (
    env_str("PARLEY_OIDC_BUTTON_LABEL", "Sign in with single sign-on")
    or "Sign in with single sign-on"
)
if OIDC_RP_CLIENT_ID:
    _oidc_missing = [
        name
        for name, value in (
            ("PARLEY_OIDC_ISSUER", PARLEY_OIDC_ISSUER),
            ("PARLEY_OIDC_AUTHORIZATION_ENDPOINT", OIDC_OP_AUTHORIZATION_ENDPOINT),
            ("PARLEY_OIDC_TOKEN_ENDPOINT", OIDC_OP_TOKEN_ENDPOINT),
            ("PARLEY_OIDC_USERINFO_ENDPOINT", OIDC_OP_USER_ENDPOINT),
            ("PARLEY_OIDC_JWKS_ENDPOINT", OIDC_OP_JWKS_ENDPOINT),
        )
        if not value
    ]
    if _oidc_missing:
        raise ImproperlyConfigured(
            f"PARLEY_OIDC_CLIENT_ID is set, so single sign-on is on, but {', '.join(_oidc_missing)} "
            "is not: copy them from the provider's /.well-known/openid-configuration (docs/sso.md)."
        )
elif not PARLEY_LOCAL_PASSWORDS:
    raise ImproperlyConfigured(
        "PARLEY_LOCAL_PASSWORDS=false leaves no way to sign in without single sign-on: "
        "set PARLEY_OIDC_CLIENT_ID and the provider's endpoints too (docs/sso.md)."
    )
# The authorization code flow with PKCE (S256) and a nonce, always; the library's routes are named
# here so its views and backend find Parley's callback.
OIDC_USE_PKCE = True
OIDC_PKCE_CODE_CHALLENGE_METHOD = "S256"
OIDC_USE_NONCE = True
OIDC_AUTHENTICATION_CALLBACK_URL = "sso-callback"
LOGIN_REDIRECT_URL = "/admin/"  # after a sign-in that named no `next`
