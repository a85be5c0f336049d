"""Telegram through the Bot API with httpx: the webhook in (Telegram sends the secret token given to
setWebhook in `X-Telegram-Bot-Api-Secret-Token`; there is no signature nor timestamp, and a
redelivered update finds its stored message), sendMessage and editMessageText out, so an answer is
written as it streams. One chat is one conversation."""

from __future__ import annotations

import hmac
import json
from typing import Any

import httpx
from django.http import HttpRequest

from connectors.errors import DeliveryError, InboundInvalid, SignatureRefused
from connectors.models import Channel, ChannelThread, InboundEvent
from connectors.platforms.base import Attachment, InboundMessage, Outgoing, Parsed
from connectors.platforms.stream import EditingStream
from connectors.platforms.whatsapp import whatsapp_text
from connectors.text import text_split

BOT_API = "https://api.telegram.org/"
TEXT_LIMIT = 4096
STREAM_EDIT_SECONDS = 1.0  # Telegram limits edits of one chat to about one a second
ATTACHMENT_MAX_BYTES = 20 * 1024 * 1024  # getFile's own limit


class TelegramConnector:
    def __init__(self, channel: Channel) -> None:
        self.channel = channel
        base = (channel.api_base_url or BOT_API).rstrip("/") + "/"
        token = channel.secrets.get("bot_token", "")
        self.methods = f"{base}bot{token}/"
        self.files = f"{base}file/bot{token}/"

    # --- in ---------------------------------------------------------------------------------
    def verify(self, request: HttpRequest) -> None:
        expected = self.channel.secrets.get("webhook_secret", "")
        given = request.headers.get("X-Telegram-Bot-Api-Secret-Token", "")
        if not expected or not hmac.compare_digest(expected, given):
            raise SignatureRefused("bad or missing X-Telegram-Bot-Api-Secret-Token")

    def parse(self, request: HttpRequest) -> Parsed:
        try:
            update = json.loads(request.body)
        except ValueError as error:
            raise InboundInvalid("the body is not JSON") from error
        message = update.get("message") if isinstance(update, dict) else None
        if not isinstance(message, dict) or (message.get("from") or {}).get("is_bot"):
            return Parsed()  # edits, channel posts, bots: not a visitor's question
        chat = str((message.get("chat") or {}).get("id", ""))
        if not chat or "message_id" not in message:
            return Parsed()
        files = []
        document = message.get("document")
        if isinstance(document, dict):
            files.append(
                Attachment(
                    name=str(document.get("file_name") or "document"),
                    content_type=str(document.get("mime_type") or ""),
                    url=str(document.get("file_id", "")),
                )
            )
        if message.get("photo"):
            largest = message["photo"][-1]
            files.append(
                Attachment(
                    name="photo.jpg", content_type="image/jpeg", url=str(largest.get("file_id", ""))
                )
            )
        return Parsed(
            messages=[
                InboundMessage(
                    message_id=f"{chat}:{message['message_id']}",
                    thread_key=chat,
                    text=str(message.get("text") or message.get("caption") or "").strip(),
                    visitor_id=str((message.get("from") or {}).get("id", chat)),
                    address={"chat_id": chat},
                    thread_refs=(chat,),
                    attachments=tuple(files),
                )
            ]
        )

    def attachment_fetch(self, attachment: Attachment) -> bytes:
        with httpx.Client(timeout=20) as client:
            found = client.post(f"{self.methods}getFile", json={"file_id": attachment.url}).json()
            if not found.get("ok"):
                raise InboundInvalid(f"{attachment.name}: {found.get('description', 'no file')}")
            response = client.get(f"{self.files}{found['result']['file_path']}")
            response.raise_for_status()
        if len(response.content) > ATTACHMENT_MAX_BYTES:
            raise InboundInvalid(f"{attachment.name} is larger than {ATTACHMENT_MAX_BYTES} bytes")
        return response.content

    # --- out --------------------------------------------------------------------------------
    def stream_emitter(self, *, thread: ChannelThread, event: InboundEvent) -> EditingStream:
        chat = thread.address["chat_id"]

        def post(text: str) -> str:
            return str(
                self.call("sendMessage", {"chat_id": chat, "text": text}, sent=[])["message_id"]
            )

        def edit(ref: str, text: str) -> None:
            self.call(
                "editMessageText", {"chat_id": chat, "message_id": int(ref), "text": text}, sent=[]
            )

        return EditingStream(
            event=event,
            post=post,
            edit=edit,
            shown=lambda text: text[: TEXT_LIMIT - 2] + " …",
            every=STREAM_EDIT_SECONDS,
            errors=(DeliveryError,),
        )

    def call(self, method: str, payload: dict[str, Any], *, sent: list[str]) -> dict[str, Any]:
        try:
            with httpx.Client(timeout=httpx.Timeout(10.0, connect=5.0)) as client:
                response = client.post(f"{self.methods}{method}", json=payload)
        except httpx.HTTPError as error:
            raise DeliveryError(str(error), transient=True, parts=sent) from error
        try:
            body = response.json()
        except ValueError:
            body = {}
        if response.status_code >= 400 or not body.get("ok"):
            retry_after = (body.get("parameters") or {}).get("retry_after")
            status = response.status_code
            raise DeliveryError(
                f"Telegram answered {status}: {body.get('description', '')}"[:300],
                transient=status == 429 or status >= 500,
                retry_after=float(retry_after) if retry_after is not None else None,
                parts=sent,
            )
        result: dict[str, Any] = body.get("result") or {}
        return result

    def send(
        self, *, thread: ChannelThread, outgoing: Outgoing, parts: list[str], replace_ref: str
    ) -> list[str]:
        sent = list(parts)
        chat = thread.address["chat_id"]
        pieces = text_split(whatsapp_text(outgoing), limit=TEXT_LIMIT, language=outgoing.locale)
        for index, piece in enumerate(pieces):
            if index < len(sent):
                continue
            if index == 0 and replace_ref:
                self.call(
                    "editMessageText",
                    {"chat_id": chat, "message_id": int(replace_ref), "text": piece},
                    sent=sent,
                )
                sent.append(replace_ref)
            else:
                result = self.call("sendMessage", {"chat_id": chat, "text": piece}, sent=sent)
                sent.append(str(result["message_id"]))
        return sent
