"""Channels in the admin, per bot: the platform's settings, the secrets write-only (a blank field keeps
the stored value; the page shows which are set and their last 4 characters, never the values), the
URL to give the platform, and the outbox (a failed row can be queued again)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html

from connectors.models import Channel, OutboxMessage
from connectors.services.channels import SECRET_NAMES, channel_secrets_set, channel_secrets_shown
from core.admin_scoping import WorkspaceScopedAdmin

SETTING_NAMES = (
    "from_address",
    "smtp_host",
    "smtp_port",
    "smtp_username",
    "smtp_tls",
    "whatsapp_template",
    "whatsapp_template_language",
    "imap_host",
    "imap_port",
    "imap_security",
    "imap_username",
    "imap_folder",
    "teams_app_id",
    "teams_tenant",
)
_URL_NAMES: dict[str, str] = {
    Channel.Kind.SLACK: "connectors:slack-events",
    Channel.Kind.EMAIL: "connectors:email-inbound",
    Channel.Kind.WHATSAPP: "connectors:whatsapp-webhook",
    Channel.Kind.TELEGRAM: "connectors:telegram-webhook",
    Channel.Kind.TEAMS: "connectors:teams-messages",
}


def _secret(help_text: str = "") -> forms.CharField:
    """A write-only field: never rendered back (blank keeps the stored value)."""
    return forms.CharField(
        required=False, widget=forms.PasswordInput(render_value=False), help_text=help_text
    )


class ChannelForm(forms.ModelForm[Channel]):
    signing_secret = _secret("Slack: Basic Information → App Credentials → Signing Secret.")
    bot_token = _secret(
        "Slack: OAuth & Permissions → Bot User OAuth Token (xoxb-…). Telegram: BotFather's token."
    )
    webhook_signing_key = _secret(
        "E-mail (Mailgun): Sending → Webhooks → HTTP webhook signing key."
    )
    api_base_url = forms.URLField(
        required=False,
        assume_scheme="https",
        help_text="Blank: the platform's own API. Only to reach a proxy or a test server.",
    )
    smtp_password = _secret()
    app_secret = _secret("WhatsApp: the Meta app's App Secret (App settings → Basic).")
    access_token = _secret("WhatsApp: a system user's permanent access token.")
    webhook_secret = _secret(
        "Telegram: the secret_token you give setWebhook (1-256 of A-Z a-z 0-9 _ -)."
    )
    verify_token = _secret("WhatsApp: any string; give Meta the same one with the callback URL.")
    imap_host = forms.CharField(
        required=False,
        help_text="E-mail by IMAP polling (instead of a provider's webhook): the mailbox's server.",
    )
    imap_port = forms.IntegerField(required=False, min_value=1, max_value=65535)
    imap_security = forms.ChoiceField(
        required=False,
        choices=[("ssl", "TLS (993)"), ("starttls", "STARTTLS (143)"), ("none", "None")],
    )
    imap_username = forms.CharField(required=False)
    imap_folder = forms.CharField(required=False, help_text="Blank: INBOX.")
    imap_password = _secret()
    app_password = _secret("Teams: the Azure Bot's client secret (its app registration's).")
    teams_app_id = forms.CharField(
        required=False, help_text="Teams: the Azure Bot's Microsoft App ID (a GUID)."
    )
    teams_tenant = forms.CharField(
        required=False,
        help_text="Teams: a single-tenant bot's tenant id (blank: multi-tenant, botframework.com).",
    )
    whatsapp_template = forms.CharField(
        required=False,
        help_text="WhatsApp: an approved template with one body parameter, for notices and agents' "
        "replies outside the 24-hour window (blank: they wait for the visitor's next message).",
    )
    whatsapp_template_language = forms.CharField(
        required=False, help_text="WhatsApp: the template's language code."
    )
    from_address = forms.EmailField(
        required=False, help_text="E-mail: the address answers come from."
    )
    smtp_host = forms.CharField(
        required=False, help_text="E-mail: blank uses the project's e-mail backend."
    )
    smtp_port = forms.IntegerField(required=False, min_value=1, max_value=65535)
    smtp_username = forms.CharField(required=False)
    smtp_tls = forms.BooleanField(required=False, label="SMTP STARTTLS")

    class Meta:
        model = Channel
        fields = ["bot", "kind", "name", "enabled", "accept_attachments", "api_base_url"]

    # Only superusers point a channel at another API host: a workspace admin choosing the host the
    # server calls (with the bot token) could aim it at the internal network.
    api_url_locked = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.api_url_locked:
            self.fields["api_base_url"].disabled = True
            self.fields["api_base_url"].help_text = "Set by a superuser only."
        for name in SETTING_NAMES:
            self.fields[name].initial = self.instance.settings.get(name)

    def save(self, commit: bool = True) -> Channel:
        channel: Channel = super().save(commit=False)
        channel.settings = {
            name: self.cleaned_data.get(name)
            for name in SETTING_NAMES
            if self.cleaned_data.get(name) not in (None, "")
        }
        channel_secrets_set(
            channel=channel,
            values={
                name: self.cleaned_data.get(name) or ""
                for names in SECRET_NAMES.values()
                for name in names
            },
        )
        if commit:
            channel.save()
        return channel


@admin.register(Channel)
class ChannelAdmin(WorkspaceScopedAdmin[Channel]):
    workspace_lookup = "bot__workspace"
    form = ChannelForm
    list_display = ["name", "kind", "bot", "enabled", "platform_url"]
    list_filter = ["kind", "enabled"]
    readonly_fields = ["platform_url", "secrets_set"]

    @admin.display(description="URL to give the platform")
    def platform_url(self, channel: Channel) -> str:
        if channel.pk is None or channel._state.adding:
            return "shown once the channel is saved"
        return format_html(
            "<code>{}</code>", self._absolute(reverse(_URL_NAMES[channel.kind], args=[channel.pk]))
        )

    @admin.display(description="Secrets")
    def secrets_set(self, channel: Channel) -> str:
        return channel_secrets_shown(channel=channel)

    def _absolute(self, path: str) -> str:
        request = getattr(self, "_request", None)
        return request.build_absolute_uri(path) if request is not None else path

    def get_form(
        self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any
    ) -> Any:
        self._request = request
        form = super().get_form(request, obj, change, **kwargs)
        if getattr(request.user, "is_superuser", False):
            return form
        return type("LockedChannelForm", (form,), {"api_url_locked": True})


@admin.register(OutboxMessage)
class OutboxMessageAdmin(WorkspaceScopedAdmin[OutboxMessage]):
    workspace_lookup = "thread__channel__bot__workspace"
    list_display = [
        "created_at",
        "thread",
        "source_key",
        "status",
        "attempts",
        "next_attempt_at",
        "last_error",
    ]
    list_filter = ["status"]
    readonly_fields = [f.name for f in OutboxMessage._meta.fields]
    actions = ["retry"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.action(description="Queue the failed messages again", permissions=["change"])
    def retry(self, request: HttpRequest, queryset: QuerySet[OutboxMessage]) -> None:
        from connectors.tasks import thread_deliver_task

        rows = queryset.filter(status=OutboxMessage.Status.FAILED)
        threads = set(rows.values_list("thread_id", flat=True))
        count = rows.update(status=OutboxMessage.Status.PENDING, next_attempt_at=None)
        for thread_id in threads:
            thread_deliver_task.delay(thread_id)
        messages.success(request, f"{count} message(s) queued again.")
