"""The URLs platforms are given: /channels/<channel id>/slack/events, .../email/inbound, .../whatsapp/webhook,
.../telegram/webhook, .../teams/messages.

An unknown (or disabled, or other kind's) channel id: 404. A bad or missing signature, or a replayed
timestamp: 401, and nothing is stored. Otherwise the messages are stored and the platform gets its 200
at once (Slack retries after 3 seconds); a worker answers them.
"""

from __future__ import annotations

import uuid

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST

from connectors.errors import ChannelNotFound, InboundInvalid, SignatureRefused
from connectors.models import Channel
from connectors.platforms import connector_for
from connectors.platforms.whatsapp import WhatsAppConnector
from connectors.services import inbound_accept


def _channel(channel_id: uuid.UUID, kind: str) -> Channel:
    channel = (
        Channel.objects.select_related("bot__workspace")
        .filter(pk=channel_id, kind=kind, enabled=True)
        .first()
    )
    if channel is None:
        raise ChannelNotFound("no such channel")
    return channel


def _error(error: ChannelNotFound | SignatureRefused | InboundInvalid, status: int) -> JsonResponse:
    return JsonResponse({"code": error.code, "message": error.message}, status=status)


def _receive(request: HttpRequest, channel_id: uuid.UUID, kind: str) -> HttpResponse:
    try:
        channel = _channel(channel_id, kind)
    except ChannelNotFound as error:
        return _error(error, 404)
    connector = connector_for(channel)
    try:
        connector.verify(request)
    except SignatureRefused as error:
        return _error(error, 401)
    try:
        parsed = connector.parse(request)
        for message in parsed.messages:
            inbound_accept(channel=channel, message=message)
    except InboundInvalid as error:
        return _error(error, 400)
    return parsed.response or HttpResponse(status=200)


@csrf_exempt
@require_POST
def slack_events(request: HttpRequest, channel_id: uuid.UUID) -> HttpResponse:
    return _receive(request, channel_id, Channel.Kind.SLACK)


@csrf_exempt
@require_POST
def email_inbound(request: HttpRequest, channel_id: uuid.UUID) -> HttpResponse:
    return _receive(request, channel_id, Channel.Kind.EMAIL)


@csrf_exempt
@require_POST
def telegram_webhook(request: HttpRequest, channel_id: uuid.UUID) -> HttpResponse:
    return _receive(request, channel_id, Channel.Kind.TELEGRAM)


@csrf_exempt
@require_POST
def teams_messages(request: HttpRequest, channel_id: uuid.UUID) -> HttpResponse:
    """The messaging endpoint of the bot's Azure Bot resource: every activity carries the Bot
    Framework's JWT (401 without a valid one)."""
    return _receive(request, channel_id, Channel.Kind.TEAMS)


@csrf_exempt
@require_http_methods(["GET", "POST"])
def whatsapp_webhook(request: HttpRequest, channel_id: uuid.UUID) -> HttpResponse:
    """GET: Meta's subscription check (the verify token); POST: the signed webhook."""
    if request.method == "POST":
        return _receive(request, channel_id, Channel.Kind.WHATSAPP)
    try:
        channel = _channel(channel_id, Channel.Kind.WHATSAPP)
    except ChannelNotFound as error:
        return _error(error, 404)
    connector = WhatsAppConnector(channel)
    challenge = connector.subscription_challenge(
        mode=request.GET.get("hub.mode", ""),
        token=request.GET.get("hub.verify_token", ""),
        challenge=request.GET.get("hub.challenge", ""),
    )
    if challenge is None:
        return _error(SignatureRefused("wrong verify token"), 403)
    return HttpResponse(challenge, content_type="text/plain")
