"""The connectors' errors (all ParleyErrors, with stable codes)."""

from __future__ import annotations

from core.errors import ErrorKind, ParleyError


class ChannelNotFound(ParleyError):
    """No enabled channel of that kind has this id: the URL the platform was given is stale."""

    code = "channel_not_found"
    kind = ErrorKind.NOT_FOUND


class SignatureRefused(ParleyError):
    """A request whose signature is missing, wrong, or made too long ago (a replay): answered 401,
    and nothing is stored."""

    code = "signature_refused"
    kind = ErrorKind.FORBIDDEN


class InboundInvalid(ParleyError):
    """A signed request whose body is not an event the connector understands."""

    code = "inbound_invalid"
    kind = ErrorKind.INVALID


class DeliveryError(ParleyError):
    """The platform did not take a message. ``transient`` (429, 5xx, a network failure): the outbox
    retries it, after ``retry_after`` seconds when the platform said so; else the row fails for good.
    ``parts``: the platform ids of the pieces of a split message already sent (not sent again)."""

    code = "delivery_failed"
    kind = ErrorKind.UNAVAILABLE

    def __init__(
        self,
        message: str,
        *,
        transient: bool,
        retry_after: float | None = None,
        parts: list[str] | None = None,
    ) -> None:
        super().__init__(message, extra={"transient": transient, "retry_after": retry_after})
        self.transient = transient
        self.retry_after = retry_after
        self.parts = list(parts or [])


class MailboxUnavailable(ParleyError):
    """An e-mail channel's IMAP mailbox could not be read (refused login, unreachable server, a
    failed command): the messages stay in the mailbox, unseen, for the next poll."""

    code = "mailbox_unavailable"
    kind = ErrorKind.UNAVAILABLE
