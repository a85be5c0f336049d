"""WhatsApp through the Cloud API (Meta's Graph API) with httpx: webhooks in, signed with the app
secret (`X-Hub-Signature-256`), messages out (`POST /<phone number id>/messages`).

Meta retries a webhook for days and signs no timestamp header, so there is no replay window here: a
replayed message finds its stored event (the `wamid` is the message id) and is answered once.

The 24-hour customer service window: a free-form message may only be sent within 24 hours of the
visitor's last message. Outside it, a notice or an agent's reply goes out as the approved template
the channel names (`whatsapp_template`, its body's one parameter the text), or, with none, waits in the
outbox until the visitor writes again (which reopens the window and releases the thread's rows).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from dataclasses import replace
from typing import Any

import httpx
from django.http import HttpRequest

from connectors.errors import DeliveryError, InboundInvalid, SignatureRefused
from connectors.models import Channel, ChannelThread, InboundEvent
from connectors.platforms.base import (
    Attachment,
    InboundMessage,
    Outgoing,
    Parsed,
    sources_footnotes,
)
from connectors.text import text_split

GRAPH_API = "https://graph.facebook.com/v21.0/"
TEXT_LIMIT = 4096  # a text message's body
WINDOW_SECONDS = 24 * 3600
WINDOW_WAIT_SECONDS = 3600.0  # re-checked hourly; a new visitor message releases it at once
ATTACHMENT_MAX_BYTES = 20 * 1024 * 1024
MEDIA_TYPES = ("image", "document", "audio", "video")


class WhatsAppConnector:
    def __init__(self, channel: Channel) -> None:
        self.channel = channel
        self.base = (channel.api_base_url or GRAPH_API).rstrip("/") + "/"

    def _client(self) -> httpx.Client:
        token = self.channel.secrets.get("access_token", "")
        return httpx.Client(
            headers={"Authorization": f"Bearer {token}"}, timeout=httpx.Timeout(10.0, connect=5.0)
        )

    # --- in ---------------------------------------------------------------------------------
    def verify(self, request: HttpRequest) -> None:
        secret = self.channel.secrets.get("app_secret", "")
        if not secret:
            raise SignatureRefused("the channel has no app secret")
        expected = "sha256=" + hmac.new(secret.encode(), request.body, hashlib.sha256).hexdigest()
        given = request.headers.get("X-Hub-Signature-256", "")
        if not hmac.compare_digest(expected, given):
            raise SignatureRefused("bad or missing X-Hub-Signature-256")

    def subscription_challenge(self, *, mode: str, token: str, challenge: str) -> str | None:
        """Meta's GET when the webhook URL is set: the challenge echoed when the verify token matches."""
        expected = self.channel.secrets.get("verify_token", "")
        if mode == "subscribe" and expected and hmac.compare_digest(expected, token):
            return challenge
        return None

    def parse(self, request: HttpRequest) -> Parsed:
        try:
            body = json.loads(request.body)
        except ValueError as error:
            raise InboundInvalid("the body is not JSON") from error
        messages = []
        for entry in body.get("entry") or []:
            for change in entry.get("changes") or []:
                value = change.get("value") or {}
                phone_id = str((value.get("metadata") or {}).get("phone_number_id", ""))
                for message in value.get("messages") or []:  # statuses (sent, read) are ignored
                    parsed = _message(message, phone_id=phone_id)
                    if parsed is not None:
                        messages.append(parsed)
        return Parsed(messages=messages)

    def attachment_fetch(self, attachment: Attachment) -> bytes:
        """The media's URL from the Graph API (by its id), then its bytes, with the token."""
        with self._client() as client:
            meta = client.get(f"{self.base}{attachment.url}")
            meta.raise_for_status()
            response = client.get(str(meta.json()["url"]))
            response.raise_for_status()
        if len(response.content) > ATTACHMENT_MAX_BYTES:
            raise InboundInvalid(f"{attachment.name} is larger than {ATTACHMENT_MAX_BYTES} bytes")
        return response.content

    # --- out --------------------------------------------------------------------------------
    def stream_emitter(self, *, thread: ChannelThread, event: InboundEvent) -> None:
        return None  # a WhatsApp message cannot be edited: the answer goes out whole

    def send(
        self, *, thread: ChannelThread, outgoing: Outgoing, parts: list[str], replace_ref: str
    ) -> list[str]:
        address = thread.address
        text = whatsapp_text(outgoing)
        open_window = time.time() - float(address.get("last_inbound_at") or 0) < WINDOW_SECONDS
        if open_window:
            bodies = [
                {"type": "text", "text": {"body": piece}}
                for piece in text_split(text, limit=TEXT_LIMIT, language=outgoing.locale)
            ]
        elif self.channel.settings.get("whatsapp_template"):
            bodies = [_template(self.channel, text=text, locale=outgoing.locale)]
        else:
            raise DeliveryError(
                "outside WhatsApp's 24-hour window and no template: waits for the visitor",
                transient=True,
                retry_after=WINDOW_WAIT_SECONDS,
                parts=parts,
            )
        sent = list(parts)
        url = f"{self.base}{address['phone_number_id']}/messages"
        with self._client() as client:
            for index, body in enumerate(bodies):
                if index < len(sent):
                    continue
                payload = {"messaging_product": "whatsapp", "to": address["to"], **body}
                try:
                    response = client.post(url, json=payload)
                except httpx.HTTPError as error:
                    raise DeliveryError(str(error), transient=True, parts=sent) from error
                if response.status_code >= 400:
                    raise _delivery_error(response, sent)
                sent.append(str(response.json()["messages"][0]["id"]))
        return sent


