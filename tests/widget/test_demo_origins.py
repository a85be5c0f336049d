"""The demo key follows where Parley serves (PARLEY_HOST/PARLEY_PORT), and a later run elsewhere moves
it, keeping an origin an admin added for a real site (issue 26)."""

from __future__ import annotations

import pytest
from django.test import Client, override_settings

from api.models import WidgetKey
from prompts.services.demo import demo_bot_ensure
from widget.services import demo_origins, demo_widget_ensure

pytestmark = pytest.mark.django_db


@override_settings(PARLEY_HOST="127.0.0.1", PARLEY_PORT=8124)
def test_the_demo_key_allows_both_loopback_names_on_the_served_port() -> None:
    assert demo_origins() == ("http://127.0.0.1:8124", "http://localhost:8124")
    key = demo_widget_ensure(bot=demo_bot_ensure())
    assert key.allowed_origins == ["http://127.0.0.1:8124", "http://localhost:8124"]


@override_settings(PARLEY_HOST="demo.lumen.example", PARLEY_PORT=443)
def test_a_named_host_is_its_own_origin() -> None:
    assert demo_origins() == ("http://demo.lumen.example:443",)


def test_a_later_run_on_another_port_moves_the_loopback_origins_and_keeps_the_admins() -> None:
    bot = demo_bot_ensure()
    with override_settings(PARLEY_HOST="127.0.0.1", PARLEY_PORT=8000):
        key = demo_widget_ensure(bot=bot)
    WidgetKey.objects.filter(pk=key.pk).update(
        allowed_origins=[*key.allowed_origins, "https://shop.example"]
    )
    with override_settings(PARLEY_HOST="0.0.0.0", PARLEY_PORT=8124):  # noqa: S104 (a setting's value)
        moved = demo_widget_ensure(bot=bot)

    assert moved.pk == key.pk
    assert moved.allowed_origins == [
        "http://127.0.0.1:8124",
        "http://localhost:8124",
        "https://shop.example",
    ]
    # The key's cached entry went with the change: the new origin is let in, the old one is not.
    client = Client()
    headers = {"HTTP_AUTHORIZATION": f"Bearer {key.key}"}
    assert (
        client.get("/api/v1/me", HTTP_ORIGIN="http://127.0.0.1:8124", **headers).status_code == 200
    )
    refused = client.get("/api/v1/me", HTTP_ORIGIN="http://127.0.0.1:8000", **headers)
    assert (refused.status_code, refused.json()["code"]) == (401, "origin_not_allowed")


def test_the_admin_edits_origins_one_per_line_in_a_text_area() -> None:
    from api.admin import WidgetKeyForm

    bot = demo_bot_ensure()
    form = WidgetKeyForm(
        data={
            "bot": bot.pk,
            "name": "Shop",
            "allowed_origins": "https://shop.example\nHTTP://LOCALHOST:8124/\n\n",
        }
    )
    assert 'textarea name="allowed_origins"' in str(form["allowed_origins"])
    assert form.is_valid(), form.errors
    assert form.cleaned_data["allowed_origins"] == [
        "http://localhost:8124",
        "https://shop.example",
    ]
    key = demo_widget_ensure(bot=bot, origins=("http://localhost:8124", "https://shop.example"))
    shown = str(WidgetKeyForm(instance=key)["allowed_origins"])
    assert "http://localhost:8124\nhttps://shop.example</textarea>" in shown
