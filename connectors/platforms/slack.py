"""Slack through `slack-sdk`: the Events API in (signing-secret verification with Slack's 5-minute
replay window), the Web API out: answers in the message's thread, written as they stream
(chat.postMessage, then chat.update), the sources as a context block.

Answered: a mention of the app, a direct message, and any message in a thread the app already answers.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlsplit

from django.http import HttpRequest, JsonResponse
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError
from slack_sdk.signature import SignatureVerifier

from connectors.errors import DeliveryError, InboundInvalid, SignatureRefused
from connectors.models import Channel, ChannelThread, InboundEvent
from connectors.notices import notice
from connectors.platforms.base import Attachment, InboundMessage, Outgoing, Parsed
from connectors.platforms.stream import EditingStream
from connectors.text import text_split

SLACK_API = "https://slack.com/api/"
# A section block's text holds 3,000 characters: a longer answer goes out as several messages.
SECTION_LIMIT = 3000
ATTACHMENT_MAX_BYTES = 20 * 1024 * 1024
FILE_HOSTS = {"files.slack.com", "slack.com"}
# The most often a streamed answer's message is edited (chat.update is a tier-3 method: ~50 a minute).
STREAM_EDIT_SECONDS = 0.5
_MENTION = re.compile(r"<@[A-Z0-9]+(?:\|[^>]*)?>\s*")


class SlackConnector:
    def __init__(self, channel: Channel) -> None:
        self.channel = channel
        self.client = WebClient(
            token=channel.secrets.get("bot_token", ""),
            base_url=channel.api_base_url or SLACK_API,
            timeout=10,
        )

    # --- in ---------------------------------------------------------------------------------
    def verify(self, request: HttpRequest) -> None:
        secret = self.channel.secrets.get("signing_secret", "")
        if not secret:
            raise SignatureRefused("the channel has no signing secret")
        try:
            valid = SignatureVerifier(secret).is_valid(
                body=request.body,
                timestamp=request.headers.get("X-Slack-Request-Timestamp"),
                signature=request.headers.get("X-Slack-Signature"),
            )
        except ValueError:  # a timestamp that is not a number
            valid = False
        if not valid:
            raise SignatureRefused("bad or missing Slack signature, or a replayed timestamp")

    def parse(self, request: HttpRequest) -> Parsed:
        try:
            body = json.loads(request.body)
        except ValueError as error:
            raise InboundInvalid("the body is not JSON") from error
        if body.get("type") == "url_verification":
            return Parsed(response=JsonResponse({"challenge": str(body.get("challenge", ""))}))
        event = body.get("event") or {}
        if body.get("type") != "event_callback" or not isinstance(event, dict):
            return Parsed()
        message = _message(event)
        return Parsed(messages=[message] if message else [])

    def attachment_fetch(self, attachment: Attachment) -> bytes:
        """A file's bytes, fetched with the bot token: only from Slack's file hosts (or the
        configured API's host), never from a URL anywhere else."""
        allowed = FILE_HOSTS | {urlsplit(self.channel.api_base_url).hostname or ""}
        if urlsplit(attachment.url).hostname not in allowed:
            raise InboundInvalid(f"not a Slack file URL: {attachment.url}")
        request = urllib.request.Request(  # noqa: S310 (the host is checked above)
            attachment.url,
            headers={"Authorization": f"Bearer {self.channel.secrets.get('bot_token', '')}"},
        )
        with urllib.request.urlopen(request, timeout=20) as response:  # noqa: S310
            data: bytes = response.read(ATTACHMENT_MAX_BYTES + 1)
        if len(data) > ATTACHMENT_MAX_BYTES:
            raise InboundInvalid(f"{attachment.name} is larger than {ATTACHMENT_MAX_BYTES} bytes")
        return data

    # --- out --------------------------------------------------------------------------------
    def stream_emitter(self, *, thread: ChannelThread, event: InboundEvent) -> EditingStream:
        return EditingStream(
            event=event,
            post=lambda text: self.post(thread=thread, text=text),
            edit=lambda ref, text: self.edit(thread=thread, ref=ref, text=text),
            shown=lambda text: _escape(text) + " …",
            every=STREAM_EDIT_SECONDS,
            errors=(SlackClientError, OSError),
        )

    def send(
        self, *, thread: ChannelThread, outgoing: Outgoing, parts: list[str], replace_ref: str
    ) -> list[str]:
        sent = list(parts)
        for index, (text, blocks) in enumerate(slack_messages(outgoing)):
            if index < len(sent):
                continue  # an earlier attempt sent it
            try:
                if index == 0 and replace_ref:
                    self.client.chat_update(
                        channel=thread.address["channel"], ts=replace_ref, text=text, blocks=blocks
                    )
                    sent.append(replace_ref)
                else:
                    response = self.client.chat_postMessage(
                        channel=thread.address["channel"],
                        thread_ts=thread.address.get("thread_ts") or None,
                        text=text,
                        blocks=blocks,
                    )
                    sent.append(str(response["ts"]))
            except SlackApiError as error:
                raise _delivery_error(error, sent) from error
            except (SlackClientError, OSError) as error:  # the network, a timeout
                raise DeliveryError(str(error), transient=True, parts=sent) from error
        return sent

    def post(self, *, thread: ChannelThread, text: str) -> str:
        response = self.client.chat_postMessage(
            channel=thread.address["channel"],
            thread_ts=thread.address.get("thread_ts") or None,
            text=text,
        )
        return str(response["ts"])

    def edit(self, *, thread: ChannelThread, ref: str, text: str) -> None:
        self.client.chat_update(channel=thread.address["channel"], ts=ref, text=text)


def slack_messages(outgoing: Outgoing) -> list[tuple[str, list[dict[str, Any]]]]:
    """The messages an outgoing text becomes: (fallback text, blocks) pieces of at most
    SECTION_LIMIT characters cut between sentences, the sources as a context block on the last."""
    text = _escape(outgoing.text)
    if outgoing.kind == "agent" and outgoing.author:
        text = f"*{_escape(outgoing.author)}*: {text}"
    elif outgoing.kind == "notice":
        text = f"_{text}_"
    pieces = text_split(text, limit=SECTION_LIMIT, language=outgoing.locale)
    messages = [
        (piece, [{"type": "section", "text": {"type": "mrkdwn", "text": piece}}])
        for piece in pieces
    ]
    if outgoing.sources:
        page = notice("page", locale=outgoing.locale)
        lines = [
            f"[{s.n}] {_escape(s.title)}" + (f" ({page} {s.page})" if s.page else "")
            for s in outgoing.sources
        ]
        label = notice("sources", locale=outgoing.locale)
        context: dict[str, Any] = {
            "type": "context",
            "elements": [{"type": "mrkdwn", "text": f"{label}: " + " · ".join(lines)[:2900]}],
        }
        messages[-1][1].append(context)
    return messages


def _message(event: dict[str, Any]) -> InboundMessage | None:
    """The visitor message of a `message` or `app_mention` event; None for what the app ignores (its
    own and other bots' messages, edits, joins, channel messages outside its threads)."""
    kind = event.get("type")
    if kind not in {"message", "app_mention"} or event.get("bot_id"):
        return None
    if event.get("subtype") not in {None, "file_share"}:
        return None
    channel, ts, user = event.get("channel"), event.get("ts"), event.get("user")
    if not (channel and ts and user):
        return None
    direct = event.get("channel_type") == "im"
    thread_ts = event.get("thread_ts") or ""
    if kind == "message" and not direct and not thread_ts:
        return None  # a channel message that does not mention the app
    root = thread_ts or ts
    key = f"{channel}:{root}"
    files = [
        Attachment(
            name=str(f.get("name") or "file"),
            content_type=str(f.get("mimetype") or ""),
            url=str(f.get("url_private_download") or f.get("url_private") or ""),
        )
        for f in event.get("files") or []
        if isinstance(f, dict)
    ]
    return InboundMessage(
        message_id=f"{channel}:{ts}",
        thread_key=key,
        text=_unescape(_MENTION.sub("", str(event.get("text") or ""))).strip(),
        visitor_id=str(user),
        address={"channel": channel, "thread_ts": root},
        thread_refs=(key,),
        attachments=tuple(files),
        # A channel message (not a mention) counts only in a thread the app already answers.
        new_thread_allowed=kind == "app_mention" or direct,
    )


def _delivery_error(error: SlackApiError, sent: list[str]) -> DeliveryError:
    status = error.response.status_code
    headers = {k.lower(): v for k, v in (error.response.headers or {}).items()}
    retry_after: float | None = None
    try:
        retry_after = float(headers["retry-after"]) if "retry-after" in headers else None
    except ValueError:
        retry_after = None
    transient = status == 429 or status >= 500 or error.response.get("error") == "ratelimited"
    reason = error.response.get("error") or f"HTTP {status}"
    return DeliveryError(
        f"Slack answered {reason}", transient=transient, retry_after=retry_after, parts=sent
    )


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _unescape(text: str) -> str:
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
