"""The widget's edges: its config endpoint (public API, widget key) and the demo customer page."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.templatetags.static import static
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.access import bot_get_for_principal, conversation_get_for_principal
from api.errors import ApiError, ErrorCode
from api.handoff.history import visitor_handoff_state_get
from api.models import Scope
from api.principal import request_principal
from bots.models import Bot
from prompts.services.demo import DEMO_BOT, DEMO_WORKSPACE_SLUG
from widget.models import WidgetAppearance
from widget.selectors import demo_widget_key_get, widget_config_get


class WidgetConfigView(APIView):
    required_scope = Scope.CHAT

    @extend_schema(responses=dict, summary="The widget key's bot: look, strings and features")
    def get(self, request: Request) -> Response:
        principal = request_principal(request)
        if principal.bot_id is None:
            raise ApiError(ErrorCode.INVALID_REQUEST, "Use the bot's publishable widget key.")
        body = widget_config_get(
            bot=bot_get_for_principal(principal=principal, bot_id=principal.bot_id)
        )
        if principal.visitor is not None:
            conversation = conversation_get_for_principal(
                principal=principal, conversation_id=principal.visitor.conversation_id
            )
            body["owner"] = conversation.owner
            body["handoff"] = visitor_handoff_state_get(conversation=conversation)
        return Response(body)


def demo_page(request: HttpRequest) -> HttpResponse:
    """Lumen Bikes' sample site with the widget embedded (``manage.py demo_widget`` creates the key)."""
    bot = Bot.objects.filter(workspace__slug=DEMO_WORKSPACE_SLUG, name=DEMO_BOT).first()
    key = demo_widget_key_get(bot=bot) if bot else None
    if key is None:
        raise Http404("Run `manage.py demo_load` and `manage.py demo_widget` first.")
    widget_src = request.build_absolute_uri(static("widget/widget.js"))
    asked = request.GET.get("lang", "")
    lang = asked if asked in WidgetAppearance.Locale.values and asked != "page" else "en"
    return render(
        request, "widget/demo.html", {"bot_key": key.key, "widget_src": widget_src, "lang": lang}
    )
