"""The test provider's claims, and the clients that misbehave on purpose.

Every user's claims carry their e-mail address and their Django groups (the `groups` claim, under the
`groups` scope, as Keycloak's group mapper sends them). Three clients are registered to get a token
that Parley must refuse, still signed with the provider's real key: `parley-expired` (an `exp` ten
minutes past), `parley-other-audience` (an `aud` of another application) and `parley-other-issuer`
(an `iss` that is not this provider).
"""

from __future__ import annotations

import time
from typing import Any

from oauth2_provider.oauth2_validators import OAuth2Validator

OTHER_AUDIENCE = "another-application"
OTHER_ISSUER = "http://127.0.0.1:9/another-issuer"


class TestProviderValidator(OAuth2Validator):
    oidc_claim_scope = {**OAuth2Validator.oidc_claim_scope, "groups": "groups"}

    def get_additional_claims(self, request: Any) -> dict[str, Any]:
        user = request.user
        return {
            "email": user.email,
            "email_verified": True,
            "preferred_username": user.username,
            "given_name": user.first_name,
            "family_name": user.last_name,
            "groups": sorted(user.groups.values_list("name", flat=True)),
        }

    def get_id_token_dictionary(self, token: Any, token_handler: Any, request: Any) -> Any:
        claims, expiration = super().get_id_token_dictionary(token, token_handler, request)
        client_id = request.client.client_id
        if client_id == "parley-expired":
            claims["exp"] = int(time.time()) - 600
        elif client_id == "parley-other-audience":
            claims["aud"] = OTHER_AUDIENCE
        elif client_id == "parley-other-issuer":
            claims["iss"] = OTHER_ISSUER
        return claims, expiration
