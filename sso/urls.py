"""Single sign-on's two routes: the redirect to the provider and its callback."""

from __future__ import annotations

from django.urls import path

from sso.views import SsoCallbackView, SsoLoginView

urlpatterns = [
    path("login/", SsoLoginView.as_view(), name="sso-login"),
    path("callback/", SsoCallbackView.as_view(), name="sso-callback"),
]