def whatsapp_text(outgoing: Outgoing) -> str:
    """WhatsApp's own markup: *bold* for an agent's name, _italic_ for a notice, sources as footnotes."""
    text = outgoing.text
    if outgoing.kind == "agent" and outgoing.author:
        text = f"*{outgoing.author}*: {text}"
    elif outgoing.kind == "notice":
        text = f"_{text}_"
    return sources_footnotes(replace(outgoing, text=text))


def _template(channel: Channel, *, text: str, locale: str) -> dict[str, Any]:
    return {
        "type": "template",
        "template": {
            "name": channel.settings["whatsapp_template"],
            "language": {"code": channel.settings.get("whatsapp_template_language") or locale},
            "components": [{"type": "body", "parameters": [{"type": "text", "text": text[:1024]}]}],
        },
    }


def _message(message: dict[str, Any], *, phone_id: str) -> InboundMessage | None:
    sender, message_id, kind = message.get("from"), message.get("id"), message.get("type")
    if not (sender and message_id and phone_id):
        return None
    text = ""
    attachments: tuple[Attachment, ...] = ()
    if kind == "text":
        text = str((message.get("text") or {}).get("body", ""))
    elif kind in MEDIA_TYPES:
        media = message.get(kind) or {}
        text = str(media.get("caption", ""))
        name = str(media.get("filename") or f"{kind}-{media.get('id', '')}")
        attachments = (
            Attachment(
                name=name,
                content_type=str(media.get("mime_type", "")),
                url=str(media.get("id", "")),
            ),
        )
    else:
        return None  # reactions, locations, contacts: not a question
    try:
        sent_at = float(message.get("timestamp") or time.time())
    except ValueError:
        sent_at = time.time()
    return InboundMessage(
        message_id=str(message_id),
        thread_key=f"{phone_id}:{sender}",
        text=text.strip(),
        visitor_id=str(sender),
        address={"to": str(sender), "phone_number_id": phone_id, "last_inbound_at": sent_at},
        thread_refs=(f"{phone_id}:{sender}",),
        attachments=attachments,
    )


def _delivery_error(response: httpx.Response, sent: list[str]) -> DeliveryError:
    status = response.status_code
    retry_after: float | None = None
    try:
        retry_after = (
            float(response.headers["retry-after"]) if "retry-after" in response.headers else None
        )
    except ValueError:
        retry_after = None
    return DeliveryError(
        f"WhatsApp answered HTTP {status}: {response.text[:300]}",
        transient=status == 429 or status >= 500,
        retry_after=retry_after,
        parts=sent,
    )
