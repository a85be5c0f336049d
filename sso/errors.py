"""Why a single sign-on was refused, with stable codes; the callback shows each as a page (sso.views)."""

from __future__ import annotations

from core.errors import ErrorKind, ParleyError


class SsoRefused(ParleyError):
    """The provider's answer cannot sign this person in: a token that fails a check, or no workspace.

    Codes: `sso_token_invalid` (signature, issuer, audience, expiry, nonce; `extra.reason` says which),
    `sso_no_workspace` (no group maps to a workspace), `sso_account_disabled` (a deactivated account),
    `sso_account_conflict`, `sso_provider_error`.
    """

    code = "sso_refused"
    kind = ErrorKind.FORBIDDEN


class SsoMisconfigured(ParleyError):
    """PARLEY_OIDC_ROLE_MAP cannot be read, or names a role Parley does not have."""

    code = "sso_role_map_invalid"
    kind = ErrorKind.INTERNAL
