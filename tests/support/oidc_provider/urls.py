"""The test provider's routes: django-oauth-toolkit's endpoints under /o/ and a login page."""

from __future__ import annotations

from django.contrib.auth.views import LoginView
from django.urls import include, path

urlpatterns = [
    path("accounts/login/", LoginView.as_view(template_name="provider_login.html"), name="login"),
    path("o/", include("oauth2_provider.urls", namespace="oauth2_provider")),
]
