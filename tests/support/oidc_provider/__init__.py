"""A real OpenID Connect provider for the single sign-on tests: django-oauth-toolkit in a Django of its
own (its own settings, sqlite and process), started by tests/support/oidc_server.py."""
