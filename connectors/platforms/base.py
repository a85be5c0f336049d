"""The one connector interface: a platform's signed request in, visitor messages out; what the
visitor should read (rendered once, platform-neutral) sent back, edited in place where the platform can.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from django.http import HttpRequest, HttpResponse

from connectors.notices import notice

if TYPE_CHECKING:
    from connectors.models import Channel, ChannelThread, InboundEvent
    from conversations.pipeline.events import PipelineEmitter


@dataclass(frozen=True)
class Attachment:
    """A file sent with a message: its bytes when the request carries them (e-mail), else a URL the
    connector fetches with its credentials (Slack)."""

    name: str
    content_type: str = ""
    content: bytes | None = None
    url: str = ""


@dataclass(frozen=True)
class InboundMessage:
    """A platform's message as a visitor message. ``message_id`` is the platform's (its retries carry
    the same); ``thread_key`` names the platform thread a new conversation is filed under, and
    ``thread_refs``/``thread_ids`` the existing threads it may continue (the first found wins)."""

    message_id: str
    thread_key: str
    text: str
    visitor_id: str
    address: dict[str, Any]
    thread_refs: tuple[str, ...] = ()
    thread_ids: tuple[int, ...] = ()
    attachments: tuple[Attachment, ...] = ()
    # E-mail: a thread is continued only by the address that started it (References can be forged).
    same_visitor_only: bool = False
    # False: the message only counts in a thread already known (Slack: a reply in the app's thread).
    new_thread_allowed: bool = True


@dataclass
class Parsed:
    """What a verified request holds: messages to accept, or a response of its own (Slack's URL
    verification challenge); either way the platform gets 200 once the messages are stored."""

    messages: list[InboundMessage] = field(default_factory=list)
    response: HttpResponse | None = None


@dataclass(frozen=True)
class Source:
    n: int
    title: str
    page: int | None = None


@dataclass(frozen=True)
class Outgoing:
    """One thing the visitor reads: the bot's answer (with its sources), an agent's reply (``author``:
    the name visitors read) or a notice."""

    text: str
    kind: str  # "answer", "agent" or "notice"
    locale: str = "en"
    sources: tuple[Source, ...] = ()
    author: str = ""


def sources_footnotes(outgoing: Outgoing) -> str:
    """The text with its sources as numbered footnotes (e-mail, WhatsApp, Telegram)."""
    if not outgoing.sources:
        return outgoing.text
    page = notice("page", locale=outgoing.locale)
    notes = [
        f"[{s.n}] {s.title}" + (f", {page} {s.page}" if s.page else "") for s in outgoing.sources
    ]
    return f"{outgoing.text}\n\n{notice('sources', locale=outgoing.locale)}:\n" + "\n".join(notes)


class Connector(Protocol):
    channel: Channel

    def __init__(self, channel: Channel) -> None: ...

    def verify(self, request: HttpRequest) -> None:
        """Raise SignatureRefused unless the request is the platform's, signed, and recent."""

    def parse(self, request: HttpRequest) -> Parsed: ...

    def attachment_fetch(self, attachment: Attachment) -> bytes: ...

    def stream_emitter(
        self, *, thread: ChannelThread, event: InboundEvent
    ) -> PipelineEmitter | None:
        """An emitter writing the answer into a platform message as it streams (its id saved in
        ``event.reply_ref``), or None where messages cannot be edited."""

    def send(
        self, *, thread: ChannelThread, outgoing: Outgoing, parts: list[str], replace_ref: str
    ) -> list[str]:
        """Send (``replace_ref``: edit that message instead, the streamed answer) and return the
        platform ids of the pieces; ``parts`` were sent by an earlier attempt and are not sent again.
        Raise DeliveryError."""
