"""Channels beyond the widget: a platform's inbound events become visitor messages for the one entry
point (`handoff.services.visitor_message_receive`), and what the visitor should read (the bot's answers,
the handoff notices, the agents' replies) goes back out through the platform from an outbox.
See docs/channels.md and docs/decisions/connectors.md."""
