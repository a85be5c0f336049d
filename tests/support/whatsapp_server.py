"""A local server speaking the WhatsApp Cloud API (Meta's Graph API: `POST /<phone id>/messages`,
media by id) for the connector's tests, reached through the connector's real httpx client (its base
URL). It keeps every message sent, checks the access token, and can answer the next calls with an
HTTP error. `whatsapp_webhook_body` and `whatsapp_signed_headers` build what Meta POSTs."""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import time
from collections import deque
from typing import Any

from tests.support.platform_server import PlatformHandler, PlatformServer

ACCESS_TOKEN = "EAAG-test-access-token"
APP_SECRET = "test-app-secret-0123456789"
PHONE_ID = "106540352242922"


class WhatsAppServer(PlatformServer):
    def __init__(self) -> None:
        super().__init__()
        self.sent: list[dict[str, Any]] = []
        self.failures: deque[tuple[int, str | None]] = deque()
        self.media: dict[str, bytes] = {}
        self._ids = itertools.count(1)

    @property
    def base_url(self) -> str:
        return f"{self.root_url}v21.0/"

    def reset(self) -> None:
        with self.lock:
            self.sent.clear()
            self.failures.clear()
            self.media.clear()

    def texts(self, to: str) -> list[str]:
        with self.lock:
            return [
                m["text"]["body"] if m["type"] == "text" else f"template:{m['template']['name']}"
                for m in self.sent
                if m["to"] == to
            ]

    def handler(self) -> type[PlatformHandler]:
        server = self

        class Handler(PlatformHandler):
            def _authorized(self) -> bool:
                return self.bearer() == ACCESS_TOKEN

            def do_GET(self) -> None:
                if not self._authorized():
                    return self.reply(401, {"error": {"message": "Invalid OAuth access token"}})
                if self.path.startswith("/media/") and self.path[7:] in server.media:
                    return self.reply(200, server.media[self.path[7:]])
                media_id = self.path.removeprefix("/v21.0/")
                if media_id in server.media:
                    return self.reply(200, {"url": f"{server.root_url}media/{media_id}"})
                return self.reply(404, {"error": {"message": "unknown media"}})

            def do_POST(self) -> None:
                body = self.body()
                with server.lock:
                    if server.failures:
                        status, retry_after = server.failures.popleft()
                        headers = {"Retry-After": retry_after} if retry_after else {}
                        return self.reply(
                            status, {"error": {"message": "scripted", "code": 4}}, headers
                        )
                if not self._authorized():
                    return self.reply(401, {"error": {"message": "Invalid OAuth access token"}})
                if (
                    not self.path.endswith("/messages")
                    or body.get("messaging_product") != "whatsapp"
                ):
                    return self.reply(400, {"error": {"message": "bad request"}})
                with server.lock:
                    server.sent.append(body)
                    message_id = f"wamid.OUT{next(server._ids)}"
                return self.reply(
                    200, {"messaging_product": "whatsapp", "messages": [{"id": message_id}]}
                )

        return Handler


def whatsapp_webhook_body(*, sender: str, message_id: str, text: str = "", **message: Any) -> bytes:
    body = {"type": "text", "text": {"body": text}} if text else {}
    return json.dumps(
        {
            "object": "whatsapp_business_account",
            "entry": [
                {
                    "id": "WABA-1",
                    "changes": [
                        {
                            "field": "messages",
                            "value": {
                                "messaging_product": "whatsapp",
                                "metadata": {
                                    "display_phone_number": "15550001111",
                                    "phone_number_id": PHONE_ID,
                                },
                                "contacts": [{"profile": {"name": "Rider"}, "wa_id": sender}],
                                "messages": [
                                    {
                                        "from": sender,
                                        "id": message_id,
                                        "timestamp": str(int(time.time())),
                                        **body,
                                        **message,
                                    }
                                ],
                            },
                        }
                    ],
                }
            ],
        }
    ).encode()


def whatsapp_signed_headers(body: bytes, *, secret: str = APP_SECRET) -> dict[str, str]:
    signature = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    return {"X-Hub-Signature-256": f"sha256={signature}"}
