"""A local server speaking Telegram's Bot API (sendMessage, editMessageText, getFile and file
downloads) for the connector's tests, reached through the connector's real httpx client (its base
URL). It keeps each chat's messages with the history of their edits; `telegram_update` builds what
Telegram POSTs to a webhook."""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field
from typing import Any

from tests.support.platform_server import PlatformHandler, PlatformServer

BOT_TOKEN = "123456:TEST-telegram-token"
WEBHOOK_SECRET = "test-webhook-secret_0123"


@dataclass
class TelegramMessage:
    chat_id: str
    message_id: int
    text: str
    edits: list[str] = field(default_factory=list)


class TelegramServer(PlatformServer):
    def __init__(self) -> None:
        super().__init__()
        self.messages: list[TelegramMessage] = []
        self.files: dict[str, bytes] = {}
        self._ids = itertools.count(1)

    def reset(self) -> None:
        with self.lock:
            self.messages.clear()
            self.files.clear()

    def chat(self, chat_id: str) -> list[TelegramMessage]:
        with self.lock:
            return [m for m in self.messages if m.chat_id == chat_id]

    def call(self, method: str, body: dict[str, Any]) -> dict[str, Any]:
        with self.lock:
            if method == "sendMessage":
                message = TelegramMessage(str(body["chat_id"]), next(self._ids), str(body["text"]))
                message.edits.append(message.text)
                self.messages.append(message)
                return {"ok": True, "result": {"message_id": message.message_id}}
            if method == "editMessageText":
                found = next(
                    (
                        m
                        for m in self.messages
                        if m.chat_id == str(body["chat_id"]) and m.message_id == body["message_id"]
                    ),
                    None,
                )
                if found is None:
                    return {
                        "ok": False,
                        "error_code": 400,
                        "description": "message to edit not found",
                    }
                found.text = str(body["text"])
                found.edits.append(found.text)
                return {"ok": True, "result": {"message_id": found.message_id}}
            if method == "getFile" and body.get("file_id") in self.files:
                return {"ok": True, "result": {"file_path": f"documents/{body['file_id']}"}}
            return {"ok": False, "error_code": 400, "description": f"unknown {method}"}

    def handler(self) -> type[PlatformHandler]:
        server = self

        class Handler(PlatformHandler):
            def do_GET(self) -> None:
                prefix = f"/file/bot{BOT_TOKEN}/documents/"
                content = server.files.get(self.path.removeprefix(prefix))
                if not self.path.startswith(prefix) or content is None:
                    return self.reply(404, b"")
                return self.reply(200, content)

            def do_POST(self) -> None:
                prefix = f"/bot{BOT_TOKEN}/"
                if not self.path.startswith(prefix):
                    unauthorized = {"ok": False, "error_code": 401, "description": "Unauthorized"}
                    return self.reply(401, unauthorized)
                result = server.call(self.path.removeprefix(prefix), self.body())
                return self.reply(200 if result["ok"] else 400, result)

        return Handler


_updates = itertools.count(1)


def telegram_update(*, chat_id: int, message_id: int, text: str, **message: Any) -> bytes:
    return json.dumps(
        {
            "update_id": next(_updates),
            "message": {
                "message_id": message_id,
                "from": {"id": chat_id, "is_bot": False, "first_name": "Rider"},
                "chat": {"id": chat_id, "type": "private"},
                "date": 1796170000,
                "text": text,
                **message,
            },
        }
    ).encode()
