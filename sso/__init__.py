"""Staff single sign-on through OpenID Connect: provisioning, claim-to-workspace roles, the login page."""
