"""A channel's secrets: written, never read back by the admin (it shows which are set, not their values)."""

from __future__ import annotations

from collections.abc import Mapping

from connectors.models import Channel

SECRET_NAMES: dict[str, tuple[str, ...]] = {
    Channel.Kind.SLACK: ("signing_secret", "bot_token"),
    Channel.Kind.EMAIL: ("webhook_signing_key", "smtp_password", "imap_password"),
    Channel.Kind.WHATSAPP: ("app_secret", "access_token", "verify_token"),
    Channel.Kind.TELEGRAM: ("bot_token", "webhook_secret"),
    Channel.Kind.TEAMS: ("app_password",),
}


def channel_secrets_set(*, channel: Channel, values: Mapping[str, str]) -> list[str]:
    """Store the non-blank values among the kind's secrets (a blank field keeps the stored one);
    returns the names changed. Saved by the caller with the channel."""
    names = SECRET_NAMES.get(channel.kind, ())
    changed = [name for name in names if values.get(name, "").strip()]
    channel.secrets = {
        **{k: v for k, v in channel.secrets.items() if k in names},
        **{name: values[name].strip() for name in changed},
    }
    return changed


def channel_secrets_shown(*, channel: Channel) -> str:
    """What the admin shows of the secrets: which are set, and the last 4 characters of each."""
    names = SECRET_NAMES.get(channel.kind, ())
    shown = [
        f"{name}: …{channel.secrets[name][-4:]}"
        if channel.secrets.get(name)
        else f"{name}: not set"
        for name in names
    ]
    return "; ".join(shown)
