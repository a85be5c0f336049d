"""The bot's own token for Teams: the client-credentials grant at the channel's token endpoint (with httpx:
MSAL accepts only an https authority on Microsoft's hosts, and a channel's ``api_base_url`` must move the
token endpoint too), kept per process until near expiry."""

from __future__ import annotations

import threading
import time

import httpx
from botframework.connector.auth import AppCredentials  # type: ignore[import-untyped]  # the Bot Framework SDK ships no type information

from connectors.errors import DeliveryError

_TOKENS: dict[tuple[str, str], tuple[str, float]] = {}  # (token URL, app id): (token, expires at)
_TOKENS_LOCK = threading.Lock()


class BotCredentials(AppCredentials):  # type: ignore[misc]  # the SDK ships no types: its base is Any
    """The SDK's credentials (it signs each connector call with ``get_access_token``), the token
    had by the client-credentials grant at the channel's token endpoint, kept until near expiry."""

    def __init__(self, *, app_id: str, password: str, token_url: str) -> None:
        super().__init__(app_id=app_id)
        self.password, self.token_url = password, token_url

    def get_access_token(self, force_refresh: bool = False) -> str:
        key = (self.token_url, self.microsoft_app_id)
        with _TOKENS_LOCK:
            cached = _TOKENS.get(key)
        if cached and cached[1] > time.time() + 60 and not force_refresh:
            return cached[0]
        try:
            response = httpx.post(
                self.token_url,
                data={
                    "grant_type": "client_credentials",
                    "client_id": self.microsoft_app_id,
                    "client_secret": self.password,
                    "scope": f"{self.oauth_scope}/.default",
                },
                timeout=httpx.Timeout(10.0, connect=5.0),
            )
        except httpx.HTTPError as error:
            raise DeliveryError(f"token endpoint: {error}", transient=True) from error
        if response.status_code != 200:
            status = response.status_code
            raise DeliveryError(
                f"the token endpoint answered {status}: {response.text[:200]}",
                transient=status == 429 or status >= 500,
            )
        body = response.json()
        token = str(body["access_token"])
        with _TOKENS_LOCK:
            _TOKENS[key] = (token, time.time() + float(body.get("expires_in") or 3600))
        return token
