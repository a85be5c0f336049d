"""The connectors' writes: a platform's message accepted and answered (`inbound`), what the visitor
should read queued and sent (`outbox`), a channel's secrets (`channels`)."""

from connectors.services.channels import channel_secrets_set
from connectors.services.imap import channel_imap_poll, imap_channels
from connectors.services.inbound import inbound_accept, inbound_process
from connectors.services.outbox import (
    DeliveryPass,
    conversation_outbox_fill,
    outbox_due_threads,
    thread_deliver,
)

__all__ = [
    "DeliveryPass",
    "channel_imap_poll",
    "channel_secrets_set",
    "conversation_outbox_fill",
    "imap_channels",
    "inbound_accept",
    "inbound_process",
    "outbox_due_threads",
    "thread_deliver",
]
