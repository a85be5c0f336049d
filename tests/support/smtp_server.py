"""A real SMTP server (aiosmtpd) for the e-mail connector's tests: it keeps every message it accepts,
parsed, and can be told to refuse the next ones with a 4xx (try later) or 5xx (refused) reply."""

from __future__ import annotations

import email
import email.policy
import threading
from collections import deque
from collections.abc import Callable
from email.message import EmailMessage
from typing import Any

from aiosmtpd.controller import Controller

from tests.support.processes import free_port, wait_for


class _Handler:
    def __init__(self, server: SmtpServer) -> None:
        self.server = server

    async def handle_DATA(self, smtp: Any, session: Any, envelope: Any) -> str:
        with self.server.lock:
            if self.server.refusals:
                return self.server.refusals.popleft()
            message = email.message_from_bytes(envelope.content, policy=email.policy.default)
            assert isinstance(message, EmailMessage)
            self.server.messages.append(message)
        return "250 Message accepted for delivery"


class SmtpServer:
    def __init__(self) -> None:
        self.port = free_port()
        self.lock = threading.Lock()
        self.messages: list[EmailMessage] = []
        self.refusals: deque[str] = deque()
        self._controller = Controller(_Handler(self), hostname="127.0.0.1", port=self.port)

    def start(self) -> SmtpServer:
        self._controller.start()
        return self

    def stop(self) -> None:
        self._controller.stop()

    def reset(self) -> None:
        with self.lock:
            self.messages.clear()
            self.refusals.clear()

    def refuse_next(self, *replies: str) -> None:
        with self.lock:
            self.refusals.extend(replies)

    def to(self, address: str) -> list[EmailMessage]:
        with self.lock:
            return [m for m in self.messages if address in str(m["To"])]

    def wait_to(
        self,
        address: str,
        predicate: Callable[[list[EmailMessage]], bool],
        *,
        timeout: float = 60,
        what: str = "mail",
    ) -> list[EmailMessage]:
        wait_for(lambda: predicate(self.to(address)), timeout=timeout, what=what)
        return self.to(address)


def mail_text(message: EmailMessage) -> str:
    """The plain-text body with its line ends as written (SMTP's CRLF read back as LF)."""
    body = message.get_body(preferencelist=("plain",))
    text = body.get_content() if body is not None else ""
    return "\n".join(line.rstrip("\r") for line in text.split("\n"))
