"""The authorization code flow walked without a browser: Parley through Django's test client, the
provider over HTTP (its login form posted as a person would), the code carried back to Parley."""

from __future__ import annotations

from urllib.parse import parse_qs, urljoin, urlsplit

import httpx
from django.http import HttpResponse
from django.test import Client

# Parley's callback must be on a loopback IP for the provider to accept any port (RFC 8252).
PARLEY_HOST = "127.0.0.1"


def parley_client() -> Client:
    return Client(HTTP_HOST=PARLEY_HOST)


def authorization_request(client: Client) -> str:
    """Parley's redirect to the provider: the authorization URL it built."""
    response = client.get("/sso/login/", {"next": "/admin/"})
    assert response.status_code == 302, response.content
    return str(response["Location"])


def provider_sign_in(authorize_url: str, *, username: str, password: str) -> str:
    """Sign in at the provider's login page; returns the callback path (with code and state) it
    redirects the browser to."""
    with httpx.Client(follow_redirects=False, timeout=20) as browser:
        response = browser.get(authorize_url)
        assert response.status_code == 302, response.text
        login_url = urljoin(authorize_url, response.headers["location"])
        browser.get(login_url).raise_for_status()
        response = browser.post(
            login_url,
            data={
                "username": username,
                "password": password,
                "csrfmiddlewaretoken": browser.cookies["provider_csrftoken"],
            },
        )
        assert response.status_code == 302, response.text
        response = browser.get(urljoin(login_url, response.headers["location"]))
        assert response.status_code == 302, response.text
        callback = urlsplit(response.headers["location"])
    assert callback.hostname == PARLEY_HOST and callback.path == "/sso/callback/", callback
    assert "code" in parse_qs(callback.query), callback
    return f"{callback.path}?{callback.query}"


def sign_in(client: Client, *, username: str, password: str) -> HttpResponse:
    """The whole flow; returns Parley's answer to the callback."""
    callback = provider_sign_in(authorization_request(client), username=username, password=password)
    response: HttpResponse = client.get(callback)
    return response
