"""The kinds of audit entry: what the audited table (audit.registry) names each model's entries, and what
the entry model stores and filters by. Apart from both so that the table needs no model to name them."""

from __future__ import annotations

from django.db import models


class AuditKind(models.TextChoices):
    """What an entry is about: one kind per audited model (audit.registry) and the logins."""

    BOT = "bot", "Bot"
    TEMPLATE = "template", "Prompt template"
    TOPIC = "topic", "Topic"
    LEXICON = "lexicon", "Lexicon group"
    DOCUMENT = "document", "Document"
    SOURCE = "source", "Knowledge source"
    API_KEY = "api_key", "Server API key"
    WIDGET_KEY = "widget_key", "Widget key and origins"
    SIGNING_SECRET = "signing_secret", "Bot signing secret"
    MEMBER = "member", "Member and role"
    WORKSPACE = "workspace", "Workspace settings"
    HANDOFF_POLICY = "handoff_policy", "Handoff policy"
    QUARANTINE_RELEASE = "quarantine_release", "Release from quarantine"
    LOGIN = "login", "Login"
    LOGIN_FAILED = "login_failed", "Failed login"
    USER = "user", "User account"
