"""A local Bot Framework for the Teams connector's tests, reached through the real SDK: the login
side (the OpenID metadata and the signing keys, endorsed for `msteams`, that the SDK's
`JwtTokenExtractor` fetches; the client-credentials token endpoint) and the Connector API of a
service URL (`reply_to_activity`, `update_activity`, `send_to_conversation`, which check the bot's
token). It keeps every activity sent, by conversation, with the history of its edits.

`teams_activity` builds what Teams POSTs to the bot's messaging endpoint and `teams_auth_header`
signs its JWT as the Bot Framework does (RS256, issuer https://api.botframework.com, audience the
app id, the `serviceurl` claim), or wrongly, for the refusals."""

from __future__ import annotations

import itertools
import json
import secrets
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

from tests.support.platform_server import PlatformHandler, PlatformServer

APP_ID = "6a1e2f0c-0000-4000-8000-00000000b07a"
APP_PASSWORD = "test-teams-client-secret~0123"
ISSUER = "https://api.botframework.com"
KEY_ID = "test-signing-key"


@dataclass
class TeamsMessage:
    conversation_id: str
    id: str
    reply_to: str
    text: str
    attachments: list[dict[str, Any]]
    edits: list[str] = field(default_factory=list)

    def card(self) -> dict[str, Any] | None:
        for attachment in self.attachments:
            if attachment.get("contentType") == "application/vnd.microsoft.card.adaptive":
                content: dict[str, Any] = attachment["content"]
                return content
        return None

    def shown(self) -> str:
        """What the visitor reads: the text, else the card's text blocks."""
        card = self.card()
        if card is None:
            return self.text
        return "\n".join(block.get("text", "") for block in card.get("body", []))


def _key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


class TeamsServer(PlatformServer):
    def __init__(self) -> None:
        super().__init__()
        self.key = _key()
        self.other_key = _key()  # signs the forged tokens
        self.messages: list[TeamsMessage] = []
        self.tokens: set[str] = set()
        self.token_requests = 0
        self._ids = itertools.count(1)

    def reset(self) -> None:
        with self.lock:
            self.messages.clear()

    def conversation(self, conversation_id: str) -> list[TeamsMessage]:
        with self.lock:
            return [m for m in self.messages if m.conversation_id == conversation_id]

    def jwks(self) -> dict[str, Any]:
        jwk = json.loads(RSAAlgorithm.to_jwk(self.key.public_key()))
        return {"keys": [{**jwk, "kid": KEY_ID, "use": "sig", "endorsements": ["msteams"]}]}

    def token_issue(self, form: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if (
            form.get("grant_type") != "client_credentials"
            or form.get("client_id") != APP_ID
            or form.get("client_secret") != APP_PASSWORD
            or form.get("scope") != f"{ISSUER}/.default"
        ):
            return 401, {"error": "invalid_client"}
        token = secrets.token_urlsafe(24)
        with self.lock:
            self.tokens.add(token)
            self.token_requests += 1
        return 200, {"token_type": "Bearer", "expires_in": 3599, "access_token": token}

    def activity_store(
        self, *, conversation_id: str, activity_id: str, body: dict[str, Any], update: bool
    ) -> tuple[int, dict[str, Any]]:
        with self.lock:
            text = str(body.get("text") or "")
            if update:
                found = next(
                    (
                        m
                        for m in self.messages
                        if m.conversation_id == conversation_id and m.id == activity_id
                    ),
                    None,
                )
                if found is None:
                    return 404, {"error": {"code": "ActivityNotFound", "message": "not found"}}
                found.text, found.attachments = text, list(body.get("attachments") or [])
                found.edits.append(found.shown())
                return 200, {"id": found.id}
            message = TeamsMessage(
                conversation_id=conversation_id,
                id=f"1{next(self._ids):012d}",
                reply_to=str(body.get("replyToId") or activity_id),
                text=text,
                attachments=list(body.get("attachments") or []),
            )
            message.edits.append(message.shown())
            self.messages.append(message)
            return 201, {"id": message.id}

    def handler(self) -> type[PlatformHandler]:
        server = self

        class Handler(PlatformHandler):
            def do_GET(self) -> None:
                if self.path == "/v1/.well-known/openidconfiguration":
                    return self.reply(
                        200,
                        {
                            "issuer": ISSUER,
                            "jwks_uri": f"{server.root_url}v1/.well-known/keys",
                            "id_token_signing_alg_values_supported": ["RS256"],
                        },
                    )
                if self.path == "/v1/.well-known/keys":
                    return self.reply(200, server.jwks())
                return self.reply(404, {"error": "not found"})

            def do_POST(self) -> None:
                if self.path.endswith("/oauth2/v2.0/token"):
                    return self.reply(*server.token_issue(self.body()))
                return self._activity(update=False)

            def do_PUT(self) -> None:
                return self._activity(update=True)

            def _activity(self, *, update: bool) -> None:
                parts = [unquote(p) for p in self.path.split("/")]
                # /v3/conversations/<id>/activities[/<activity id>]
                if len(parts) < 5 or parts[1:3] != ["v3", "conversations"]:
                    return self.reply(404, {"error": {"code": "NotFound"}})
                with server.lock:
                    known = self.bearer() in server.tokens
                if not known:
                    return self.reply(401, {"message": "Authorization has been denied"})
                return self.reply(
                    *server.activity_store(
                        conversation_id=parts[3],
                        activity_id=parts[5] if len(parts) > 5 else "",
                        body=self.body(),
                        update=update,
                    )
                )

        return Handler


_activity_ids = itertools.count(1)


def teams_activity(
    *, server: TeamsServer, conversation_id: str, text: str, activity_id: str = "", **extra: Any
) -> dict[str, Any]:
    """A message activity from a Teams user to the bot, as Teams POSTs it."""
    return {
        "type": "message",
        "id": activity_id or f"1700000{next(_activity_ids):06d}",
        "timestamp": "2026-12-02T04:00:00.000Z",
        "serviceUrl": server.base_url,
        "channelId": "msteams",
        "from": {"id": "29:1rider", "name": "Rider", "aadObjectId": "aad-rider-0001"},
        "conversation": {"id": conversation_id, "conversationType": "personal", "tenantId": "t1"},
        "recipient": {"id": f"28:{APP_ID}", "name": "Lumi"},
        "text": text,
        "locale": "en-US",
        **extra,
    }


def teams_auth_header(
    server: TeamsServer,
    *,
    service_url: str | None = None,
    audience: str = APP_ID,
    forged: bool = False,
    expired: bool = False,
    issuer: str = ISSUER,
) -> str:
    """The Bot Framework's `Authorization: Bearer <JWT>` (``forged``: signed with another key)."""
    now = int(time.time()) - (3600 if expired else 0)
    claims = {
        "iss": issuer,
        "aud": audience,
        "serviceurl": service_url or server.base_url,
        "nbf": now - 60,
        "iat": now - 60,
        "exp": now + 600,
    }
    key = server.other_key if forged else server.key
    token = jwt.encode(claims, key, algorithm="RS256", headers={"kid": KEY_ID})
    return f"Bearer {token}"
