"""Writes for the widget: the demo bot's widget key, look and agent access (run by ``manage.py demo_widget``).

The demo key allows the address Parley serves on (``PARLEY_HOST``/``PARLEY_PORT``): a run on another
port moves its loopback origins there, and keeps any other origin an admin added."""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction

from api.models import WidgetKey
from api.services import origin_normalize, widget_key_create
from bots.models import Bot
from core.models import Membership
from handoff.models import HandoffPolicy
from widget.models import WidgetAppearance
from widget.selectors import DEMO_KEY_NAME, demo_widget_key_get

# The names a browser may use for this machine: a page served on one of them is the same demo.
_LOOPBACK_HOSTS = ("127.0.0.1", "localhost")
_ANY_ADDRESS = ("0.0.0.0", "::", "")  # noqa: S104 (names of the wildcard address, not a bind)


def demo_origins() -> tuple[str, ...]:
    """The origins of the demo page as this run serves it: PARLEY_HOST and PARLEY_PORT, with both
    loopback names when the host is a loopback or wildcard address."""
    host, port = str(settings.PARLEY_HOST), int(settings.PARLEY_PORT)
    hosts = _LOOPBACK_HOSTS if host in (*_LOOPBACK_HOSTS, *_ANY_ADDRESS) else (host,)
    return tuple(origin_normalize(f"http://{name}:{port}") for name in hosts)


def _loopback(origin: str) -> bool:
    return urlsplit(origin).hostname in _LOOPBACK_HOSTS


def demo_widget_ensure(*, bot: Bot, origins: tuple[str, ...] | None = None) -> WidgetKey:
    """Idempotent: a widget key for the demo page, the bot's look, and superusers as the demo's agents.

    The key allows `origins` (default: where this run serves, `demo_origins`). An existing key's
    loopback origins are replaced by them, since an earlier run on another port no longer serves
    there; an origin an admin added for a real site stays."""
    wanted = [origin_normalize(origin) for origin in (origins or demo_origins())]
    with transaction.atomic():
        key = demo_widget_key_get(bot=bot) or widget_key_create(
            bot=bot, name=DEMO_KEY_NAME, allowed_origins=wanted
        )
        kept = [origin for origin in key.allowed_origins if not _loopback(origin)]
        allowed = sorted({*kept, *wanted})
        if allowed != sorted(key.allowed_origins):
            key.allowed_origins = allowed
            key.save(update_fields=["allowed_origins"])  # its signal drops the cached key entry
        WidgetAppearance.objects.get_or_create(
            bot=bot,
            defaults={
                "title": "Lumi · Lumen Bikes",
                "greeting": "Hi! I am Lumi. Ask me about our e-bikes, batteries, delivery or warranty.",
                "primary_color": "#0f766e",
                "strings": {
                    "fr": {
                        "placeholder": "Votre question sur nos vélos…",
                        "greeting": "Bonjour ! Je suis Lumi. Posez-moi vos questions sur nos vélos "
                        "électriques, les batteries, la livraison ou la garantie.",
                    },
                    "de": {
                        "greeting": "Hallo! Ich bin Lumi. Fragen Sie mich zu unseren E-Bikes, Akkus, "
                        "zur Lieferung oder zur Garantie.",
                    },
                },
            },
        )
        HandoffPolicy.objects.get_or_create(bot=bot)
        for user in get_user_model().objects.filter(is_superuser=True, is_active=True):
            Membership.objects.get_or_create(
                user=user, workspace=bot.workspace, defaults={"role": Membership.Role.OWNER}
            )
    return key
