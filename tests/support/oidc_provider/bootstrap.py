"""Prepare the test provider's database: its tables, its users with their groups, and its clients.

Run as `python -m tests.support.oidc_provider.bootstrap` with the provider's environment (see
tests/support/oidc_server.py), before its server starts.
"""

from __future__ import annotations

import os

import django

# Users of the provider: username -> (groups, e-mail). Their password is PROVIDER_PASSWORD.
USERS: dict[str, tuple[list[str], str]] = {
    "alice": (["parley-owners"], "alice@example.com"),
    "bob": (["marketing"], "bob@example.com"),
    "carol": (["support-team", "parley-owners"], "carol@example.com"),
}
PROVIDER_PASSWORD = "provider-passphrase-7"
# Every client of Parley, each redirecting to /sso/callback/ on any loopback port (RFC 8252).
CLIENTS = ("parley", "parley-expired", "parley-other-audience", "parley-other-issuer")
CLIENT_SECRET = "parley-client-secret"
REDIRECT_URI = "http://127.0.0.1/sso/callback/"


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.support.oidc_provider.settings")
    django.setup()
    from django.contrib.auth.models import Group, User
    from django.core.management import call_command
    from oauth2_provider.models import Application

    call_command("migrate", verbosity=0, interactive=False)
    for username, (groups, email) in USERS.items():
        user = User.objects.create_user(
            username=username, email=email, password=PROVIDER_PASSWORD, first_name=username.title()
        )
        user.groups.set([Group.objects.get_or_create(name=name)[0] for name in groups])
    for client_id in CLIENTS:
        Application.objects.create(
            name=client_id,
            client_id=client_id,
            client_secret=CLIENT_SECRET,
            client_type=Application.CLIENT_CONFIDENTIAL,
            authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
            redirect_uris=REDIRECT_URI,
            algorithm=Application.RS256_ALGORITHM,
            skip_authorization=True,
        )


if __name__ == "__main__":
    main()
