"""The agent console: one page and its JSON/SSE endpoints (session auth, CSRF, CSP)."""

from django.urls import path

from agent import views

app_name = "agent"

urlpatterns = [
    path("", views.console, name="console"),
    path("api/me", views.me, name="me"),
    path("api/queue", views.queue, name="queue"),
    path("api/queue/events", views.queue_events, name="queue-events"),
    path("api/conversations/<uuid:conversation_id>", views.conversation, name="conversation"),
    path(
        "api/conversations/<uuid:conversation_id>/events",
        views.conversation_events,
        name="conversation-events",
    ),
    path("api/conversations/<uuid:conversation_id>/claim", views.claim, name="claim"),
    path("api/conversations/<uuid:conversation_id>/messages", views.message, name="message"),
    path("api/conversations/<uuid:conversation_id>/typing", views.typing, name="typing"),
    path("api/conversations/<uuid:conversation_id>/return", views.return_to_bot, name="return"),
    path("api/conversations/<uuid:conversation_id>/resolve", views.resolve, name="resolve"),
    path("api/conversations/<uuid:conversation_id>/close", views.close, name="close"),
]
