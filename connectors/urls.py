from django.urls import path

from connectors.views import (
    email_inbound,
    slack_events,
    teams_messages,
    telegram_webhook,
    whatsapp_webhook,
)

app_name = "connectors"
urlpatterns = [
    path("<uuid:channel_id>/slack/events", slack_events, name="slack-events"),
    path("<uuid:channel_id>/email/inbound", email_inbound, name="email-inbound"),
    path("<uuid:channel_id>/whatsapp/webhook", whatsapp_webhook, name="whatsapp-webhook"),
    path("<uuid:channel_id>/telegram/webhook", telegram_webhook, name="telegram-webhook"),
    path("<uuid:channel_id>/teams/messages", teams_messages, name="teams-messages"),
]
