"""Agent console views: Django session auth (staff whose workspace role opens the console:
core.permissions.CONSOLE_ROLES), CSRF on every POST, a strict CSP
(core.middleware's, as for every page).

These are plain Django views on purpose: DRF's default authentication here is the API key,
and the console must use the logged-in session with CSRF instead.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.http.response import HttpResponseBase
from django.shortcuts import render
from django.views.decorators.http import require_GET, require_POST

from core.errors import ParleyError
from handoff.console import agent_queue, context_pack
from handoff.live import conversation_channel, queue_channel
from handoff.names import agent_chosen_name, agent_console_name, agent_display_name
from handoff.selectors import agent_conversation_get, agent_workspace_ids, user_is_agent
from handoff.services import (
    agent_message_post,
    agent_profile_update,
    handoff_claim,
    handoff_console_close,
    handoff_resolve,
    handoff_return_to_bot,
    message_data,
    typing_signal,
)
from handoff.services.agents import DISPLAY_NAME_MAX
from streams.live import live_stream_ensure
from streams.sse import sse_response
from streams.sse.merged import sse_merged_response

MAX_MESSAGE = 4000
View = Callable[..., HttpResponseBase]


def agent_view(view: View) -> View:
    """Logged-in agents only; JSON errors for the API part (a service's ParleyError as
    ``{code, message, extra}`` with its kind's status); core.middleware adds the CSP."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        if not request.user.is_authenticated:
            if request.path.startswith("/agent/api/"):
                response: HttpResponseBase = JsonResponse(
                    {"code": "authentication_required"}, status=401
                )
            else:
                response = redirect_to_login(request.get_full_path(), "/admin/login/")
        elif not user_is_agent(user=request.user):
            response = JsonResponse(
                {
                    "code": "not_an_agent",
                    "message": "Your role in no workspace opens the agent console.",
                },
                status=403,
            )
        else:
            try:
                response = view(request, *args, **kwargs)
            except ParleyError as error:  # the console's one mapping of service errors to HTTP
                response = JsonResponse(error.as_json(), status=error.http_status)
        return response

    return wrapped


def _conversation_or_404(request: HttpRequest, conversation_id: uuid.UUID) -> Any:
    return agent_conversation_get(user=request.user, conversation_id=conversation_id)


def _not_found() -> JsonResponse:
    return JsonResponse({"code": "not_found"}, status=404)


@require_GET
@agent_view
def console(request: HttpRequest) -> HttpResponseBase:
    return render(
        request,
        "agent/console.html",
        {
            "agent_name": agent_console_name(request.user),
            "display_name": agent_chosen_name(request.user),
            "display_name_max": DISPLAY_NAME_MAX,
        },
    )


def _json_body(request: HttpRequest) -> dict[str, Any] | None:
    try:
        body = json.loads(request.body or b"{}")
    except ValueError:
        return None
    return body if isinstance(body, dict) else None


@require_POST
@agent_view
def me(request: HttpRequest) -> HttpResponseBase:
    """The agent's display name, as visitors will see it (an empty one clears it)."""
    body = _json_body(request)
    if body is None or not isinstance(body.get("display_name", ""), str):
        return JsonResponse({"code": "malformed_json"}, status=400)
    profile = agent_profile_update(user=request.user, display_name=body.get("display_name", ""))
    return JsonResponse(
        {
            "display_name": profile.display_name,
            "shown_as": agent_display_name(request.user),
            "console_name": agent_console_name(request.user),
        }
    )


@require_GET
@agent_view
def queue(request: HttpRequest) -> HttpResponseBase:
    return JsonResponse({"conversations": agent_queue(user=request.user)})


@require_GET
@agent_view
def queue_events(request: HttpRequest) -> HttpResponseBase:
    """The queues of all the agent's workspaces (one stream each) in one response, resumable as a whole."""
    workspaces = agent_workspace_ids(user=request.user)
    if not workspaces:
        return _not_found()
    stream_ids = [
        live_stream_ensure(channel=queue_channel(workspace_id=workspace))
        for workspace in workspaces
    ]
    return sse_merged_response(
        stream_ids=stream_ids, last_event_id=request.headers.get("Last-Event-ID")
    )


@require_GET
@agent_view
def conversation(request: HttpRequest, conversation_id: uuid.UUID) -> HttpResponseBase:
    found = _conversation_or_404(request, conversation_id)
    if found is None:
        return _not_found()
    return JsonResponse(context_pack(conversation=found, viewer=request.user))


@require_GET
@agent_view
def conversation_events(request: HttpRequest, conversation_id: uuid.UUID) -> HttpResponseBase:
    found = _conversation_or_404(request, conversation_id)
    if found is None:
        return _not_found()
    stream_id = live_stream_ensure(channel=conversation_channel(conversation=found))
    return sse_response(stream_id=stream_id, last_event_id=request.headers.get("Last-Event-ID"))


@require_POST
@agent_view
def claim(request: HttpRequest, conversation_id: uuid.UUID) -> HttpResponseBase:
    if _conversation_or_404(request, conversation_id) is None:
        return _not_found()
    result = handoff_claim(conversation_id=conversation_id, agent=request.user)
    return JsonResponse(
        {"won": result.won, "claimed_by": result.claimed_by_name}, status=200 if result.won else 409
    )


@require_POST
@agent_view
def message(request: HttpRequest, conversation_id: uuid.UUID) -> HttpResponseBase:
    if _conversation_or_404(request, conversation_id) is None:
        return _not_found()
    body = _json_body(request)
    if body is None:
        return JsonResponse({"code": "malformed_json"}, status=400)
    text = str(body.get("text", "")).strip()[:MAX_MESSAGE]
    client_message_id = str(body.get("client_message_id", ""))[:100]
    if not text:
        return JsonResponse({"code": "invalid_request", "message": "text is required"}, status=400)
    posted = agent_message_post(
        conversation_id=conversation_id,
        agent=request.user,
        text=text,
        client_message_id=client_message_id,
    )
    return JsonResponse(message_data(posted), status=201)


@require_POST
@agent_view
def typing(request: HttpRequest, conversation_id: uuid.UUID) -> HttpResponseBase:
    found = _conversation_or_404(request, conversation_id)
    if found is None:
        return _not_found()
    if found.owner == "agent":
        typing_signal(conversation=found, who="agent")
    return HttpResponse(status=204)


def _close(
    request: HttpRequest, conversation_id: uuid.UUID, close: Callable[..., Any]
) -> HttpResponseBase:
    if _conversation_or_404(request, conversation_id) is None:
        return _not_found()
    closed = close(conversation_id=conversation_id, agent=request.user)
    return JsonResponse({"owner": closed.owner})


@require_POST
@agent_view
def return_to_bot(request: HttpRequest, conversation_id: uuid.UUID) -> HttpResponseBase:
    return _close(request, conversation_id, handoff_return_to_bot)


@require_POST
@agent_view
def resolve(request: HttpRequest, conversation_id: uuid.UUID) -> HttpResponseBase:
    return _close(request, conversation_id, handoff_resolve)


@require_POST
@agent_view
def close(request: HttpRequest, conversation_id: uuid.UUID) -> HttpResponseBase:
    """Out of the agent's list: a conversation the agent returned to the bot and watched since."""
    if _conversation_or_404(request, conversation_id) is None:
        return _not_found()
    handoff_console_close(conversation_id=conversation_id, agent=request.user)
    return JsonResponse({"closed": True})
