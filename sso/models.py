"""Who a staff user is at the OpenID Connect provider: the (issuer, subject) pair that signs them in.

The subject, not the e-mail address, identifies a person: an address can be renamed or reused at the
provider, a subject never is (OpenID Connect Core, 5.7).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class OidcIdentity(models.Model):
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="oidc_identity"
    )
    issuer = models.CharField(max_length=255)
    subject = models.CharField(max_length=255)
    created_at = models.DateTimeField(auto_now_add=True)
    last_login_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = "single sign-on identity"
        verbose_name_plural = "single sign-on identities"
        constraints = [
            models.UniqueConstraint(
                fields=["issuer", "subject"], name="oidc_identity_unique_subject"
            )
        ]

    def __str__(self) -> str:
        return f"{self.user} ({self.subject} at {self.issuer})"
