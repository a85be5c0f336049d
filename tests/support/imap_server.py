"""A real IMAP server for the e-mail connector's polling tests: pymap (its in-memory `dict` backend)
in a child process on a free port, with one mailbox user. Mail is put in with IMAP APPEND, as a mail
server delivering it would leave it, and read back (flags included) with imap-tools."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

from imap_tools import MailBoxUnencrypted, MailMessage

from tests.support.processes import free_port, process_group_stop, wait_for

IMAP_USER = "help@lumen.example"
IMAP_PASSWORD = "test-imap-password"


class ImapServer:
    def __init__(self) -> None:
        self.port = free_port()
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> ImapServer:
        pymap = Path(sys.executable).with_name("pymap")
        self._process = subprocess.Popen(
            [
                str(pymap),
                "--host=127.0.0.1",
                f"--port={self.port}",
                "--no-tls",
                "--no-service=admin",
                "dict",
                f"--demo-user={IMAP_USER}",
                f"--demo-password={IMAP_PASSWORD}",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        wait_for(self._listening, timeout=30, what="pymap listening")
        return self

    def _listening(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                return True
        except OSError:
            return False

    def stop(self) -> None:
        if self._process is not None:
            process_group_stop(self._process, grace=5)

    def mailbox(self) -> MailBoxUnencrypted:
        return MailBoxUnencrypted("127.0.0.1", self.port).login(IMAP_USER, IMAP_PASSWORD)

    def deliver(self, mime: bytes) -> None:
        with self.mailbox() as mailbox:
            mailbox.append(mime, "INBOX")

    def messages(self) -> list[MailMessage]:
        with self.mailbox() as mailbox:
            return list(mailbox.fetch(mark_seen=False))

    def reset(self) -> None:
        with self.mailbox() as mailbox:
            uids = [m.uid for m in mailbox.fetch(mark_seen=False, headers_only=True) if m.uid]
            if uids:
                mailbox.delete(uids)
